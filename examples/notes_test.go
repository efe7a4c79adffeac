package examples_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
)

// verifyNoLeaks checks, once the test and its cleanups (which stop the
// servers it started) are done, that no goroutine started by the test is
// left.
func verifyNoLeaks(t *testing.T) {
	opt := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, opt) })
}

// startNotesHTTP runs the notes example over HTTP on a free port and
// returns its endpoint.
func startNotesHTTP(t *testing.T, args ...string) string {
	t.Helper()
	return startServer(t, binary(t, "./notes"), append([]string{"-http", "127.0.0.1:0"}, args...)...)
}

// TestNotesWithTheCLI runs the notes server under the mcpkit CLI, as the
// README says: over stdio in both eras (--era auto, the default, speaks the
// stateless era to it) and over HTTP. The server's log line reaches the
// CLI's stderr with no option given.
func TestNotesWithTheCLI(t *testing.T) {
	verifyNoLeaks(t)
	readmeShows(t, `mcpkit tools call add_note --args '{"title":"Milk","text":"Buy milk."}' -- go run ./examples/notes`+"\n")
	readmeShows(t, "go run ./examples/notes -http 127.0.0.1:8080 -max-sessions 100   # serves http://127.0.0.1:8080/mcp\n")
	readmeShows(t, `mcpkit tools call add_note --args '{"title":"Milk","text":"Buy milk."}' --url http://127.0.0.1:8080/mcp`+"\n")
	notes, mcpkit := binary(t, "./notes"), binary(t, "../cmd/mcpkit")
	url := startNotesHTTP(t)
	add := []string{"tools", "call", "add_note", "--args", `{"title":"Milk","text":"Buy milk."}`}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"stdio, era auto", append(append([]string{}, add...), "--", notes)},
		{"stdio, era session", append(append([]string{}, add...), "--era", "session", "--", notes)},
		{"http, era auto", append(append([]string{}, add...), "--url", url)},
		{"http, era session", append(append([]string{}, add...), "--era", "session", "--url", url)},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := run(t, mcpkit, c.args...)
			// Each server starts with the welcome note, note 1; the
			// HTTP server lives on, and the second call adds note 3.
			id := 2
			if c.name == "http, era session" {
				id = 3
			}
			wantOut := fmt.Sprintf(`{"id":%d,"title":"Milk","text":"Buy milk."}`+"\n", id)
			wantLog := fmt.Sprintf(`server log [info] "added note %d: Milk"`+"\n", id)
			if code != 0 || out != wantOut || !strings.Contains(errOut, wantLog) {
				t.Errorf("mcpkit %s: exit %d, stdout %q, stderr %q; want exit 0, stdout %q, stderr with %q",
					strings.Join(c.args, " "), code, out, errOut, wantOut, wantLog)
			}
		})
	}
}

// TestNotesREADMECommands runs the README's other commands for the notes
// server and checks their output exactly.
func TestNotesREADMECommands(t *testing.T) {
	verifyNoLeaks(t)
	notes, mcpkit := binary(t, "./notes"), binary(t, "../cmd/mcpkit")
	url := startNotesHTTP(t)
	for _, c := range []struct {
		readme string   // the command as the README shows it
		args   []string // the same, run by the test
		want   string
	}{{
		readme: "mcpkit resources read note://1 -- go run ./examples/notes\n",
		args:   []string{"resources", "read", "note://1", "--", notes},
		want:   "# Welcome\n\nNotes live in memory until the server stops.\n",
	}, {
		readme: `mcpkit prompts get summarize --args '{"id":"1"}' -- go run ./examples/notes` + "\n",
		args:   []string{"prompts", "get", "summarize", "--args", `{"id":"1"}`, "--", notes},
		want:   "user: Summarize this note in a few words:\n\n# Welcome\n\nNotes live in memory until the server stops.\n",
	}, {
		// Over HTTP the server lives on: the note added is found.
		readme: `mcpkit tools call add_note --args '{"title":"Milk","text":"Buy milk."}' --url http://127.0.0.1:8080/mcp` + "\n",
		args:   []string{"tools", "call", "add_note", "--args", `{"title":"Milk","text":"Buy milk."}`, "--url", url},
		want:   `{"id":2,"title":"Milk","text":"Buy milk."}` + "\n",
	}, {
		readme: `mcpkit tools call search_notes --args '{"query":"milk"}' --url http://127.0.0.1:8080/mcp` + "\n",
		args:   []string{"tools", "call", "search_notes", "--args", `{"query":"milk"}`, "--url", url},
		want:   `{"matches":[{"id":2,"title":"Milk","text":"Buy milk."}]}` + "\n",
	}} {
		readmeShows(t, c.readme)
		code, out, _ := run(t, mcpkit, c.args...)
		if code != 0 || out != c.want {
			t.Errorf("mcpkit %s: exit %d, stdout\n%s\nwant exit 0, stdout\n%s", strings.Join(c.args, " "), code, out, c.want)
		}
	}
}

