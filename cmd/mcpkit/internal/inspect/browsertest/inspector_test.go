package browsertest

import (
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/mcpkit/mcpkit/cmd/mcpkit/internal/inspect"
)

// targets are the reference server over stdio and over Streamable HTTP,
// in both eras.
func targets(t *testing.T) []struct {
	name      string
	target    inspect.Target
	protocol  string
	stateless bool
} {
	base := httpServer(t)
	cmd := stdioCommand(t)
	return []struct {
		name      string
		target    inspect.Target
		protocol  string
		stateless bool
	}{
		{"stdio-session", inspect.Target{Command: cmd, Era: "session"}, "2025-11-25", false},
		{"stdio-stateless", inspect.Target{Command: cmd, Era: "stateless"}, "2026-07-28", true},
		{"http-session", inspect.Target{URL: base + "/mcp", Era: "session"}, "2025-11-25", false},
		{"http-stateless", inspect.Target{URL: base + "/mcp", Era: "stateless"}, "2026-07-28", true},
	}
}

// fact is a line of the server facts in the side bar.
func (f *fixture) fact(t *testing.T, name string) string {
	t.Helper()
	return f.text(t, `#server-facts dd[data-fact="`+name+`"]`)
}

// pickTool selects a tool in the list and waits for its form.
func (f *fixture) pickTool(t *testing.T, name string) {
	t.Helper()
	f.run(t,
		chromedp.Click(css(`#tab-tools`)),
		chromedp.WaitVisible(css(`#tools-list button[data-key="`+name+`"]`)),
		chromedp.Click(css(`#tools-list button[data-key="`+name+`"]`)),
		chromedp.WaitVisible(css(`#tool-call`)),
	)
}

// call clicks the tool's Call button and waits for the outcome.
func (f *fixture) call(t *testing.T) (outcome, text string) {
	t.Helper()
	f.run(t,
		chromedp.Click(css(`#tool-call`)),
		chromedp.WaitVisible(css(`#tool-result[data-outcome]`)),
	)
	return f.attr(t, `#tool-result`, "data-outcome"), f.text(t, `#tool-result`)
}

// TestTools calls tools through their forms against the reference server
// over stdio and HTTP, in both eras: echo's text comes back, the image is
// shown, the progress bar goes 0, 50, 100 of 100, and Cancel stops a
// slow_compute, sending notifications/cancelled.
func TestTools(t *testing.T) {
	needBrowser(t)
	for i, tc := range targets(t) {
		t.Run(tc.name, func(t *testing.T) {
			f := open(t, &tc.target)
			f.run(t, chromedp.WaitVisible(css(`#status[data-status="connected"]`)))
			if got := f.fact(t, "protocol"); got != tc.protocol {
				t.Errorf("protocol shown %q, want %q", got, tc.protocol)
			}
			wantEra := map[bool]string{true: "stateless", false: "session"}[tc.stateless]
			if got := f.fact(t, "era"); got != wantEra {
				t.Errorf("era shown %q, want %q", got, wantEra)
			}

			// echo: typed into its form.
			f.pickTool(t, "echo")
			f.run(t, chromedp.SendKeys(css(`#tool-detail input[name="text"]`), "hi from the browser"))
			outcome, text := f.call(t)
			if outcome != "ok" || !strings.Contains(text, "hi from the browser") {
				t.Errorf("echo: outcome %q, result %q", outcome, text)
			}
			if i == 0 {
				f.shot(t, "tools-echo")
			}

			// An image, decoded by the browser.
			f.pickTool(t, "test_image_content")
			if outcome, text := f.call(t); outcome != "ok" {
				t.Fatalf("test_image_content: outcome %q, result %q", outcome, text)
			}
			width := get(t, f, chromedp.Poll[int](`(() => { const i = document.querySelector('#tool-result img'); return i && i.complete && i.naturalWidth; })()`))
			if width <= 0 {
				t.Errorf("image width %d", width)
			}

			// Progress 0, 50, 100 of 100.
			f.pickTool(t, "test_tool_with_progress")
			if outcome, text := f.call(t); outcome != "ok" || !strings.Contains(text, "progress 0, 50 and 100 of 100 sent") {
				t.Errorf("test_tool_with_progress: outcome %q, result %q", outcome, text)
			}
			seen := f.attr(t, `#tool-progress`, "data-seen")
			value := get(t, f, chromedp.JavascriptAttribute[float64](css(`#tool-progress`), "value"))
			max := get(t, f, chromedp.JavascriptAttribute[float64](css(`#tool-progress`), "max"))
			if seen != "0,50,100" || value != 100 || max != 100 {
				t.Errorf("progress bar: seen %q, value %g of %g; want 0,50,100 and 100 of 100", seen, value, max)
			}

			// slow_compute, cancelled while in flight.
			f.pickTool(t, "slow_compute")
			f.run(t,
				chromedp.SendKeys(css(`#tool-detail input[name="seconds"]`), "600"),
				chromedp.Click(css(`#tool-call`)),
				chromedp.WaitVisible(css(`#inflight-list li[data-method="tools/call"] button[aria-label^="Cancel"]`)),
			)
			if i == 0 {
				f.shot(t, "in-flight")
			}
			f.run(t,
				chromedp.Click(css(`#inflight-list li[data-method="tools/call"] button[aria-label^="Cancel"]`)),
				chromedp.WaitVisible(css(`#tool-result[data-outcome="cancelled"]`)),
				chromedp.WaitReady(css(`#messages-body tr[data-dir="send"][data-method="notifications/cancelled"]`)),
			)
			if inflight := f.text(t, `#inflight-count`); inflight != "0" {
				t.Errorf("requests in flight after the cancel: %s", inflight)
			}
		})
	}
}

