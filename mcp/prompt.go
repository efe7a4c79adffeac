package mcp

// This file holds the prompts feature on the server side
// (https://modelcontextprotocol.io/specification/2025-11-25/server/prompts):
// its types, prompts with hand-written arguments or arguments taken from a
// Go struct, prompts/list and prompts/get.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/mcpkit/mcpkit/internal/exactjson"
	"github.com/mcpkit/mcpkit/internal/jsonenc"
)

// Prompt describes a prompt or prompt template the server offers
// (https://modelcontextprotocol.io/specification/2025-11-25/server/prompts#prompt).
type Prompt struct {
	Meta        Meta   `json:"_meta,omitempty"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	// Arguments are what the prompt can be given. The typed AddPrompt
	// fills them in from its argument struct when left nil.
	Arguments []*PromptArgument `json:"arguments,omitempty"`
	Icons     []Icon            `json:"icons,omitempty"`
}

// PromptArgument describes one argument of a prompt
// (https://modelcontextprotocol.io/specification/2025-11-25/schema#promptargument).
type PromptArgument struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	// Required arguments must be given to prompts/get; the server refuses
	// a request without one with -32602.
	Required bool `json:"required,omitempty"`
}

// PromptMessage is one message of a prompt: a role and one content block
// (text, image, audio, resource link or embedded resource)
// (https://modelcontextprotocol.io/specification/2025-11-25/server/prompts#promptmessage).
type PromptMessage struct {
	Role    Role    `json:"role"`
	Content Content `json:"content"`
}

// UnmarshalJSON decodes the message's content block by its type
// (https://modelcontextprotocol.io/specification/2025-11-25/schema#contentblock).
func (m *PromptMessage) UnmarshalJSON(data []byte) error {
	var w struct {
		Role    Role            `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if err := exactjson.Unmarshal(data, &w); err != nil {
		return err
	}
	m.Role = w.Role
	m.Content = nil
	if len(w.Content) > 0 && string(w.Content) != "null" {
		c, err := unmarshalContent(w.Content)
		if err != nil {
			return err
		}
		m.Content = c
	}
	return nil
}

// ListPromptsResult is one page of prompts; NextCursor, when set, asks for
// the next (https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/pagination).
type ListPromptsResult struct {
	Meta       Meta      `json:"_meta,omitempty"`
	Prompts    []*Prompt `json:"prompts"`
	NextCursor string    `json:"nextCursor,omitempty"`

	page *listPage[*Prompt] // the cached page it was made from
}

// GetPromptParams is the params of prompts/get
// (https://modelcontextprotocol.io/specification/2025-11-25/server/prompts#getting-a-prompt).
type GetPromptParams struct {
	Meta      *RequestMeta      `json:"_meta,omitempty"`
	Name      string            `json:"name"`
	Arguments map[string]string `json:"arguments,omitempty"`
}

// GetPromptResult is a prompt's messages, as prompts/get returns them
// (https://modelcontextprotocol.io/specification/2025-11-25/server/prompts#getting-a-prompt).
type GetPromptResult struct {
	Meta        Meta             `json:"_meta,omitempty"`
	Description string           `json:"description,omitempty"`
	Messages    []*PromptMessage `json:"messages"`
}

// A PromptHandler serves prompts/get for one prompt once every required
// argument is known present
// (https://modelcontextprotocol.io/specification/2025-11-25/server/prompts#getting-a-prompt).
// A *jsonrpc.Error is sent as it is; any other error becomes -32603 with
// its text. A nil result is sent as no messages.
type PromptHandler func(ctx context.Context, req *Request, params *GetPromptParams) (*GetPromptResult, error)

// A TypedPromptHandler serves a prompt whose arguments decode into In, a
// struct whose fields are the arguments (see AddPrompt), so that a handler
// reads fields instead of map lookups
// (https://modelcontextprotocol.io/specification/2025-11-25/server/prompts#getting-a-prompt).
type TypedPromptHandler[In any] func(ctx context.Context, req *Request, in In) (*GetPromptResult, error)

// promptFeatures is the Server's part for prompts, guarded by Server.mu.
type promptFeatures struct {
	prompts featureSet[*serverPrompt]
	// offered is set once a prompt has been added; before, the prompts
	// methods are -32601.
	offered bool
}

type serverPrompt struct {
	prompt  *Prompt
	handler PromptHandler
}

// AddPrompt adds a prompt whose arguments are listed by hand in
// p.Arguments, replacing any prompt of the same name. Live sessions are
// sent notifications/prompts/list_changed, and the server declares the
// prompts capability with listChanged
// (https://modelcontextprotocol.io/specification/2025-11-25/server/prompts#capabilities).
//
// It returns an error when p.Name is empty, an argument has no name or
// appears twice, or h is nil.
func (s *Server) AddPrompt(p *Prompt, h PromptHandler) error {
	if p.Name == "" {
		return errors.New("mcp: a prompt needs a name")
	}
	if h == nil {
		return fmt.Errorf("mcp: prompt %q: nil handler", p.Name)
	}
	seen := make(map[string]bool, len(p.Arguments))
	for _, a := range p.Arguments {
		if a == nil || a.Name == "" {
			return fmt.Errorf("mcp: prompt %q: an argument has no name", p.Name)
		}
		if seen[a.Name] {
			return fmt.Errorf("mcp: prompt %q: argument %q appears twice", p.Name, a.Name)
		}
		seen[a.Name] = true
	}
	s.mu.Lock()
	s.prm.prompts.put(p.Name, &serverPrompt{prompt: p, handler: h})
	s.prm.offered = true
	s.mu.Unlock()
	s.broadcast("notifications/prompts/list_changed", emptyObject)
	return nil
}

