package gopeers

import (
	"context"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"sync"

	mcpgoclient "github.com/mark3labs/mcp-go/client"
	mcpgotransport "github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// versions are the protocol versions both peer clients can ask for (each
// SDK's list of supported versions), newest first.
var versions = []string{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// logLevelKey is the _meta key of a stateless-era request's log level.
const logLevelKey = "io.modelcontextprotocol/logLevel"

// peerClient is a connected go-sdk or mcp-go client session, behind one
// interface so that the same checks run on both.
type peerClient interface {
	// version is the negotiated protocol version.
	version() string
	ping(ctx context.Context) error
	listTools(ctx context.Context) ([]string, error)
	// call calls a tool and returns its text contents, joined; a tool
	// error (isError) is an error. progressToken, if not empty, is sent.
	call(ctx context.Context, name string, args map[string]any, progressToken string) (string, error)
	// callLogged calls a tool at log level info: logging/setLevel first in
	// the session era, _meta's log level in the stateless era.
	callLogged(ctx context.Context, name string) (string, error)
	listResources(ctx context.Context) ([]string, error)
	readResource(ctx context.Context, uri string) (string, error)
	listPrompts(ctx context.Context) ([]string, error)
	getPrompt(ctx context.Context, name string, args map[string]string) (string, error)
	// notes are the progress values and log messages received, in order.
	notes() *notes
	close() error
}

// notes collects the notifications a client received.
type notes struct {
	mu       sync.Mutex
	progress []float64
	logs     []string
	changed  chan struct{} // signalled (never blocking) on every note
}

func newNotes() *notes { return &notes{changed: make(chan struct{}, 1)} }

func (n *notes) add(progress *float64, log *string) {
	n.mu.Lock()
	if progress != nil {
		n.progress = append(n.progress, *progress)
	}
	if log != nil {
		n.logs = append(n.logs, *log)
	}
	n.mu.Unlock()
	select {
	case n.changed <- struct{}{}:
	default:
	}
}

// reset forgets what was received so far.
func (n *notes) reset() {
	n.mu.Lock()
	n.progress, n.logs = nil, nil
	n.mu.Unlock()
}

// waitFor waits until ok holds for the notes received, or ctx ends: a
// notification may be handled after the response it preceded.
func (n *notes) waitFor(ctx context.Context, ok func(progress []float64, logs []string) bool) ([]float64, []string, error) {
	for {
		n.mu.Lock()
		p, l := slices.Clone(n.progress), slices.Clone(n.logs)
		n.mu.Unlock()
		if ok(p, l) {
			return p, l, nil
		}
		select {
		case <-n.changed:
		case <-ctx.Done():
			return p, l, context.Cause(ctx)
		}
	}
}

// --- go-sdk ---

type goSDKClient struct {
	cs *gosdk.ClientSession
	n  *notes
}

// connectGoSDK connects a go-sdk client asking for version over t.
// withListChanged sets a tools list_changed handler, which makes go-sdk
// open subscriptions/listen at connect in the stateless era.
func connectGoSDK(ctx context.Context, t gosdk.Transport, version string, withListChanged bool) (*goSDKClient, error) {
	n := newNotes()
	opts := &gosdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *gosdk.ProgressNotificationClientRequest) {
			v := r.Params.Progress
			n.add(&v, nil)
		},
		LoggingMessageHandler: func(_ context.Context, r *gosdk.LoggingMessageRequest) {
			s := fmt.Sprint(r.Params.Data)
			n.add(nil, &s)
		},
	}
	if withListChanged {
		opts.ToolListChangedHandler = func(context.Context, *gosdk.ToolListChangedRequest) {}
	}
	c := gosdk.NewClient(&gosdk.Implementation{Name: "go-sdk-interop", Version: "1.8.0"}, opts)
	cs, err := c.Connect(ctx, t, &gosdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		return nil, err
	}
	return &goSDKClient{cs: cs, n: n}, nil
}

func (c *goSDKClient) version() string { return c.cs.InitializeResult().ProtocolVersion }
func (c *goSDKClient) notes() *notes   { return c.n }
func (c *goSDKClient) close() error    { return c.cs.Close() }
func (c *goSDKClient) ping(ctx context.Context) error {
	return c.cs.Ping(ctx, nil)
}

func (c *goSDKClient) listTools(ctx context.Context) ([]string, error) {
	res, err := c.cs.ListTools(ctx, nil)
	if err != nil {
		return nil, err
	}
	return pluck(res.Tools, func(t *gosdk.Tool) string { return t.Name }), nil
}