// TestConnectForm connects from the page's form (HTTP in the session era,
// then the command over stdio in the stateless era), disconnects and
// reconnects.
func TestConnectForm(t *testing.T) {
	base := httpServer(t)
	f := open(t, nil)
	f.run(t,
		chromedp.WaitVisible(css(`#status[data-status="disconnected"]`)),
		chromedp.SetValue(css(`#transport`), "http"),
		exec(`document.getElementById('transport').dispatchEvent(new Event('change'))`),
		chromedp.SendKeys(css(`#url`), base+"/mcp"),
		chromedp.SetValue(css(`#era`), "session"),
	)
	f.shot(t, "connect-form")
	f.run(t,
		chromedp.Click(css(`#connect`)),
		chromedp.WaitVisible(css(`#status[data-status="connected"]`)),
		chromedp.WaitVisible(css(`#tools-list button[data-key="echo"]`)),
	)
	if got := f.fact(t, "protocol"); got != "2025-11-25" {
		t.Errorf("protocol %q", got)
	}
	if got := f.fact(t, "session"); got == "" {
		t.Errorf("no session id shown for a Streamable HTTP session")
	}
	caps := f.text(t, `#capabilities`)
	for _, c := range []string{"tools", "resources", "prompts", "logging"} {
		if !strings.Contains(caps, c) {
			t.Errorf("capabilities shown %q: no %s", caps, c)
		}
	}
	f.shot(t, "connected")

	f.run(t,
		chromedp.Click(css(`#disconnect`)),
		chromedp.WaitVisible(css(`#status[data-status="disconnected"]`)),
	)
	if n := eval[int](t, f, `document.querySelectorAll('#tools-list li').length`); n != 0 {
		t.Errorf("%d tools listed after disconnecting", n)
	}
	f.run(t,
		chromedp.Click(css(`#reconnect`)),
		chromedp.WaitVisible(css(`#status[data-status="connected"]`)),
		chromedp.WaitVisible(css(`#tools-list button[data-key="echo"]`)),
	)

	// The command, in the stateless era.
	cmd := strings.Join(stdioCommand(t), " ")
	f.run(t,
		chromedp.SetValue(css(`#transport`), "stdio"),
		exec(`document.getElementById('transport').dispatchEvent(new Event('change'))`),
		chromedp.SetValue(css(`#command`), cmd),
		chromedp.SetValue(css(`#era`), "stateless"),
		chromedp.Click(css(`#connect`)),
	)
	// The facts of the HTTP session are shown until the new ones come.
	if _, err := chromedp.Run(f.ctx, chromedp.Poll[bool](`(() => { const d = document.querySelector('#server-facts dd[data-fact="protocol"]'); return !!d && d.textContent === '2026-07-28' && !document.querySelector('#server-facts dd[data-fact="session"]'); })()`, chromedp.WithPollingTimeout(20*time.Second))); err != nil {
		t.Errorf("stdio stateless: the facts shown are %q (%v)", f.text(t, `#server-facts`), err)
	}

	// A server that cannot be started: the error is shown.
	f.run(t,
		chromedp.SetValue(css(`#command`), "/nonexistent/mcp-server"),
		chromedp.Click(css(`#connect`)),
		chromedp.WaitVisible(css(`#status[data-status="failed"]`)),
	)
	msg := f.text(t, `#connect-error`)
	if !strings.Contains(msg, "/nonexistent/mcp-server") {
		t.Errorf("error shown %q", msg)
	}
}

