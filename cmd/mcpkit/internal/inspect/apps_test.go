package inspect

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/cmd/mcpkit/internal/demoapp"
	"github.com/mcpkit/mcpkit/ext/apps"
	"github.com/mcpkit/mcpkit/internal/everything"
	"github.com/mcpkit/mcpkit/mcp"
)

// appDial connects in memory to the reference server with the demo app
// as mcpkit serve adds it (apps.Degrade hides it from hosts that do not
// declare the extension).
func appDial(ctx context.Context, _ Target, _ io.Writer) (*Dialed, error) {
	client, server := mcp.NewInMemoryTransports()
	s := everything.NewServer(&everything.Options{ServerOptions: &mcp.ServerOptions{Middleware: []mcp.Middleware{demoapp.Middleware}}})
	if err := demoapp.Add(s); err != nil {
		return nil, err
	}
	ss, err := s.Connect(context.WithoutCancel(ctx), server)
	if err != nil {
		return nil, err
	}
	return &Dialed{Transport: client, Era: mcp.EraSession, Release: func() { ss.Close() }}, nil
}

func connected(t *testing.T, opts Options, target Target) *started {
	t.Helper()
	opts.Dial = appDial
	s := start(t, opts)
	if st := s.in.Connect(context.Background(), target); st.Status != "connected" {
		t.Fatalf("connect: %+v", st)
	}
	return s
}

// openApp connects to the reference server with opts and fetches
// greet_app's app through POST /api/app; it returns the Inspector, its
// token, the app's view and the page's event stream.
func openApp(t *testing.T, opts Options) (*started, string, AppView, *events) {
	t.Helper()
	s := connected(t, opts, Target{})
	token := s.in.Token()
	status, body, _ := s.do(t, "POST", "/api/app", token, `{"tool":"greet_app"}`, nil)
	var v AppView
	if err := json.Unmarshal([]byte(body), &v); err != nil || status != 200 {
		t.Fatalf("/api/app: %d %s (%v)", status, body, err)
	}
	return s, token, v, s.events(t)
}

// apiCase is a body to POST to an /api/ path and the status and body
// (less its newline) the answer must have.
type apiCase struct {
	body   string
	status int
	want   string
}

// postAll posts each case's body to path, reporting every answer that
// is not the case's.
func (s *started) postAll(t *testing.T, path, token string, cases []apiCase) {
	t.Helper()
	for _, c := range cases {
		status, body, _ := s.do(t, "POST", path, token, c.body, nil)
		if status != c.status || body != c.want+"\n" {
			t.Errorf("%s: %d %s, want %d %s", c.body, status, body, c.status, c.want)
		}
	}
}

// sentBeforePing sends a ping through POST /api/request and returns, in
// order, params[key] of every method request the page's log shows sent
// before it (the log replays from the connection's start).
func (s *started) sentBeforePing(t *testing.T, ev *events, token, method, key string) []string {
	t.Helper()
	if status, body, _ := s.do(t, "POST", "/api/request", token, `{"id":"mark","method":"ping"}`, nil); status != 202 {
		t.Fatalf("ping: %d %s", status, body)
	}
	var got []string
	for {
		var f Frame
		ev.next("message", &f)
		var m struct {
			Method string                     `json:"method"`
			Params map[string]json.RawMessage `json:"params"`
		}
		if err := json.Unmarshal(f.Frame, &m); err != nil {
			t.Fatal(err)
		}
		if f.Dir == "send" && m.Method == method {
			var v string
			if err := json.Unmarshal(m.Params[key], &v); err != nil {
				t.Fatalf("%s params.%s: %v", method, key, err)
			}
			got = append(got, v)
		}
		if f.Dir == "send" && m.Method == "ping" {
			return got
		}
	}
}