// TestNotes calls every tool, the resource template and the prompt of the
// notes server with the mcp client, over stdio and HTTP, in both eras, and
// checks every answer, log message and progress notification exactly.
func TestNotes(t *testing.T) {
	verifyNoLeaks(t)
	notes := binary(t, "./notes")
	for _, era := range []mcp.ProtocolEra{mcp.EraSession, mcp.EraAuto} {
		t.Run("stdio/"+era.String(), func(t *testing.T) {
			checkNotes(t, era, &mcp.CommandTransport{Command: exec.Command(notes)})
		})
		t.Run("http/"+era.String(), func(t *testing.T) {
			url := startNotesHTTP(t)
			hc := &http.Client{Transport: &http.Transport{}}
			t.Cleanup(hc.CloseIdleConnections)
			checkNotes(t, era, &mcphttp.ClientTransport{URL: url, HTTPClient: hc})
		})
	}
}

// checkNotes connects to a fresh notes server (only the welcome note) over
// tr and checks what each feature answers.
func checkNotes(t *testing.T, era mcp.ProtocolEra, tr mcp.Transport) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var (
		mu     sync.Mutex
		events []string // log messages and progress, in arrival order
	)
	note := func(s string) {
		mu.Lock()
		events = append(events, s)
		mu.Unlock()
	}
	take := func() []string {
		mu.Lock()
		defer mu.Unlock()
		e := events
		events = nil
		return e
	}
	client := mcp.NewClient(mcp.Implementation{Name: "notes-test", Version: "1.0.0"}, &mcp.ClientOptions{
		ProtocolEra: era,
		LogLevel:    mcp.LevelInfo, // the stateless era sends logs only to requests that ask
		LoggingMessageHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.LoggingMessageParams) {
			note(fmt.Sprintf("log %s %s: %s", p.Level, p.Logger, p.Data))
		},
		ProgressHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.ProgressParams) {
			note(fmt.Sprintf("progress %v/%v", p.Progress, p.Total))
		},
	})
	cs, err := client.Connect(ctx, tr)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	wantVersion := map[mcp.ProtocolEra]string{mcp.EraSession: "2025-11-25", mcp.EraAuto: "2026-07-28"}[era]
	if v := cs.ProtocolVersion(); v != wantVersion {
		t.Errorf("protocol version %q, want %q", v, wantVersion)
	}

	// The tools, with the output schemas inferred from their Go types.
	var tools []string
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		tools = append(tools, fmt.Sprintf("%s in=%s out=%s", tool.Name, tool.InputSchema, tool.OutputSchema))
	}
	noteSchema := `{"type":"object","properties":{"id":{"type":"integer"},"title":{"type":"string"},"text":{"type":"string"}},"required":["id","title","text"],"additionalProperties":false}`
	wantTools := []string{
		`add_note in={"type":"object","properties":{"title":{"type":"string","description":"a short title"},"text":{"type":"string","description":"the note itself"}},"required":["title","text"],"additionalProperties":false} out=` + noteSchema,
		`search_notes in={"type":"object","properties":{"query":{"type":"string","description":"words to look for, in titles and texts, ignoring case"}},"required":["query"],"additionalProperties":false} out={"type":"object","properties":{"matches":{"type":["null","array"],"items":` + noteSchema + `}},"required":["matches"],"additionalProperties":false}`,
	}
	if !reflect.DeepEqual(tools, wantTools) {
		t.Errorf("tools:\n%s\nwant:\n%s", strings.Join(tools, "\n"), strings.Join(wantTools, "\n"))
	}

	token := jsonrpc.StringID("search-1")
	for _, c := range []struct {
		name, args string
		progress   bool
		// want is the result: "isError: text" or the structuredContent,
		// which is also the one text content.
		want       string
		wantEvents []string
	}{{
		name: "add_note", args: `{"title":"Milk","text":"Buy milk."}`,
		want:       `{"id":2,"title":"Milk","text":"Buy milk."}`,
		wantEvents: []string{`log info notes: "added note 2: Milk"`},
	}, {
		name: "search_notes", args: `{"query":"MILK"}`, progress: true,
		want:       `{"matches":[{"id":2,"title":"Milk","text":"Buy milk."}]}`,
		wantEvents: []string{"progress 1/2", "progress 2/2", `log info notes: "1 of 2 notes match \"MILK\""`},
	}, {
		name: "search_notes", args: `{"query":"nothing like it"}`,
		want:       `{"matches":[]}`,
		wantEvents: []string{`log info notes: "0 of 2 notes match \"nothing like it\""`},
	}, {
		name: "add_note", args: `{"title":" ","text":"x"}`,
		want: "isError: the title is empty",
	}, {
		name: "add_note", args: `{"title":"x"}`,
		want: "isError: invalid arguments for tool add_note: arguments: missing required property \"text\"",
	}} {
		p := &mcp.CallToolParams{Name: c.name, Arguments: json.RawMessage(c.args)}
		if c.progress {
			p.Meta = &mcp.RequestMeta{ProgressToken: token}
		}
		res, err := cs.CallTool(ctx, p)
		if err != nil {
			t.Errorf("%s %s: %v", c.name, c.args, err)
			continue
		}
		var got string
		switch text := res.Content[0].(*mcp.TextContent).Text; {
		case len(res.Content) != 1:
			got = fmt.Sprintf("%d contents", len(res.Content))
		case res.IsError:
			got = "isError: " + text
		case text != string(res.StructuredContent):
			got = fmt.Sprintf("text %s, structuredContent %s", text, res.StructuredContent)
		default:
			got = text
		}
		if got != c.want {
			t.Errorf("%s %s: %s\nwant %s", c.name, c.args, got, c.want)
		}
		if events := take(); !reflect.DeepEqual(events, c.wantEvents) {
			t.Errorf("%s %s: notifications %q, want %q", c.name, c.args, events, c.wantEvents)
		}
	}

	// The resource template: one note, and a note that does not exist,
	// which each era refuses with its own code.
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "note://2"})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := json.Marshal(res.Contents); string(got) != `[{"uri":"note://2","mimeType":"text/markdown","text":"# Milk\n\nBuy milk.\n"}]` {
		t.Errorf("read note://2: %s", got)
	}
	wantCode := map[mcp.ProtocolEra]int64{mcp.EraSession: -32002, mcp.EraAuto: -32602}[era]
	_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "note://9"})
	if rpcErr, ok := errors.AsType[*jsonrpc.Error](err); !ok || int64(rpcErr.Code) != wantCode || string(rpcErr.Data) != `{"uri":"note://9"}` {
		t.Errorf("read note://9: %v; want code %d, data {\"uri\":\"note://9\"}", err, wantCode)
	}

	// The prompt: its arguments, a result, and the two refusals.
	var prompts []string
	for p, err := range cs.Prompts(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(p.Arguments)
		prompts = append(prompts, p.Name+" "+string(b))
	}
	wantPrompts := []string{`summarize [{"name":"id","description":"the id of the note","required":true},{"name":"style","description":"how to summarize it, for example \"in one line\""}]`}
	if !reflect.DeepEqual(prompts, wantPrompts) {
		t.Errorf("prompts %q, want %q", prompts, wantPrompts)
	}
	pr, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "summarize", Arguments: map[string]string{"id": "2", "style": "in one line"}})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := json.Marshal(pr.Messages); string(got) != `[{"role":"user","content":{"type":"text","text":"Summarize this note in one line:\n\n# Milk\n\nBuy milk."}}]` {
		t.Errorf("summarize 2: %s", got)
	}
	for _, c := range []struct {
		args     map[string]string
		wantData string
	}{
		{map[string]string{"id": "9"}, `"no note 9"`},
		{map[string]string{}, `"Missing required argument for prompt summarize: id"`},
	} {
		_, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "summarize", Arguments: c.args})
		if rpcErr, ok := errors.AsType[*jsonrpc.Error](err); !ok || rpcErr.Code != jsonrpc.CodeInvalidParams || string(rpcErr.Data) != c.wantData {
			t.Errorf("summarize %v: %v; want -32602 with data %s", c.args, err, c.wantData)
		}
	}
	if events := take(); len(events) != 0 {
		t.Errorf("unexpected notifications %q", events)
	}
}

