package mcp

// Roots, client side (stub: implemented by the roots work).

func (c *Client) addRootsMethods()                         {}
func (c *Client) rootsCapability(caps *ClientCapabilities) {}