// TestAppAPI: POST /api/app fetches greet_app's app (found only because
// the Inspector declares the apps extension: Degrade hides it
// otherwise) and names the sandbox proxy on the Inspector's second port
// (another origin); that origin serves the proxy (/proxy/ID, its strict
// CSP, framed by the page only), its script, and the View (/view/ID)
// under the View's CSP sandboxed, all without the token, and refuses
// other Hosts, non-iframe loads, unknown ids and every other path; the
// page's own port serves none of them; the oldest view goes past MaxApps.
func TestAppAPI(t *testing.T) {
	for _, tasks := range []bool{false, true} {
		s := connected(t, Options{MaxApps: 2}, Target{TasksExtension: tasks})
		token := s.in.Token()
		status, body, _ := s.do(t, "POST", "/api/app", token, `{"tool":"greet_app"}`, nil)
		if status != 200 {
			t.Fatalf("tasks=%v: /api/app: %d %s", tasks, status, body)
		}
		var v AppView
		if err := json.Unmarshal([]byte(body), &v); err != nil {
			t.Fatal(err)
		}
		port := s.base[strings.LastIndexByte(s.base, ':')+1:]
		sport := s.sandbox[strings.LastIndexByte(s.sandbox, ':')+1:]
		if port == sport || s.sandbox != "http://127.0.0.1:"+sport {
			t.Fatalf("sandbox origin %s, page %s", s.sandbox, s.base)
		}
		pages := "http://127.0.0.1:" + port + " http://localhost:" + port
		wantCSP := apps.DefaultCSP + "; sandbox allow-scripts; frame-ancestors " + s.sandbox + " " + pages
		if v.Src != s.sandbox+"/proxy/"+v.ID || v.Origin != s.sandbox || len(v.ID) != 32 || v.URI != demoapp.URI || v.CSP != wantCSP || v.Allow != "" {
			t.Errorf("view %+v", v)
		}
		if res, _ := json.Marshal(v.Resource); !strings.HasPrefix(string(res), `{"html":"\u003c!DOCTYPE html\u003e`) {
			t.Errorf("resource %.60s", res)
		}
		ini, _ := json.Marshal(v.Initialize)
		for _, want := range []string{`"protocolVersion":"2026-01-26"`, `"hostInfo":{"name":"mcpkit-inspect","version":"0.1.0"}`,
			`"hostCapabilities":{"openLinks":{},"downloadFile":{},"serverTools":{},"serverResources":{},"logging":{},"sandbox":{},"updateModelContext":{"text":{},"structuredContent":{}},"message":{"text":{}}}`, `"displayMode":"inline","availableDisplayModes":["inline"]`, `"toolInfo":{"tool":{"_meta":{"ui":{"resourceUri":"ui://mcpkit/greeting","visibility":["model"]}},"name":"greet_app"`} {
			if !strings.Contains(string(ini), want) {
				t.Errorf("initialize %s lacks %s", ini, want)
			}
		}

		sb := &started{in: s.in, base: s.sandbox}
		iframe := map[string]string{"Sec-Fetch-Dest": "iframe"}
		viewSrc := "/view/" + v.ID
		status, html, h := sb.do(t, "GET", viewSrc, "", "", iframe)
		if status != 200 || !strings.HasPrefix(html, "<!DOCTYPE html>") || h.Get("Content-Security-Policy") != wantCSP ||
			h.Get("Content-Type") != "text/html; charset=utf-8" || h.Get("X-Frame-Options") != "" || h.Get("Referrer-Policy") != "no-referrer" {
			t.Errorf("/view/ID: %d %v %.40q", status, h, html)
		}
		proxyCSP := "default-src 'none'; script-src 'self'; frame-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors " + pages
		status, html, h = sb.do(t, "GET", "/proxy/"+v.ID, "", "", iframe)
		if want := `<html lang="en" data-hosts="` + pages + `" data-view="/view/` + v.ID + `">`; status != 200 || !strings.Contains(html, want) ||
			!strings.Contains(html, `<script src="/proxy.js" defer></script>`) || h.Get("Content-Security-Policy") != proxyCSP || h.Get("Content-Type") != "text/html; charset=utf-8" {
			t.Errorf("/proxy/ID: %d %v %q", status, h, html)
		}
		if status, js, h := sb.do(t, "GET", "/proxy.js", "", "", map[string]string{"Sec-Fetch-Dest": "script"}); status != 200 ||
			!strings.Contains(js, `"use strict";`) || h.Get("Content-Type") != "text/javascript; charset=utf-8" {
			t.Errorf("/proxy.js: %d %v", status, h)
		}
		const refusedCSP = "default-src 'none'; frame-ancestors 'none'"
		for _, c := range []struct {
			path   string
			header map[string]string
			status int
			want   string
		}{
			{viewSrc, map[string]string{"Host": "evil.example:" + sport}, 403, `{"error":"mcpkit inspect: Host \"evil.example:` + sport + `\" is not the sandbox proxy's address"}`},
			{"/proxy/" + v.ID, map[string]string{"Host": "127.0.0.1:" + port}, 403, `{"error":"mcpkit inspect: Host \"127.0.0.1:` + port + `\" is not the sandbox proxy's address"}`},
			{viewSrc, map[string]string{"Sec-Fetch-Dest": "script"}, 403, `{"error":"mcpkit inspect: an app is only loaded in the page's iframe, not as \"script\""}`},
			{"/proxy.js", map[string]string{"Sec-Fetch-Dest": "iframe"}, 403, `{"error":"mcpkit inspect: the proxy's script is only loaded as a script, not as \"iframe\""}`},
			{"/view/" + strings.Repeat("0", 32), nil, 404, `{"error":"mcpkit inspect: no such app view (it belongs to an ended connection, or newer views replaced it)"}`},
			{"/proxy/" + strings.Repeat("0", 32), nil, 404, `{"error":"mcpkit inspect: no such app view (it belongs to an ended connection, or newer views replaced it)"}`},
			{"/app.js", nil, 404, `{"error":"mcpkit inspect: the sandbox origin serves only the proxy and the apps' views"}`},
			{"/api/app?token=" + token, nil, 404, `{"error":"mcpkit inspect: the sandbox origin serves only the proxy and the apps' views"}`},
		} {
			status, body, h := sb.do(t, "GET", c.path, "", "", c.header)
			if status != c.status || body != c.want+"\n" || h.Get("Content-Security-Policy") != refusedCSP {
				t.Errorf("sandbox GET %s %v: %d %s (CSP %q)", c.path, c.header, status, body, h.Get("Content-Security-Policy"))
			}
		}
		if status, body, _ := sb.do(t, "POST", "/api/app", token, `{"tool":"greet_app"}`, nil); status != 405 || body != `{"error":"mcpkit inspect: the sandbox origin serves GET only"}`+"\n" {
			t.Errorf("sandbox POST: %d %s", status, body)
		}
		// The page's port serves neither the proxy nor the View.
		for _, p := range []string{"/proxy/" + v.ID, viewSrc, "/app/" + v.ID} {
			if status, _, _ := s.do(t, "GET", p, "", "", iframe); status != 403 {
				t.Errorf("the page's port GET %s: %d, want 403 (no token)", p, status)
			}
		}

		if status, body, _ := s.do(t, "POST", "/api/app", token, `{"tool":"nope"}`, nil); status != 404 || body != `{"error":"mcpkit inspect: the server lists no tool \"nope\""}`+"\n" {
			t.Errorf("unknown tool: %d %s", status, body)
		}
		if status, body, _ := s.do(t, "POST", "/api/app", token, `{"tool":"echo"}`, nil); status != 502 || body != `{"error":"mcpkit inspect: apps: tool echo has no UI resource"}`+"\n" {
			t.Errorf("tool without UI: %d %s", status, body)
		}
		// Two more views: the first is dropped.
		for range 2 {
			if status, body, _ := s.do(t, "POST", "/api/app", token, `{"tool":"greet_app"}`, nil); status != 200 {
				t.Fatalf("/api/app: %d %s", status, body)
			}
		}
		if status, _, _ := sb.do(t, "GET", viewSrc, "", "", nil); status != 404 {
			t.Errorf("the oldest view past MaxApps: %d, want 404", status)
		}
	}
}

