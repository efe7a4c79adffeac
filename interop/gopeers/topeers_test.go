package gopeers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	mcpgoserver "github.com/mark3labs/mcp-go/server"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/mcpkit/mcpkit/interop/gopeers/peers"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
)

// peerMode is one way a peer server is served to mcpkit's client.
type peerMode struct {
	name                    string
	stdio                   bool
	stateless, jsonResponse bool
	// accepted202 answers every POST that gets an event stream with 202
	// instead of 200, as mcp-go v0.32.0 did (item 9).
	accepted202 bool
	// sse serves the 2024-11-05 HTTP+SSE transport (go-sdk's SSEHandler)
	// instead of Streamable HTTP: mcpkit's Streamable HTTP client must
	// fall back to it by itself (issue 17).
	sse bool
}

// peerModes are the ways each peer SDK can serve: go-sdk has stateful,
// stateless and JSON-reply Streamable HTTP; mcp-go v1.2.1 has no option
// for JSON replies on net/http.
var peerModes = map[string][]peerMode{
	"go-sdk": {
		{name: "stdio", stdio: true}, {name: "http"}, {name: "http-stateless", stateless: true}, {name: "http-json", jsonResponse: true},
		{name: "http+sse (2024-11-05)", sse: true},
	},
	"mcp-go": {
		{name: "stdio", stdio: true}, {name: "http"}, {name: "http-stateless", stateless: true},
		{name: "http answering 202 with an event stream", accepted202: true},
	},
}

// peerHTTPHandler returns the Streamable HTTP handler of a peer server of
// sdk in mode m, and a function that stops what it runs.
func peerHTTPHandler(sdk string, m peerMode, toolsOnly bool) (http.Handler, func()) {
	if sdk == "go-sdk" {
		s := peers.GoSDKServer("go-sdk-peer", toolsOnly)
		if m.sse {
			return gosdk.NewSSEHandler(func(*http.Request) *gosdk.Server { return s }, nil), func() {}
		}
		return gosdk.NewStreamableHTTPHandler(func(*http.Request) *gosdk.Server { return s },
			&gosdk.StreamableHTTPOptions{Stateless: m.stateless, JSONResponse: m.jsonResponse}), func() {}
	}
	h := mcpgoserver.NewStreamableHTTPServer(peers.MCPGoServer("mcp-go-peer", toolsOnly), mcpgoserver.WithStateLess(m.stateless))
	stop := func() { _ = h.Shutdown(context.Background()) }
	if m.accepted202 {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost {
				w = accepted202Writer{w}
			}
			h.ServeHTTP(w, r)
		}), stop
	}
	return h, stop
}

// accepted202Writer turns a 200 with an event stream into a 202 with the
// same stream, the answer of mcp-go v0.32.0 to a tools/call whose tool sends
// notifications.
type accepted202Writer struct{ http.ResponseWriter }

func (w accepted202Writer) WriteHeader(code int) {
	if code == http.StatusOK && strings.HasPrefix(w.Header().Get("Content-Type"), "text/event-stream") {
		code = http.StatusAccepted
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w accepted202Writer) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w accepted202Writer) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// TestMcpkitClientToPeers drives a go-sdk server and an mcp-go server with
// mcpkit's client, over stdio (cmd/peerserver, through
// mcp.CommandTransport) and Streamable HTTP (in-process, on 127.0.0.1,
// through mcphttp.ClientTransport; for go-sdk's 2024-11-05 SSEHandler too,
// which the client reaches by falling back by itself) in each mode the
// peer has, pinned to the
// session era and with the default EraAuto: tools, a tool that sends
// notifications while it runs (item 9: mcp-go answers it with an event
// stream), resources, prompts.
func TestMcpkitClientToPeers(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for _, sdk := range []string{"go-sdk", "mcp-go"} {
		for _, m := range peerModes[sdk] {
			for _, era := range []mcp.ProtocolEra{mcp.EraSession, mcp.EraAuto} {
				if m.accepted202 && era == mcp.EraAuto {
					continue // one era shows it; a hang costs a check's timeout
				}
				mcpkitClientSession(t, sdk, m, era)
			}
		}
	}
}

// eraName names an era in check names.
func eraName(era mcp.ProtocolEra) string {
	if era == mcp.EraSession {
		return "legacy"
	}
	return "auto"
}