// TestNotesSessionCap: with -max-sessions 2, a third initialize is
// answered 503 with Retry-After; stateless-era requests, which take no
// room, are still served; and ending a session with DELETE makes room.
func TestNotesSessionCap(t *testing.T) {
	verifyNoLeaks(t)
	url := startNotesHTTP(t, "-max-sessions", "2")
	hc := &http.Client{Transport: &http.Transport{}}
	t.Cleanup(hc.CloseIdleConnections)
	post := func(body string, header ...string) (*http.Response, string) {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, string(b)
	}
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"curl","version":"8"}}}`

	var sessions []string
	for range 2 {
		resp, body := post(initialize)
		sid := resp.Header.Get("Mcp-Session-Id")
		if resp.StatusCode != http.StatusOK || sid == "" || !strings.Contains(body, `"serverInfo":{"name":"notes","version":"1.0.0"}`) {
			t.Fatalf("initialize: %d, Mcp-Session-Id %q, body %s", resp.StatusCode, sid, body)
		}
		sessions = append(sessions, sid)
	}

	resp, body := post(initialize)
	const wantBody = `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Service unavailable: maximum concurrent sessions (2) reached"}}`
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" ||
		resp.Header.Get("Mcp-Session-Id") != "" || strings.TrimSpace(body) != wantBody {
		t.Errorf("third initialize: %d, Retry-After %q, Mcp-Session-Id %q, body %s; want 503, a Retry-After, no session, %s",
			resp.StatusCode, resp.Header.Get("Retry-After"), resp.Header.Get("Mcp-Session-Id"), body, wantBody)
	}

	// A stateless-era call at the cap: served, without a session.
	resp, body = post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search_notes","arguments":{"query":"welcome"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"curl","version":"8"}}}}`,
		"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "search_notes")
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Mcp-Session-Id") != "" || !strings.Contains(body, `"structuredContent":{"matches":[{"id":1,"title":"Welcome"`) {
		t.Errorf("stateless-era call at the cap: %d, Mcp-Session-Id %q, body %s", resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), body)
	}

	// DELETE ends a session, and makes room for another.
	req, err := http.NewRequest(http.MethodDelete, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Mcp-Session-Id", sessions[0])
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	del, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	del.Body.Close()
	if del.StatusCode != http.StatusNoContent {
		t.Errorf("DELETE: %d, want 204", del.StatusCode)
	}
	if resp, body := post(initialize); resp.StatusCode != http.StatusOK || resp.Header.Get("Mcp-Session-Id") == "" {
		t.Errorf("initialize after DELETE: %d, body %s", resp.StatusCode, body)
	}
}