// TestAppCall: an app's tools/call is forwarded for a tool apps may call
// (echo: no _meta.ui, visibility both) and refused with 403 and -32600
// for greet_app (visibility "model") and for a tool the server does not
// list, without a tools/call reaching the server.
func TestAppCall(t *testing.T) {
	s, token, v, ev := openApp(t, Options{})
	s.postAll(t, "/api/app-call", token, []apiCase{
		{`{"view":"` + v.ID + `","name":"echo","arguments":{"text":"hi"}}`, 200, `{"result":{"content":[{"type":"text","text":"hi"}]}}`},
		{`{"view":"` + v.ID + `","name":"greet_app","arguments":{"name":"x"}}`, 403, `{"error":{"code":-32600,"message":"mcpkit inspect: refused: apps: the tool is not callable by apps: greet_app has visibility [\"model\"]"}}`},
		{`{"view":"` + v.ID + `","name":"nope"}`, 403, `{"error":{"code":-32600,"message":"mcpkit inspect: the server lists no tool \"nope\""}}`},
		{`{"view":"` + strings.Repeat("0", 32) + `","name":"echo"}`, 404, `{"error":"mcpkit inspect: no such app view"}`},
	})
	// The frames sent, up to a ping sent after: one tools/call, echo's.
	if calls := s.sentBeforePing(t, ev, token, "tools/call", "name"); strings.Join(calls, ",") != "echo" {
		t.Errorf("tools/call sent: %q, want only echo", calls)
	}
}