func (c *goSDKClient) call(ctx context.Context, name string, args map[string]any, progressToken string) (string, error) {
	p := &gosdk.CallToolParams{Name: name, Arguments: args}
	if progressToken != "" {
		p.SetProgressToken(progressToken)
	}
	return c.callParams(ctx, p)
}

func (c *goSDKClient) callParams(ctx context.Context, p *gosdk.CallToolParams) (string, error) {
	if p.Arguments == nil {
		p.Arguments = map[string]any{}
	}
	res, err := c.cs.CallTool(ctx, p)
	if err != nil {
		return "", err
	}
	return toolText(joinText(res.Content, goSDKText), res.IsError)
}

func (c *goSDKClient) callLogged(ctx context.Context, name string) (string, error) {
	p := &gosdk.CallToolParams{Name: name}
	if c.version() >= "2026-07-28" {
		p.Meta = gosdk.Meta{logLevelKey: "info"}
	} else if err := c.cs.SetLoggingLevel(ctx, &gosdk.SetLoggingLevelParams{Level: "info"}); err != nil {
		return "", fmt.Errorf("logging/setLevel: %w", err)
	}
	return c.callParams(ctx, p)
}

func (c *goSDKClient) listResources(ctx context.Context) ([]string, error) {
	res, err := c.cs.ListResources(ctx, nil)
	if err != nil {
		return nil, err
	}
	return pluck(res.Resources, func(r *gosdk.Resource) string { return r.URI }), nil
}

func (c *goSDKClient) readResource(ctx context.Context, uri string) (string, error) {
	res, err := c.cs.ReadResource(ctx, &gosdk.ReadResourceParams{URI: uri})
	if err != nil {
		return "", err
	}
	if len(res.Contents) != 1 {
		return "", fmt.Errorf("%d contents, want 1", len(res.Contents))
	}
	return res.Contents[0].Text, nil
}

func (c *goSDKClient) listPrompts(ctx context.Context) ([]string, error) {
	res, err := c.cs.ListPrompts(ctx, nil)
	if err != nil {
		return nil, err
	}
	return pluck(res.Prompts, func(p *gosdk.Prompt) string { return p.Name }), nil
}

func (c *goSDKClient) getPrompt(ctx context.Context, name string, args map[string]string) (string, error) {
	res, err := c.cs.GetPrompt(ctx, &gosdk.GetPromptParams{Name: name, Arguments: args})
	if err != nil {
		return "", err
	}
	return joinText(res.Messages, func(m *gosdk.PromptMessage) (string, bool) { return goSDKText(m.Content) }), nil
}

// goSDKText is the text of go-sdk content, if it is text.
func goSDKText(c gosdk.Content) (string, bool) {
	tc, ok := c.(*gosdk.TextContent)
	if !ok {
		return "", false
	}
	return tc.Text, true
}

// --- mcp-go ---

type mcpGoClient struct {
	c   *mcpgoclient.Client
	n   *notes
	ver string
	// cmd is the server process of a stdio client, nil over HTTP.
	cmd *exec.Cmd
}

// connectMCPGo starts and initializes an mcp-go client over tr asking
// for version.
func connectMCPGo(sessionCtx, ctx context.Context, tr mcpgotransport.Interface, version string) (*mcpGoClient, error) {
	n := newNotes()
	c := mcpgoclient.NewClient(tr)
	c.OnNotification(func(note mcpgo.JSONRPCNotification) {
		switch note.Method {
		case "notifications/progress":
			if v, ok := note.Params.AdditionalFields["progress"].(float64); ok {
				n.add(&v, nil)
			}
		case "notifications/message":
			s := fmt.Sprint(note.Params.AdditionalFields["data"])
			n.add(nil, &s)
		}
	})
	if err := c.Start(sessionCtx); err != nil {
		return nil, fmt.Errorf("start: %w", err)
	}
	req := mcpgo.InitializeRequest{}
	req.Params.ProtocolVersion = version
	req.Params.ClientInfo = mcpgo.Implementation{Name: "mcp-go-interop", Version: "1.2.1"}
	res, err := c.Initialize(ctx, req)
	if err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("initialize: %w", err)
	}
	return &mcpGoClient{c: c, n: n, ver: res.ProtocolVersion}, nil
}