// TestForbidden: the inspector answers 403 to a request without the
// token or with a wrong one, to a page of another origin, and to a host
// name that resolves to 127.0.0.1 (DNS rebinding).
func TestForbidden(t *testing.T) {
	srv := httpServer(t)
	f := open(t, &inspect.Target{URL: srv + "/mcp", Era: "session"})
	f.run(t, chromedp.WaitVisible(css(`#status[data-status="connected"]`)))

	// From the page itself, without the token and with a wrong one.
	status := eval[[]int](t, f, `Promise.all([
		fetch('/api/request', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: '{"id":"x","method":"tools/list"}'}).then(r => r.status),
		fetch('/api/request', {method: 'POST', headers: {'Content-Type': 'application/json', 'X-Mcpkit-Token': 'wrong'}, body: '{"id":"x","method":"tools/list"}'}).then(r => r.status),
		fetch('/api/events').then(r => r.status),
		fetch('/app.js').then(r => r.status),
	])`)
	if fmt.Sprint(status) != "[403 403 403 403]" {
		t.Errorf("statuses without the token or with a wrong one: %v, want [403 403 403 403]", status)
	}

	// The page's address without its token.
	f.run(t, chromedp.Navigate(f.base+"/"))
	body := f.text(t, `body`)
	if !strings.Contains(body, "missing or wrong token") {
		t.Errorf("page without the token: %q", body)
	}

	// A page of another origin (another port of 127.0.0.1) that knows
	// the token, posting to the API.
	other := foreignPage(t)
	f.run(t, chromedp.Navigate(other))
	eval[bool](t, f, `fetch('`+f.base+`/api/disconnect?token=`+f.in.Token()+`', {method: 'POST', mode: 'no-cors', body: '{}'}).then(() => true, () => true)`)
	hits := f.hitsTo("/api/disconnect")
	if len(hits) != 1 || hits[0].status != http.StatusForbidden || hits[0].origin != other {
		t.Errorf("POST /api/disconnect from %s: %+v, want one 403", other, hits)
	}

	// DNS rebinding: rebind.test resolves to 127.0.0.1.
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(f.base, "http://"))
	f.run(t, chromedp.Navigate("http://rebind.test:"+port+"/?token="+f.in.Token()))
	body = f.text(t, `body`)
	if !strings.Contains(body, `Host \"rebind.test:`+port+`\" is not the inspector's address`) {
		t.Errorf("page through rebind.test: %q", body)
	}
	// Still connected: nothing refused did anything.
	f.run(t, chromedp.Navigate(f.url), chromedp.WaitVisible(css(`#status[data-status="connected"]`)))
}

// foreignPage serves an empty page on another port of 127.0.0.1: an
// origin other than the inspector's.
func foreignPage(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<!doctype html><title>elsewhere</title><p>another origin</p>")
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String()
}

// a11yScript marks every visible control of the page with data-a11y=N
// and returns the ones without an accessible name, and the count.
const a11yScript = `(() => {
	const sel = 'a[href], button, input, select, textarea, summary, [tabindex]';
	// checkVisibility: rendered, and not inside a closed <details>.
	const visible = (e) => e.checkVisibility({contentVisibilityAuto: true, visibilityProperty: true});
	const text = (id) => { const x = document.getElementById(id); return x ? x.textContent : ''; };
	const name = (e) => {
		if (e.getAttribute('aria-label')) return e.getAttribute('aria-label').trim();
		const by = e.getAttribute('aria-labelledby');
		if (by) return by.split(/\s+/).map(text).join(' ').trim();
		if (e.labels && e.labels.length) return [...e.labels].map((l) => l.textContent).join(' ').trim();
		if (['BUTTON', 'SUMMARY', 'A'].includes(e.tagName)) return e.textContent.trim();
		return (e.title || '').trim();
	};
	document.querySelectorAll('[data-a11y]').forEach((e) => delete e.dataset.a11y);
	const all = [...document.querySelectorAll(sel)].filter((e) => visible(e) && !e.disabled);
	const unnamed = all.filter((e) => !name(e)).map((e) => e.outerHTML.slice(0, 160));
	// Tabs other than the selected one are reached with the arrow keys.
	const tabbable = all.filter((e) => e.tabIndex >= 0);
	const untabbable = all.filter((e) => e.tabIndex < 0 && e.getAttribute('role') !== 'tab').map((e) => e.outerHTML.slice(0, 160));
	tabbable.forEach((e, i) => { e.dataset.a11y = String(i); });
	return {count: tabbable.length, unnamed, untabbable};
})()`