// TestSkillRead: a skill's file read through the Inspector is checked
// against skills/get's digest and size; a file the skill does not list
// is 404, an unknown skill the server's -32602.
func TestSkillRead(t *testing.T) {
	s := connected(t, Options{}, Target{})
	token := s.in.Token()
	status, body, _ := s.do(t, "POST", "/api/skill-read", token, `{"skill":"skill://release-notes/SKILL.md","uri":"skill://release-notes/scripts/collect.sh"}`, nil)
	var f SkillFile
	if err := json.Unmarshal([]byte(body), &f); err != nil || status != 200 {
		t.Fatalf("%d %s", status, body)
	}
	sum := sha256.Sum256([]byte(f.Text))
	if !f.Verified || f.Digest != f.Want || f.Size != f.WantSize || f.Digest != "sha256:"+hex.EncodeToString(sum[:]) || f.Size != int64(len(f.Text)) || f.Binary || f.Size == 0 {
		t.Errorf("%+v", f)
	}
	s.postAll(t, "/api/skill-read", token, []apiCase{
		{`{"skill":"skill://release-notes/SKILL.md","uri":"skill://code-review/checklist.md"}`, 404,
			`{"error":"mcpkit inspect: skill \"skill://release-notes/SKILL.md\" lists no file \"skill://code-review/checklist.md\""}`},
		{`{"skill":"skill://nope/SKILL.md","uri":"skill://nope/x"}`, 502,
			`{"error":{"code":-32602,"message":"skills/get: No skill is served at skill://nope/SKILL.md","data":{"uri":"skill://nope/SKILL.md"}}}`},
	})
}

// TestAppCallBound: past Options.MaxInFlight app calls in flight, the
// next is answered 429; a disconnect ends the one in flight.
func TestAppCallBound(t *testing.T) {
	s, token, v, ev := openApp(t, Options{MaxInFlight: 1})
	first := make(chan int, 1)
	go func() {
		req, _ := http.NewRequest("POST", s.base+"/api/app-call", strings.NewReader(`{"view":"`+v.ID+`","name":"slow_compute","arguments":{"seconds":600}}`))
		req.Header.Set(TokenHeader, token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			first <- 0
			return
		}
		resp.Body.Close()
		first <- resp.StatusCode
	}()
	for {
		var f Frame
		ev.next("message", &f)
		if f.Dir == "send" && strings.Contains(string(f.Frame), `"name":"slow_compute"`) {
			break
		}
	}
	status, body, _ := s.do(t, "POST", "/api/app-call", token, `{"view":"`+v.ID+`","name":"echo","arguments":{"text":"hi"}}`, nil)
	if want := `{"error":{"code":-32603,"message":"mcpkit inspect: 1 requests of apps in flight already (the most there may be)"}}` + "\n"; status != 429 || body != want {
		t.Errorf("second call: %d %s, want 429 %s", status, body, want)
	}
	if status, body, _ := s.do(t, "POST", "/api/disconnect", token, `{}`, nil); status != 200 {
		t.Fatalf("disconnect: %d %s", status, body)
	}
	if got := <-first; got != 502 {
		t.Errorf("the call in flight ended with %d, want 502", got)
	}
}

