package mcp

// Tasks, client side (stub: implemented by the tasks work).

func (c *Client) addTaskMethods()                         {}
func (c *Client) taskCapability(caps *ClientCapabilities) {}
