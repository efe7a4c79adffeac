package mcp

// This file holds sampling, server side: the types of
// sampling/createMessage, the server's typed method to send it, and the
// checks both sides make on a request's messages
// (https://modelcontextprotocol.io/specification/2025-11-25/client/sampling).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mcpkit/mcpkit/internal/exactjson"
	"github.com/mcpkit/mcpkit/internal/jsonenc"
	"github.com/mcpkit/mcpkit/jsonrpc"
)

// ErrInvalidSamplingRequest is wrapped by the error CreateMessage returns,
// without sending anything, for params the spec does not allow: no
// messages, a maxTokens that is not positive, an unknown role or
// includeContext, priorities outside 0..1, or tool uses and tool results
// that do not pair up
// (https://modelcontextprotocol.io/specification/2025-11-25/client/sampling#message-content-constraints).
var ErrInvalidSamplingRequest = errors.New("mcp: invalid sampling/createMessage params")

// CodeUserRejectedSampling is the JSON-RPC error code the spec gives a
// sampling request the user rejected
// (https://modelcontextprotocol.io/specification/2025-11-25/client/sampling#error-handling).
const CodeUserRejectedSampling = -1

// UserRejectedSamplingError returns a new error for a CreateMessageHandler
// whose user rejected the request: code [CodeUserRejectedSampling],
// "User rejected sampling request"
// (https://modelcontextprotocol.io/specification/2025-11-25/client/sampling#error-handling).
// errors.Is matches it by code on the server.
func UserRejectedSamplingError() *jsonrpc.Error {
	return &jsonrpc.Error{Code: CodeUserRejectedSampling, Message: "User rejected sampling request"}
}

// Values of CreateMessageParams.IncludeContext. "thisServer" and
// "allServers" are soft-deprecated and need the client's sampling.context
// capability
// (https://modelcontextprotocol.io/specification/2025-11-25/client/sampling#capabilities).
const (
	includeContextNone       = "none"
	includeContextThisServer = "thisServer"
	includeContextAllServers = "allServers"
)

// Modes of ToolChoice
// (https://modelcontextprotocol.io/specification/2025-11-25/client/sampling#tool-choice-modes).
const (
	ToolChoiceAuto     = "auto"
	ToolChoiceRequired = "required"
	ToolChoiceNone     = "none"
)

// SamplingContent is one block of a sampling message: *TextContent,
// *ImageContent, *AudioContent, *ToolUseContent or *ToolResultContent
// (https://modelcontextprotocol.io/specification/2025-11-25/schema#samplingmessagecontentblock).
// Resource links and embedded resources are not allowed in sampling
// messages, so they do not implement it.
type SamplingContent interface {
	samplingContentType() string
}

func (*TextContent) samplingContentType() string       { return "text" }
func (*ImageContent) samplingContentType() string      { return "image" }
func (*AudioContent) samplingContentType() string      { return "audio" }
func (*ToolUseContent) samplingContentType() string    { return "tool_use" }
func (*ToolResultContent) samplingContentType() string { return "tool_result" }

// ToolUseContent is the model asking to call a tool, in an assistant
// message (2025-11-25,
// https://modelcontextprotocol.io/specification/2025-11-25/client/sampling#sampling-with-tools).
type ToolUseContent struct {
	// ID identifies the tool use; the ToolResultContent that answers it
	// carries the same id.
	ID   string `json:"id"`
	Name string `json:"name"`
	// Input is the arguments, a JSON object. If nil, {} is sent.
	Input json.RawMessage `json:"input"`
	Meta  Meta            `json:"_meta,omitempty"`
}