// mcpkitClientSession runs the checks of mcpkit's client against the peer
// server of sdk in mode m: the server is started here and stopped before it
// returns.
func mcpkitClientSession(t *testing.T, sdk string, m peerMode, era mcp.ProtocolEra) {
	prefix := fmt.Sprintf("mcpkit (%s) -> %s server %s", eraName(era), sdk, m.name)
	var ssePosts atomic.Int64
	n := newNotes()
	client := mcp.NewClient(mcp.Implementation{Name: "mcpkit-interop", Version: "0"}, &mcp.ClientOptions{
		ProtocolEra: era,
		ProgressHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.ProgressParams) {
			v := p.Progress
			n.add(&v, nil)
		},
	})
	var tr mcp.Transport
	if m.stdio {
		if buildErr != nil {
			check(t, prefix+": connect", func(context.Context) error { return buildErr })
			return
		}
		tr = &mcp.CommandTransport{Command: exec.Command(peerBin, sdk)}
	} else {
		h, stop := peerHTTPHandler(sdk, m, false)
		if m.sse {
			inner := h
			h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodPost && r.URL.Query().Get("sessionid") != "" {
					ssePosts.Add(1)
				}
				inner.ServeHTTP(w, r)
			})
		}
		ts := httptest.NewServer(h)
		hc := &http.Client{Transport: &http.Transport{}}
		defer func() {
			hc.CloseIdleConnections()
			ts.Close()
			stop()
		}()
		tr = &mcphttp.ClientTransport{URL: ts.URL + "/mcp", HTTPClient: hc}
	}
	var cs *mcp.ClientSession
	check(t, prefix+": connect", func(ctx context.Context) error {
		var err error
		cs, err = client.Connect(ctx, tr)
		if err != nil {
			return err
		}
		return want("negotiated version", cs.ProtocolVersion(), wantVersion(sdk, m, era))
	})
	run := func(name string, f func(ctx context.Context) error) {
		check(t, prefix+": "+name, func(ctx context.Context) error {
			if cs == nil {
				return errNotConnected
			}
			return f(ctx)
		})
	}
	if m.sse {
		run("fell back to HTTP+SSE (POSTs to the endpoint's ?sessionid=)", func(context.Context) error {
			if ssePosts.Load() == 0 {
				return errors.New("no POST reached the HTTP+SSE session endpoint")
			}
			return nil
		})
	}
	if era == mcp.EraSession {
		run("ping", func(ctx context.Context) error { return cs.Ping(ctx) })
	}
	run("tools/list", func(ctx context.Context) error {
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			return err
		}
		return contains("tools", pluck(res.Tools, func(tl *mcp.Tool) string { return tl.Name }), "echo", "notify")
	})
	run("call echo", func(ctx context.Context) error {
		got, err := callText(ctx, cs, "echo", `{"text":"héllo, peer"}`, nil)
		if err != nil {
			return err
		}
		return want("echo", got, "héllo, peer")
	})
	notifyName := "call notify: result and progress"
	if sdk == "mcp-go" && !m.stdio {
		notifyName += " (item 9)"
	}
	if m.jsonResponse {
		notifyName = "call notify: result (JSON reply)"
	}
	run(notifyName, func(ctx context.Context) error {
		n.reset()
		got, err := callText(ctx, cs, "notify", `{}`, &mcp.RequestMeta{ProgressToken: jsonrpc.StringID("tok-9")})
		if err != nil {
			return err
		}
		if err := want("result", got, peers.NotifyResult); err != nil || m.jsonResponse {
			return err
		}
		if sdk == "mcp-go" && !m.stdio {
			// mcp-go v1.2.1 over HTTP loses a notification sent before it
			// upgraded the POST's response to an event stream, and may
			// reorder them (seen on the wire): whatever arrived, before
			// the result as mcpkit's client delivers it, must be of Steps,
			// each at most once.
			p, _, _ := n.waitFor(ctx, func([]float64, []string) bool { return true })
			seen := map[float64]bool{}
			for _, v := range p {
				if !slices.Contains(peers.Steps, v) || seen[v] {
					return fmt.Errorf("progress %v: want each of %v at most once", p, peers.Steps)
				}
				seen[v] = true
			}
			return nil
		}
		p, _, err := n.waitFor(ctx, func(p []float64, _ []string) bool { return len(p) >= len(peers.Steps) })
		if err != nil {
			return fmt.Errorf("progress %v: %w", p, err)
		}
		return want("progress", fmt.Sprint(p), fmt.Sprint(peers.Steps))
	})
	if m.accepted202 {
		// This mode is for the call that gets an event stream; the rest
		// is as in mode "http".
		run("close", func(context.Context) error { return cs.Close() })
		return
	}
	run("resources/list", func(ctx context.Context) error {
		res, err := cs.ListResources(ctx, nil)
		if err != nil {
			return err
		}
		return contains("resources", pluck(res.Resources, func(r *mcp.Resource) string { return r.URI }), peers.ResourceURI)
	})
	run("resources/read", func(ctx context.Context) error {
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: peers.ResourceURI})
		if err != nil {
			return err
		}
		if len(res.Contents) != 1 {
			return fmt.Errorf("%d contents, want 1", len(res.Contents))
		}
		return want("text", res.Contents[0].Text, peers.ResourceText)
	})
	run("prompts/list", func(ctx context.Context) error {
		res, err := cs.ListPrompts(ctx, nil)
		if err != nil {
			return err
		}
		return contains("prompts", pluck(res.Prompts, func(p *mcp.Prompt) string { return p.Name }), peers.PromptName)
	})
	run("prompts/get", func(ctx context.Context) error {
		res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: peers.PromptName, Arguments: map[string]string{"name": "mcpkit"}})
		if err != nil {
			return err
		}
		got := joinText(res.Messages, func(msg *mcp.PromptMessage) (string, bool) { return mcpkitText(msg.Content) })
		return want("prompt", got, peers.PromptText("mcpkit"))
	})
	run("close", func(context.Context) error { return cs.Close() })
}