// checkKeyboard checks that every visible control has an accessible
// name and that Tab reaches each of them.
func (f *fixture) checkKeyboard(t *testing.T, view string) {
	t.Helper()
	res := eval[struct {
		Count      int      `json:"count"`
		Unnamed    []string `json:"unnamed"`
		Untabbable []string `json:"untabbable"`
	}](t, f, a11yScript)
	if len(res.Unnamed) > 0 {
		t.Errorf("%s: controls without a label: %q", view, res.Unnamed)
	}
	if len(res.Untabbable) > 0 {
		t.Errorf("%s: controls out of the Tab order: %q", view, res.Untabbable)
	}
	if res.Count < 5 {
		t.Fatalf("%s: only %d controls found", view, res.Count)
	}
	f.run(t, exec(`document.activeElement && document.activeElement.blur(), window.getSelection().removeAllRanges(), true`))
	seen := map[string]bool{}
	// Tab also walks through what an app's iframe holds, which is not
	// counted: the walk ends once every control is seen, or after room
	// for the page's controls twice over.
	for i := 0; i < 2*res.Count+40 && len(seen) < res.Count; i++ {
		f.run(t, chromedp.KeyEvent(kb.Tab))
		mark := eval[string](t, f, `(document.activeElement && document.activeElement.dataset.a11y) || ''`)
		if mark != "" {
			seen[mark] = true
		}
	}
	if len(seen) < res.Count {
		var missed []string
		for i := range res.Count {
			if !seen[strconv.Itoa(i)] {
				missed = append(missed, eval[string](t, f, `document.querySelector('[data-a11y="`+strconv.Itoa(i)+`"]').outerHTML.slice(0, 160)`))
			}
		}
		t.Errorf("%s: Tab reached %d of %d controls; missed %q", view, len(seen), res.Count, missed)
	}
}

// TestKeyboardAndLabels: in every view, each control has a label and Tab
// reaches it; the arrow keys move between the tabs.
func TestKeyboardAndLabels(t *testing.T) {
	srv := httpServer(t)
	f := open(t, &inspect.Target{URL: srv + "/mcp", Era: "session"})
	f.run(t, chromedp.WaitVisible(css(`#status[data-status="connected"]`)))

	// Tools, with a form of nested objects, arrays, enums and defaults.
	f.pickTool(t, "json_schema_2020_12_tool")
	f.checkKeyboard(t, "tools")

	// The arrow keys go from tab to tab.
	f.run(t,
		chromedp.Focus(css(`#tab-tools`)),
		chromedp.KeyEvent(kb.ArrowRight),
	)
	if selected := f.attr(t, `#tab-resources`, "aria-selected"); selected != "true" {
		t.Errorf("ArrowRight on the Tools tab: Resources aria-selected=%q", selected)
	}

	views := []struct{ tab, ready, pick string }{
		{"resources", `#resources-list button`, `#resources-list button`},
		{"prompts", `#prompts-list button`, `#prompts-list button[data-key="test_prompt_with_arguments"]`},
		{"log", `#log-set-level`, ""},
		{"messages", `#messages-body button.msg`, `#messages-body button.msg`},
	}
	for _, v := range views {
		f.run(t, chromedp.Click(css(`#tab-`+v.tab)), chromedp.WaitVisible(css(v.ready)))
		if v.pick != "" {
			f.run(t, chromedp.Click(css(v.pick)))
		}
		f.checkKeyboard(t, v.tab)
		if v.tab == "messages" {
			f.shot(t, "messages")
		}
	}

	// A prompt argument with completions: a labelled combobox, reached
	// with Tab, whose listbox is named; the arrow keys go through the
	// options (TestCompletion).
	arg1 := `#prompt-detail input[name="arg1"]`
	f.run(t,
		chromedp.Click(css(`#tab-prompts`)),
		chromedp.SendKeys(css(arg1), "te"),
		listboxOpen(arg1, 4),
	)
	names := eval[[]string](t, f, `(() => { const i = document.querySelector('`+arg1+`');
		return [i.getAttribute('role'), [...i.labels].map((l) => l.textContent).join(' ').trim(), document.getElementById(i.getAttribute('aria-controls')).getAttribute('aria-label')]; })()`)
	if len(names) != 3 || names[0] != "combobox" || names[1] != "arg1 *" || names[2] != "Completions of arg1" {
		t.Errorf("arg1's combobox: role, label, listbox label = %q", names)
	}
	f.checkKeyboard(t, "prompt completion")

	// A result with structuredContent (its tree's summaries), then a task
	// (its Poll, Result and Cancel buttons) and a URL-mode elicitation's
	// card (its link).
	f.pickTool(t, "weather")
	f.call(t)
	f.run(t, chromedp.WaitVisible(css(`#tool-result .schema-check[data-valid]`)))
	f.checkKeyboard(t, "structured result")
	f.pickTool(t, "countdown")
	f.run(t,
		chromedp.Click(css(`#tool-as-task`)),
		chromedp.Click(css(`#tool-call`)),
		chromedp.WaitVisible(css(`#tool-result[data-outcome="task"]`)),
		chromedp.Click(css(`#tab-tasks`)),
		chromedp.WaitVisible(css(`#tasks-list li button`)),
	)
	f.checkKeyboard(t, "tasks")
	f.pickTool(t, "open_url")
	f.run(t,
		chromedp.Click(css(`#tool-call`)),
		chromedp.WaitVisible(css(`#asks-list .ask[data-mode="url"] a`)),
	)
	f.checkKeyboard(t, "URL elicitation")

	// A stateless-era task's input request: its form in the Tasks view
	// (TestTaskInput).
	f = open(t, &inspect.Target{URL: srv + "/mcp", Era: "stateless", TasksExtension: true})
	f.run(t, chromedp.WaitVisible(css(`#status[data-status="connected"]`)))
	f.pickTool(t, "confirm_delete")
	_, row := f.runTask(t, true)
	f.run(t, chromedp.WaitVisible(css(row+` .task-input[data-key="confirm"] input[name="confirm"]`)))
	f.checkKeyboard(t, "task input")
}

