package mcp

// Elicitation, client side (stub: implemented by the elicitation work).

func (c *Client) addElicitationMethods()                         {}
func (c *Client) elicitationCapability(caps *ClientCapabilities) {}
