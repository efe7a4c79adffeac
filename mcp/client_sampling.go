package mcp

// Sampling, client side: answering sampling/createMessage through
// ClientOptions.CreateMessageHandler
// (https://modelcontextprotocol.io/specification/2025-11-25/client/sampling).

import (
	"context"
	"encoding/json"
)

func (c *Client) addSamplingMethods() {
	if c.opts.CreateMessageHandler != nil {
		c.methods["sampling/createMessage"] = c.createMessage
	}
}

// samplingCapability declares sampling, with tools and context as the
// options say, when the client has a CreateMessageHandler.
func (c *Client) samplingCapability(caps *ClientCapabilities) {
	if c.opts.CreateMessageHandler == nil {
		return
	}
	caps.Sampling = &SamplingCapability{}
	if c.opts.SamplingTools {
		caps.Sampling.Tools = &struct{}{}
	}
	if c.opts.SamplingContext {
		caps.Sampling.Context = &struct{}{}
	}
}

// createMessage checks a sampling request and passes it to the handler.
// A request with tools or toolChoice from a server the client did not
// declare sampling.tools to is refused with -32602, as the spec requires
// of clients, and so are messages whose tool uses and results do not pair
// up (https://modelcontextprotocol.io/specification/2025-11-25/client/sampling#error-handling).
func (c *Client) createMessage(ctx context.Context, cs *ClientSession, params json.RawMessage) (any, error) {
	if len(params) == 0 {
		return nil, errInvalidParams("missing params: sampling/createMessage requires messages and maxTokens")
	}
	var p CreateMessageParams
	if err := unmarshalParams(params, &p); err != nil {
		return nil, err
	}
	if len(p.Tools) > 0 || p.ToolChoice != nil {
		if declared := c.capabilities().Sampling; declared == nil || declared.Tools == nil {
			return nil, errInvalidParams("tools and toolChoice need the sampling.tools capability, which this client did not declare")
		}
	}
	if err := p.validate(); err != nil {
		return nil, errInvalidParams(err.Error())
	}
	res, err := c.opts.CreateMessageHandler(ctx, cs, &p)
	if err != nil {
		return nil, err
	}
	if res == nil {
		c.logger.Error("mcp: client: CreateMessageHandler returned no result and no error")
		return nil, errInternal()
	}
	if err := res.validate(); err != nil {
		c.logger.Error("mcp: client: CreateMessageHandler returned an invalid result", "err", err)
		return nil, errInternal()
	}
	return res, nil
}