// TestAsks answers the server's requests from the page, over HTTP in the
// session era and over stdio in the stateless era (where they come as
// input_required results): the roots the user shares, an elicitation
// form, a sampling request approved with an edited answer, and one
// rejected.
func TestAsks(t *testing.T) {
	needBrowser(t)
	for i, tc := range targets(t) {
		if tc.name != "http-session" && tc.name != "stdio-stateless" {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			f := open(t, &tc.target)
			f.run(t, chromedp.WaitVisible(css(`#status[data-status="connected"]`)))

			// Roots.
			f.run(t,
				chromedp.SendKeys(css(`#roots`), "file:///tmp/project Project"),
				chromedp.Click(css(`#roots-save`)),
				void(chromedp.Poll[bool](`document.getElementById('roots-status').textContent.startsWith('1 root(s) shared')`)),
			)
			f.pickTool(t, "list_roots")
			if outcome, text := f.call(t); outcome != "ok" || !strings.Contains(text, "file:///tmp/project") {
				t.Errorf("list_roots: %q %q", outcome, text)
			}

			// Elicitation, in a form.
			f.pickTool(t, "test_elicitation")
			f.run(t,
				chromedp.SendKeys(css(`#tool-detail input[name="message"]`), "Who are you?"),
				chromedp.Click(css(`#tool-call`)),
				chromedp.WaitVisible(css(`#asks-list .ask[data-kind="elicitation"] input[name="username"]`)),
				chromedp.SendKeys(css(`#asks-list .ask input[name="username"]`), "ada"),
				chromedp.SendKeys(css(`#asks-list .ask input[name="email"]`), "ada@example.com"),
			)
			if i == 2 {
				f.shot(t, "elicitation")
			}
			if text := f.text(t, `#asks-list .ask`); !strings.Contains(text, "Who are you?") {
				t.Errorf("elicitation card %q does not show the message", text)
			}
			f.run(t,
				chromedp.Click(css(`#asks-list .ask button[type="submit"]`)),
				chromedp.WaitVisible(css(`#tool-result[data-outcome]`)),
				chromedp.WaitNotPresent(css(`#asks-list .ask`)),
			)
			if text := f.text(t, `#tool-result`); !strings.Contains(text, `User response: action=accept, content=`) || !strings.Contains(text, `"username":"ada"`) || !strings.Contains(text, `"email":"ada@example.com"`) {
				t.Errorf("test_elicitation: %q", text)
			}

			// Sampling, approved with the user's answer.
			f.pickTool(t, "test_sampling")
			f.run(t,
				chromedp.SendKeys(css(`#tool-detail input[name="prompt"]`), "What is 2+2?"),
				chromedp.Click(css(`#tool-call`)),
				chromedp.WaitVisible(css(`#asks-list .ask[data-kind="sampling"] textarea`)),
				chromedp.SendKeys(css(`#asks-list .ask textarea`), "4, said the user"),
			)
			if i == 2 {
				f.shot(t, "sampling")
			}
			if text := f.text(t, `#asks-list .ask`); !strings.Contains(text, "What is 2+2?") {
				t.Errorf("sampling card %q does not show the prompt", text)
			}
			f.run(t,
				chromedp.Click(css(`#asks-list .ask button.primary`)),
				chromedp.WaitVisible(css(`#tool-result[data-outcome]`)),
			)
			if text := f.text(t, `#tool-result`); !strings.Contains(text, "LLM response: 4, said the user") {
				t.Errorf("test_sampling approved: %q", text)
			}

			// Sampling, rejected.
			f.run(t,
				chromedp.Click(css(`#tool-call`)),
				chromedp.WaitVisible(css(`#asks-list .ask[data-kind="sampling"]`)),
				chromedp.Click(css(`#asks-list .ask button:not(.primary)`)),
				chromedp.WaitVisible(css(`#tool-result[data-outcome]`)),
			)
			if text := f.text(t, `#tool-result`); !strings.Contains(text, "User rejected sampling request") {
				t.Errorf("test_sampling rejected: %q", text)
			}
		})
	}
}

