package mcp

// Sampling, client side (stub: implemented by the sampling work).

func (c *Client) addSamplingMethods()                         {}
func (c *Client) samplingCapability(caps *ClientCapabilities) {}