func (c *mcpGoClient) version() string                { return c.ver }
func (c *mcpGoClient) notes() *notes                  { return c.n }
func (c *mcpGoClient) close() error                   { return c.c.Close() }
func (c *mcpGoClient) ping(ctx context.Context) error { return c.c.Ping(ctx) }

func (c *mcpGoClient) listTools(ctx context.Context) ([]string, error) {
	res, err := c.c.ListTools(ctx, mcpgo.ListToolsRequest{})
	if err != nil {
		return nil, err
	}
	return pluck(res.Tools, func(t mcpgo.Tool) string { return t.Name }), nil
}

func (c *mcpGoClient) call(ctx context.Context, name string, args map[string]any, progressToken string) (string, error) {
	req := mcpgo.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	if progressToken != "" {
		req.Params.Meta = &mcpgo.Meta{ProgressToken: progressToken}
	}
	res, err := c.c.CallTool(ctx, req)
	if err != nil {
		return "", err
	}
	return toolText(joinText(res.Content, mcpGoText), res.IsError)
}

func (c *mcpGoClient) callLogged(ctx context.Context, name string) (string, error) {
	// mcp-go's SetLevel sends logging/setLevel in the session era and
	// sets every later request's _meta log level in the stateless era.
	req := mcpgo.SetLevelRequest{}
	req.Params.Level = mcpgo.LoggingLevelInfo
	if err := c.c.SetLevel(ctx, req); err != nil {
		return "", fmt.Errorf("logging/setLevel: %w", err)
	}
	return c.call(ctx, name, nil, "")
}

func (c *mcpGoClient) listResources(ctx context.Context) ([]string, error) {
	res, err := c.c.ListResources(ctx, mcpgo.ListResourcesRequest{})
	if err != nil {
		return nil, err
	}
	return pluck(res.Resources, func(r mcpgo.Resource) string { return r.URI }), nil
}

func (c *mcpGoClient) readResource(ctx context.Context, uri string) (string, error) {
	req := mcpgo.ReadResourceRequest{}
	req.Params.URI = uri
	res, err := c.c.ReadResource(ctx, req)
	if err != nil {
		return "", err
	}
	if len(res.Contents) != 1 {
		return "", fmt.Errorf("%d contents, want 1", len(res.Contents))
	}
	tc, ok := mcpgo.AsTextResourceContents(res.Contents[0])
	if !ok {
		return "", fmt.Errorf("contents are %T, not text", res.Contents[0])
	}
	return tc.Text, nil
}

func (c *mcpGoClient) listPrompts(ctx context.Context) ([]string, error) {
	res, err := c.c.ListPrompts(ctx, mcpgo.ListPromptsRequest{})
	if err != nil {
		return nil, err
	}
	return pluck(res.Prompts, func(p mcpgo.Prompt) string { return p.Name }), nil
}

func (c *mcpGoClient) getPrompt(ctx context.Context, name string, args map[string]string) (string, error) {
	req := mcpgo.GetPromptRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.c.GetPrompt(ctx, req)
	if err != nil {
		return "", err
	}
	return joinText(res.Messages, func(m mcpgo.PromptMessage) (string, bool) { return mcpGoText(m.Content) }), nil
}

// mcpGoText is the text of mcp-go content, if it is text.
func mcpGoText(c mcpgo.Content) (string, bool) {
	tc, ok := mcpgo.AsTextContent(c)
	if !ok {
		return "", false
	}
	return tc.Text, true
}

// pluck returns f of each of items, in order: the names or URIs of a
// list result.
func pluck[T any](items []T, f func(T) string) []string {
	var out []string
	for _, it := range items {
		out = append(out, f(it))
	}
	return out
}

// joinText joins the text of those of items that have text.
func joinText[T any](items []T, text func(T) (string, bool)) string {
	var b strings.Builder
	for _, it := range items {
		if s, ok := text(it); ok {
			b.WriteString(s)
		}
	}
	return b.String()
}

// toolText is a tool result's joined text; a tool error (isError) is an
// error that quotes it.
func toolText(text string, isError bool) (string, error) {
	if isError {
		return "", fmt.Errorf("tool error: %s", text)
	}
	return text, nil
}

// contains fails unless list has every one of names.
func contains(what string, list []string, names ...string) error {
	for _, n := range names {
		if !slices.Contains(list, n) {
			return fmt.Errorf("%s %v: no %q", what, list, n)
		}
	}
	return nil
}