// TestResourcesAndPrompts reads a resource, a resource template filled in
// through its form, and gets a prompt with its arguments.
func TestResourcesAndPrompts(t *testing.T) {
	srv := httpServer(t)
	f := open(t, &inspect.Target{URL: srv + "/mcp", Era: "stateless"})
	f.run(t,
		chromedp.WaitVisible(css(`#status[data-status="connected"]`)),
		chromedp.Click(css(`#tab-resources`)),
		chromedp.Click(css(`#resources-list button[data-key="test://static-text"]`)),
		chromedp.Click(css(`#resource-read`)),
		chromedp.WaitVisible(css(`#resource-result[data-outcome]`)),
	)
	if o, text := f.attr(t, `#resource-result`, "data-outcome"), f.text(t, `#resource-result`); o != "ok" || !strings.Contains(text, "test://static-text") {
		t.Errorf("static text: %q %q", o, text)
	}
	f.run(t,
		chromedp.Click(css(`#templates-list button[data-key="test://template/{id}/data"]`)),
		chromedp.SendKeys(css(`#resource-detail input[name="id"]`), "42"),
		chromedp.Click(css(`#resource-detail button[type="submit"]`)),
		chromedp.WaitVisible(css(`#resource-result[data-outcome]`)),
	)
	if o, text := f.attr(t, `#resource-result`, "data-outcome"), f.text(t, `#resource-result`); o != "ok" || !strings.Contains(text, "test://template/42/data") {
		t.Errorf("template: %q %q", o, text)
	}
	f.run(t,
		chromedp.Click(css(`#tab-prompts`)),
		chromedp.Click(css(`#prompts-list button[data-key="test_prompt_with_arguments"]`)),
		chromedp.SendKeys(css(`#prompt-detail input[name="arg1"]`), "one"),
		chromedp.SendKeys(css(`#prompt-detail input[name="arg2"]`), "two"),
		chromedp.Click(css(`#prompt-get`)),
		chromedp.WaitVisible(css(`#prompt-result[data-outcome]`)),
	)
	if o, text := f.attr(t, `#prompt-result`, "data-outcome"), f.text(t, `#prompt-result`); o != "ok" || !strings.Contains(text, "Prompt with arguments: arg1='one', arg2='two'") {
		t.Errorf("prompt: %q %q", o, text)
	}
	// Copy as mcpkit command, for the prompt.
	f.run(t, chromedp.Click(css(`#prompt-result button[aria-label^="Copy as mcpkit command"]`)))
	want := `mcpkit prompts get test_prompt_with_arguments --args '{"arg1":"one","arg2":"two"}' --url ` + srv + `/mcp --era stateless`
	if got := f.text(t, `#copied`); got != want {
		t.Errorf("copied %q, want %q", got, want)
	}
}