// wantVersion is the version mcpkit's client must settle on with the peer
// of sdk in mode m: 2025-11-25 when pinned to the session era; with
// EraAuto, 2026-07-28, but for go-sdk's stateful HTTP handler, whose
// server/discover lists only session-era versions (it serves 2026-07-28
// only when Stateless), so that the client falls back to initialize.
func wantVersion(sdk string, m peerMode, era mcp.ProtocolEra) string {
	if era == mcp.EraSession || (sdk == "go-sdk" && !m.stdio && !m.stateless) {
		return "2025-11-25"
	}
	return "2026-07-28"
}

// callText calls a tool with mcpkit's client and returns its text
// contents, joined; a tool error is an error.
func callText(ctx context.Context, cs *mcp.ClientSession, name, args string, meta *mcp.RequestMeta) (string, error) {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: []byte(args), Meta: meta})
	if err != nil {
		return "", err
	}
	return toolText(joinText(res.Content, mcpkitText), res.IsError)
}

// mcpkitText is the text of mcpkit content, if it is text.
func mcpkitText(c mcp.Content) (string, bool) {
	tc, ok := c.(*mcp.TextContent)
	if !ok {
		return "", false
	}
	return tc.Text, true
}

// TestCLIListsNoneFromPeers is item 10's first half: `mcpkit resources
// list` and `mcpkit prompts list` against a peer server with tools only
// (it declares neither resources nor prompts), over stdio and HTTP, print
// "none" and exit 0.
func TestCLIListsNoneFromPeers(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for _, sdk := range []string{"go-sdk", "mcp-go"} {
		h, stop := peerHTTPHandler(sdk, peerMode{name: "http"}, true)
		ts := httptest.NewServer(h)
		for _, verb := range []string{"resources", "prompts"} {
			for _, where := range []string{"stdio", "http"} {
				name := fmt.Sprintf("mcpkit %s list -> %s server %s with tools only: prints none, exits 0 (item 10)", verb, sdk, where)
				check(t, name, func(ctx context.Context) error {
					if buildErr != nil {
						return buildErr
					}
					args := []string{verb, "list"}
					if where == "stdio" {
						args = append(args, "--", peerBin, sdk, "tools-only")
					} else {
						args = append(args, "--url", ts.URL+"/mcp")
					}
					cmd := exec.CommandContext(ctx, mcpkitBin, args...)
					var stdout, stderr strings.Builder
					cmd.Stdout, cmd.Stderr = &stdout, &stderr
					err := cmd.Run()
					var exit *exec.ExitError
					if errors.As(err, &exit) {
						return fmt.Errorf("exit %d, stdout %q, stderr %q", exit.ExitCode(), stdout.String(), stderr.String())
					}
					if err != nil {
						return err
					}
					if !strings.Contains(strings.ToLower(stdout.String()), "none") {
						return fmt.Errorf("stdout %q does not say none (stderr %q)", stdout.String(), stderr.String())
					}
					return nil
				})
			}
		}
		ts.Close()
		stop()
	}
}