// TestAppRead: an app's resources/read is forwarded for a ui:// resource
// of its server (its own app) and refused with 403 and the spec's -32000
// for another resource (test://static-text, which the server serves),
// without a resources/read of it reaching the server; a ui:// resource
// the server lacks answers the server's error; an unknown view is 404.
func TestAppRead(t *testing.T) {
	s, token, v, ev := openApp(t, Options{})
	status, body, _ := s.do(t, "POST", "/api/app-read", token, `{"view":"`+v.ID+`","uri":"ui://mcpkit/greeting"}`, nil)
	var ok struct {
		Result mcp.ReadResourceResult `json:"result"`
	}
	if err := json.Unmarshal([]byte(body), &ok); err != nil || status != 200 || len(ok.Result.Contents) != 1 ||
		ok.Result.Contents[0].URI != demoapp.URI || ok.Result.Contents[0].MIMEType != apps.MIMEType || !strings.HasPrefix(ok.Result.Contents[0].Text, "<!DOCTYPE html>") {
		t.Fatalf("own app: %d %.200s (%v)", status, body, err)
	}
	s.postAll(t, "/api/app-read", token, []apiCase{
		{`{"view":"` + v.ID + `","uri":"test://static-text"}`, 403, `{"error":{"code":-32000,"message":"mcpkit inspect: Policy violation: an app reads only the ui:// resources of its server, not \"test://static-text\""}}`},
		{`{"view":"` + v.ID + `","uri":"UI://mcpkit/greeting"}`, 403, `{"error":{"code":-32000,"message":"mcpkit inspect: Policy violation: an app reads only the ui:// resources of its server, not \"UI://mcpkit/greeting\""}}`},
		{`{"view":"` + v.ID + `","uri":"ui://mcpkit/nope"}`, 502, `{"error":{"code":-32002,"message":"Resource not found","data":{"uri":"ui://mcpkit/nope"}}}`},
		{`{"view":"` + strings.Repeat("0", 32) + `","uri":"ui://mcpkit/greeting"}`, 404, `{"error":"mcpkit inspect: no such app view"}`},
	})
	// The frames sent (the page's log replays them from the start), up to
	// a ping sent after: /api/app's read of the app, then the two ui://
	// reads.
	reads := s.sentBeforePing(t, ev, token, "resources/read", "uri")
	if strings.Join(reads, ",") != "ui://mcpkit/greeting,ui://mcpkit/greeting,ui://mcpkit/nope" {
		t.Errorf("resources/read sent: %q, want the app's fetch and the two ui:// reads", reads)
	}
}

// TestDeclaredCapabilities: the client the Inspector connects declares,
// in both eras, the capabilities mcp infers from its handlers (roots,
// sampling, elicitation in both modes) with the apps extension added
// through ClientOptions.Extensions, and the tasks extension when the
// target asks for it; the server sees exactly that.
func TestDeclaredCapabilities(t *testing.T) {
	for _, era := range []mcp.ProtocolEra{mcp.EraSession, mcp.EraStateless} {
		for _, tasks := range []bool{false, true} {
			t.Run(fmt.Sprintf("%v/tasks=%v", era, tasks), func(t *testing.T) { declaredCapabilities(t, era, tasks) })
		}
	}
}

func declaredCapabilities(t *testing.T, era mcp.ProtocolEra, tasks bool) {
	seen := make(chan string, 1)
	dial := func(ctx context.Context, _ Target, _ io.Writer) (*Dialed, error) {
		client, server := mcp.NewInMemoryTransports()
		s := mcp.NewServer(mcp.Implementation{Name: "caps", Version: "1"}, nil)
		err := s.AddTool(&mcp.Tool{Name: "caps"}, func(_ context.Context, r *mcp.Request, _ json.RawMessage) (*mcp.CallToolResult, error) {
			b, err := json.Marshal(r.ClientCapabilities)
			seen <- string(b)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, err
		})
		if err != nil {
			return nil, err
		}
		ss, err := s.Connect(context.WithoutCancel(ctx), server)
		if err != nil {
			return nil, err
		}
		return &Dialed{Transport: client, Era: era, Release: func() { ss.Close() }}, nil
	}
	s := start(t, Options{Dial: dial})
	if st := s.in.Connect(context.Background(), Target{TasksExtension: tasks}); st.Status != "connected" {
		t.Fatalf("connect: %+v", st)
	}
	s.in.mu.Lock()
	cs := s.in.conn.cs
	s.in.mu.Unlock()
	if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "caps"}); err != nil {
		t.Fatal(err)
	}
	roots := `{"listChanged":true}`
	if era == mcp.EraStateless {
		roots = `{}` // the stateless era has no notifications/roots/list_changed
	}
	want := `{"roots":` + roots + `,"sampling":{},"elicitation":{"form":{},"url":{}},"extensions":{`
	if tasks {
		want += `"io.modelcontextprotocol/tasks":{},`
	}
	want += `"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}}`
	if got := <-seen; got != want {
		t.Errorf("the server sees\n %s\nwant %s", got, want)
	}
}