// AddPrompt adds a prompt whose arguments are the fields of the struct In
// (https://modelcontextprotocol.io/specification/2025-11-25/server/prompts),
// unless p.Arguments is set. Each exported field of type string (or
// *string) is one argument:
//   - its name is the field's json tag name, or the field's name;
//   - its description is the field's `description` tag, or else its
//     `jsonschema` tag (as for tool arguments), and its title the `title`
//     tag;
//   - it is required unless its json tag says omitempty or omitzero.
//
// Fields tagged json:"-" are skipped; arguments In does not name are
// ignored.
func AddPrompt[In any](s *Server, p *Prompt, h TypedPromptHandler[In]) error {
	if h == nil {
		return fmt.Errorf("mcp: prompt %q: nil handler", p.Name)
	}
	args, err := promptArguments(reflect.TypeFor[In]())
	if err != nil {
		return fmt.Errorf("mcp: prompt %q: %w", p.Name, err)
	}
	if p.Arguments == nil {
		p.Arguments = args
	}
	return s.AddPrompt(p, func(ctx context.Context, req *Request, params *GetPromptParams) (*GetPromptResult, error) {
		var in In
		if len(params.Arguments) > 0 {
			raw, err := jsonenc.Marshal(params.Arguments)
			if err != nil {
				return nil, err
			}
			if err := exactjson.Unmarshal(raw, &in); err != nil {
				return nil, errInvalidParams("invalid arguments for prompt " + p.Name + ": " + err.Error())
			}
		}
		return h(ctx, req, in)
	})
}

// promptArguments lists the arguments the fields of struct type t make.
func promptArguments(t reflect.Type) ([]*PromptArgument, error) {
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("arguments type %v must be a struct", t)
	}
	args := []*PromptArgument{}
	seen := map[string]bool{}
	for _, f := range reflect.VisibleFields(t) {
		if !f.IsExported() || f.Anonymous {
			continue
		}
		tag, hasTag := f.Tag.Lookup("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if ft.Kind() != reflect.String {
			return nil, fmt.Errorf("argument %s (field %s) has type %v: prompt arguments are strings", name, f.Name, f.Type)
		}
		if seen[name] {
			return nil, fmt.Errorf("argument %s appears twice", name)
		}
		seen[name] = true
		desc, ok := f.Tag.Lookup("description")
		if !ok {
			desc = f.Tag.Get("jsonschema")
		}
		optional := false
		if hasTag {
			for o := range strings.SplitSeq(opts, ",") {
				optional = optional || o == "omitempty" || o == "omitzero"
			}
		}
		args = append(args, &PromptArgument{Name: name, Title: f.Tag.Get("title"), Description: desc, Required: !optional})
	}
	return args, nil
}

// RemovePrompts removes the named prompts; live sessions are sent
// notifications/prompts/list_changed if any existed
// (https://modelcontextprotocol.io/specification/2025-11-25/server/prompts#list-changed-notification).
func (s *Server) RemovePrompts(names ...string) {
	s.mu.Lock()
	removed := s.prm.prompts.remove(names...)
	s.mu.Unlock()
	if removed {
		s.broadcast("notifications/prompts/list_changed", emptyObject)
	}
}

// promptsOffered reports whether the server serves the prompts methods:
// once it has had a prompt, or when its configured capabilities declare
// prompts.
func (s *Server) promptsOffered() bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.prm.offered || (s.opts.Capabilities != nil && s.opts.Capabilities.Prompts != nil)
}

// promptByName returns the prompt called name.
func (s *Server) promptByName(name string) (*serverPrompt, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.prm.prompts.get(name)
}

// listPrompts implements prompts/list.
func (s *Server) listPrompts(_ context.Context, r *Request) (any, error) {
	if !s.promptsOffered() {
		return nil, errMethodNotFound(r.Method)
	}
	return serveFeatures(s, r, &s.prm.prompts, func(sp *serverPrompt) *Prompt { return sp.prompt }, promptsResult)
}

// getPrompt implements prompts/get. An unknown prompt and a missing
// required argument are -32602, as the spec advises
// (https://modelcontextprotocol.io/specification/2025-11-25/server/prompts#error-handling).
func (s *Server) getPrompt(ctx context.Context, r *Request) (any, error) {
	if !s.promptsOffered() {
		return nil, errMethodNotFound(r.Method)
	}
	var p GetPromptParams
	if !decodeGetPromptParams(r.Params, &p) { // prompt_decode.go
		if err := unmarshalParams(r.Params, &p); err != nil {
			return nil, err
		}
	}
	r.setMeta(p.Meta)
	sp, ok := s.promptByName(p.Name)
	if !ok {
		return nil, errInvalidParams("Unknown prompt: " + p.Name)
	}
	for _, a := range sp.prompt.Arguments {
		if _, given := p.Arguments[a.Name]; a.Required && !given {
			return nil, errInvalidParams("Missing required argument for prompt " + p.Name + ": " + a.Name)
		}
	}
	res, err := sp.handler(ctx, r, &p)
	if err != nil {
		return nil, handlerError(err)
	}
	if res == nil {
		return &GetPromptResult{Messages: []*PromptMessage{}}, nil
	}
	if res.Messages == nil {
		out := *res
		out.Messages = []*PromptMessage{}
		return &out, nil
	}
	return res, nil
}

// promptsCapability is called with s.mu read-locked.
func (s *Server) promptsCapability() *ListChangedCapability {
	if s.prm.prompts.len() == 0 {
		return nil
	}
	return &ListChangedCapability{ListChanged: true}
}