// ToolResultContent is the result of a tool use, sent back in a user
// message that holds only tool results (2025-11-25,
// https://modelcontextprotocol.io/specification/2025-11-25/client/sampling#tool-result-messages).
type ToolResultContent struct {
	// ToolUseID is the ID of the ToolUseContent this answers.
	ToolUseID string `json:"toolUseId"`
	// Content is the unstructured result, as in CallToolResult. If nil, an
	// empty list is sent.
	Content           []Content       `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
	Meta              Meta            `json:"_meta,omitempty"`
}

// MarshalJSON adds the "type" discriminator, and sends {} for a nil Input
// (the schema requires an object).
func (c *ToolUseContent) MarshalJSON() ([]byte, error) {
	type plain ToolUseContent
	v := struct {
		Type string `json:"type"`
		*plain
	}{"tool_use", (*plain)(c)}
	if c.Input == nil {
		cp := *c
		cp.Input = emptyObject
		v.plain = (*plain)(&cp)
	}
	return jsonenc.Marshal(v)
}

// MarshalJSON adds the "type" discriminator, and sends [] for a nil
// Content (the schema requires a list).
func (c *ToolResultContent) MarshalJSON() ([]byte, error) {
	type plain ToolResultContent
	v := struct {
		Type string `json:"type"`
		*plain
	}{"tool_result", (*plain)(c)}
	if c.Content == nil {
		cp := *c
		cp.Content = []Content{}
		v.plain = (*plain)(&cp)
	}
	return jsonenc.Marshal(v)
}

// UnmarshalJSON decodes the result's content blocks by their types.
func (c *ToolResultContent) UnmarshalJSON(data []byte) error {
	type plain ToolResultContent
	var w struct {
		Content []json.RawMessage `json:"content"`
		*plain
	}
	w.plain = (*plain)(c)
	if err := exactjson.Unmarshal(data, &w); err != nil {
		return err
	}
	var err error
	c.Content, err = unmarshalBlocks(w.Content, unmarshalContent)
	return err
}

// unmarshalSamplingContent decodes one sampling content block by its
// "type".
func unmarshalSamplingContent(data []byte) (SamplingContent, error) {
	return unmarshalBlock(data, func(typ string) SamplingContent {
		switch typ {
		case "text":
			return new(TextContent)
		case "image":
			return new(ImageContent)
		case "audio":
			return new(AudioContent)
		case "tool_use":
			return new(ToolUseContent)
		case "tool_result":
			return new(ToolResultContent)
		}
		return nil
	}, "mcp: content type %q is not allowed in a sampling message")
}

// SamplingContents is the content of a sampling message or result: one
// block is sent as an object (every version reads it), any other number
// as a list (2025-11-25). Both forms are read.
type SamplingContents []SamplingContent

// MarshalJSON sends one block as an object, any other number as a list.
func (cs SamplingContents) MarshalJSON() ([]byte, error) {
	if len(cs) == 1 {
		return jsonenc.Marshal(cs[0])
	}
	if cs == nil {
		return []byte("[]"), nil
	}
	return jsonenc.Marshal([]SamplingContent(cs))
}

// UnmarshalJSON reads a single block or a list of blocks.
func (cs *SamplingContents) UnmarshalJSON(data []byte) error {
	data = trimJSONSpace(data)
	if len(data) > 0 && data[0] == '{' {
		c, err := unmarshalSamplingContent(data)
		if err != nil {
			return err
		}
		*cs = SamplingContents{c}
		return nil
	}
	var raws []json.RawMessage
	if err := exactjson.Unmarshal(data, &raws); err != nil {
		return fmt.Errorf("mcp: sampling content must be an object or a list: %w", err)
	}
	out, err := unmarshalBlocks(raws, unmarshalSamplingContent)
	if err != nil {
		return err
	}
	*cs = out
	return nil
}

func trimJSONSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\n' || b[0] == '\r') {
		b = b[1:]
	}
	return b
}

// SamplingMessage is one message of the conversation a server asks the
// client's model to continue
// (https://modelcontextprotocol.io/specification/2025-11-25/schema#samplingmessage).
type SamplingMessage struct {
	Meta Meta `json:"_meta,omitempty"`
	// Role is RoleUser or RoleAssistant.
	Role    Role             `json:"role"`
	Content SamplingContents `json:"content"`
}

// ModelPreferences are the server's advisory preferences for the model
// the client picks
// (https://modelcontextprotocol.io/specification/2025-11-25/client/sampling#model-preferences).
// Priorities range from 0 to 1; nil omits one.
type ModelPreferences struct {
	// Hints are evaluated in order, as substrings of model names.
	Hints                []ModelHint `json:"hints,omitempty"`
	CostPriority         *float64    `json:"costPriority,omitempty"`
	SpeedPriority        *float64    `json:"speedPriority,omitempty"`
	IntelligencePriority *float64    `json:"intelligencePriority,omitempty"`
}

// ModelHint suggests a model or model family by (part of) its name.
type ModelHint struct {
	Name string `json:"name,omitempty"`
}

// ToolChoice controls how the model uses the tools of a sampling request.
type ToolChoice struct {
	// Mode is ToolChoiceAuto (the default when empty), ToolChoiceRequired
	// or ToolChoiceNone.
	Mode string `json:"mode,omitempty"`
}

// CreateMessageParams is the params of sampling/createMessage
// (https://modelcontextprotocol.io/specification/2025-11-25/client/sampling#creating-messages).
type CreateMessageParams struct {
	Meta     *RequestMeta       `json:"_meta,omitempty"`
	Messages []*SamplingMessage `json:"messages"`
	// ModelPreferences, SystemPrompt, Temperature and StopSequences are
	// advice the client may ignore.
	ModelPreferences *ModelPreferences `json:"modelPreferences,omitempty"`
	SystemPrompt     string            `json:"systemPrompt,omitempty"`
	// IncludeContext is empty (the same as "none"), "none", or one of the
	// soft-deprecated "thisServer" and "allServers", which need the
	// client's sampling.context capability.
	IncludeContext string   `json:"includeContext,omitempty"`
	Temperature    *float64 `json:"temperature,omitempty"`
	// MaxTokens bounds the tokens sampled; it is required and must be
	// positive.
	MaxTokens     int64    `json:"maxTokens"`
	StopSequences []string `json:"stopSequences,omitempty"`
	// Metadata is passed through to the LLM provider: a JSON object.
	Metadata json.RawMessage `json:"metadata,omitempty"`
	// Tools and ToolChoice let the model call tools (2025-11-25). They
	// need the client's sampling.tools capability. Each tool needs an
	// InputSchema.
	Tools      []*Tool     `json:"tools,omitempty"`
	ToolChoice *ToolChoice `json:"toolChoice,omitempty"`
}

// CreateMessageResult is the client's answer to sampling/createMessage:
// the message the model produced.
type CreateMessageResult struct {
	Meta Meta `json:"_meta,omitempty"`
	// Role is normally RoleAssistant.
	Role    Role             `json:"role"`
	Content SamplingContents `json:"content"`
	// Model names the model that produced the message.
	Model string `json:"model"`
	// StopReason says why sampling stopped: "endTurn", "stopSequence",
	// "maxTokens", "toolUse", or another string a provider chose.
	StopReason string `json:"stopReason,omitempty"`
}

// CreateMessage asks the client to sample its LLM
// (https://modelcontextprotocol.io/specification/2025-11-25/client/sampling#creating-messages),
// on the stream of the request whose handler's ctx it is given. Nothing is
// sent when the client did not declare sampling (or sampling.tools,
// sampling.context as params need: ErrCapabilityNotDeclared) or for invalid
// params (ErrInvalidSamplingRequest). A client's error is a
// *jsonrpc.Error (CodeUserRejectedSampling when the user said no).
func (ss *ServerSession) CreateMessage(ctx context.Context, params *CreateMessageParams) (*CreateMessageResult, error) {
	const method = "sampling/createMessage"
	if err := mayCallClient(ctx, method); err != nil { // era_stateless.go
		return nil, err
	}
	if params == nil {
		return nil, fmt.Errorf("%w: params with messages and maxTokens are required", ErrInvalidSamplingRequest)
	}
	caps := ss.clientCapabilities()
	if err := checkSamplingCapability(&caps, params); err != nil {
		return nil, err
	}
	if err := params.validate(); err != nil {
		return nil, fmt.Errorf("%w: %s", ErrInvalidSamplingRequest, err)
	}
	var res CreateMessageResult
	if err := ss.Call(ctx, method, params, &res); err != nil {
		return nil, err
	}
	if err := res.validate(); err != nil {
		return nil, fmt.Errorf("mcp: %s: the client's result is invalid: %s", method, err)
	}
	return &res, nil
}

// CreateMessage is ServerSession.CreateMessage on the request's session.
// In the stateless era it is one Request.Input: until the client's answer
// arrives it returns ErrInputRequired, which the handler must return
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr).
func (r *Request) CreateMessage(ctx context.Context, params *CreateMessageParams) (*CreateMessageResult, error) {
	return ask[CreateMessageResult](ctx, r, SamplingInput(params))
}

// errNoSession is returned by the Request methods that reach the client
// when the request has no session to reach it through.
var errNoSession = errors.New("mcp: the request has no session to reach the client through")

// relatedContext makes sure that messages sent with ctx travel on the
// request's stream, even when ctx does not come from the handler's.
func (r *Request) relatedContext(ctx context.Context) context.Context {
	if r.related != nil && ctx.Value(relatedKey{}) == nil {
		return context.WithValue(ctx, relatedKey{}, r.related)
	}
	return ctx
}

// checkSamplingCapability refuses a request the client did not declare it
// can take.
func checkSamplingCapability(caps *ClientCapabilities, p *CreateMessageParams) error {
	const method = "sampling/createMessage"
	if caps.Sampling == nil {
		return &capabilityError{Method: method, Capability: "sampling"}
	}
	if (len(p.Tools) > 0 || p.ToolChoice != nil) && caps.Sampling.Tools == nil {
		return &capabilityError{Method: method, Capability: "sampling.tools"}
	}
	if (p.IncludeContext == includeContextThisServer || p.IncludeContext == includeContextAllServers) && caps.Sampling.Context == nil {
		return &capabilityError{Method: method, Capability: "sampling.context"}
	}
	return nil
}

// validate checks the params against the schema and the spec's message
// constraints. The text of the error names the offending member.
func (p *CreateMessageParams) validate() error {
	if len(p.Messages) == 0 {
		return errors.New("messages must not be empty")
	}
	if p.MaxTokens <= 0 {
		return fmt.Errorf("maxTokens must be positive, not %d", p.MaxTokens)
	}
	switch p.IncludeContext {
	case "", includeContextNone, includeContextThisServer, includeContextAllServers:
	default:
		return fmt.Errorf("includeContext %q is not one of none, thisServer and allServers", p.IncludeContext)
	}
	if mp := p.ModelPreferences; mp != nil {
		for _, pr := range []struct {
			name string
			v    *float64
		}{{"costPriority", mp.CostPriority}, {"speedPriority", mp.SpeedPriority}, {"intelligencePriority", mp.IntelligencePriority}} {
			if pr.v != nil && (*pr.v < 0 || *pr.v > 1) {
				return fmt.Errorf("modelPreferences.%s must be between 0 and 1, not %v", pr.name, *pr.v)
			}
		}
	}
	if len(p.Metadata) > 0 && trimJSONSpace(p.Metadata)[0] != '{' {
		return errors.New("metadata must be a JSON object")
	}
	for i, t := range p.Tools {
		if t == nil || t.Name == "" {
			return fmt.Errorf("tools[%d] has no name", i)
		}
		if len(t.InputSchema) == 0 {
			return fmt.Errorf("tools[%d] (%s) has no inputSchema", i, t.Name)
		}
	}
	if tc := p.ToolChoice; tc != nil {
		switch tc.Mode {
		case "", ToolChoiceAuto, ToolChoiceRequired, ToolChoiceNone:
		default:
			return fmt.Errorf("toolChoice.mode %q is not one of auto, required and none", tc.Mode)
		}
	}
	return validateSamplingMessages(p.Messages)
}

// validateSamplingMessages checks the roles and contents of a
// conversation, and that tool uses and tool results pair up: a message
// with tool results holds nothing else and is a user message; a tool use
// is an assistant's; every assistant message with tool uses is followed
// at once by a user message answering each of them, and only them
// (https://modelcontextprotocol.io/specification/2025-11-25/client/sampling#tool-use-and-result-balance).
func validateSamplingMessages(msgs []*SamplingMessage) error {
	var pending map[string]bool // tool uses the next message must answer
	pendingAt := -1
	for i, m := range msgs {
		if m == nil {
			return fmt.Errorf("messages[%d] is null", i)
		}
		if m.Role != RoleUser && m.Role != RoleAssistant {
			return fmt.Errorf("messages[%d].role must be user or assistant, not %q", i, m.Role)
		}
		if len(m.Content) == 0 {
			return fmt.Errorf("messages[%d] has no content", i)
		}
		results, uses := 0, map[string]bool{}
		for j, c := range m.Content {
			switch c := c.(type) {
			case nil:
				return fmt.Errorf("messages[%d].content[%d] is null", i, j)
			case *ToolResultContent:
				results++
			case *ToolUseContent:
				if m.Role != RoleAssistant {
					return fmt.Errorf("messages[%d]: a tool_use belongs in an assistant message", i)
				}
				if c.ID == "" || c.Name == "" {
					return fmt.Errorf("messages[%d].content[%d]: a tool_use needs an id and a name", i, j)
				}
				if uses[c.ID] {
					return fmt.Errorf("messages[%d]: tool_use id %q appears twice", i, c.ID)
				}
				uses[c.ID] = true
			}
		}
		if results > 0 && results != len(m.Content) {
			return fmt.Errorf("messages[%d]: tool results must not be mixed with other content", i)
		}
		if results > 0 && m.Role != RoleUser {
			return fmt.Errorf("messages[%d]: tool results belong in a user message", i)
		}
		if pending != nil {
			if results == 0 {
				return fmt.Errorf("messages[%d]: the tool uses of messages[%d] must be answered by tool results first", i, pendingAt)
			}
			for _, c := range m.Content {
				id := c.(*ToolResultContent).ToolUseID
				if !pending[id] {
					return fmt.Errorf("messages[%d]: tool result %q answers no tool use of messages[%d]", i, id, pendingAt)
				}
				delete(pending, id)
			}
			if len(pending) > 0 {
				return fmt.Errorf("messages[%d]: no tool result for tool use %s of messages[%d]", i, sortedKeys(pending), pendingAt)
			}
			pending = nil
		} else if results > 0 {
			return fmt.Errorf("messages[%d]: tool results must follow the assistant message with their tool uses", i)
		}
		if len(uses) > 0 {
			pending, pendingAt = uses, i
		}
	}
	if pending != nil {
		return fmt.Errorf("messages[%d]: its tool uses have no results", pendingAt)
	}
	return nil
}

func sortedKeys(m map[string]bool) string {
	keys := slices.Sorted(maps.Keys(m))
	return `"` + strings.Join(keys, `", "`) + `"`
}

// validate checks the members the schema requires of a result.
func (r *CreateMessageResult) validate() error {
	if r.Role != RoleUser && r.Role != RoleAssistant {
		return fmt.Errorf("role must be user or assistant, not %q", r.Role)
	}
	if r.Content == nil {
		return errors.New("content is missing")
	}
	for i, c := range r.Content {
		if c == nil {
			return fmt.Errorf("content[%d] is null", i)
		}
	}
	return nil
}
