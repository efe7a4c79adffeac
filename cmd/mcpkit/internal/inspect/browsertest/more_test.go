package browsertest

import (
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/mcpkit/mcpkit/cmd/mcpkit/internal/inspect"
	"github.com/mcpkit/mcpkit/internal/everything"
)

// TestTasks runs countdown as a task to completion and shows its result,
// cancels a slow_compute task with tasks/cancel and, in the session era,
// lists both with tasks/list: over HTTP and over stdio, in the session era
// (the tasks of 2025-11-25: task-augmented tools/call, tasks/get,
// tasks/result, tasks/list, tasks/cancel) and in the stateless era with
// the tasks extension declared (SEP-2663: resultType "task", tasks/get
// with the result inline, tasks/cancel).
func TestTasks(t *testing.T) {
	needBrowser(t)
	for i, tc := range targets(t) {
		t.Run(tc.name, func(t *testing.T) {
			target := tc.target
			target.TasksExtension = tc.stateless
			f := open(t, &target)
			f.run(t, chromedp.WaitVisible(css(`#status[data-status="connected"]`)))
			// In the stateless era the box is ticked and fixed: every call
			// of a task-capable tool makes a task.
			clickAsTask := chromedp.Click(css(`#tool-as-task`))
			if tc.stateless {
				clickAsTask = void(chromedp.Poll[bool](`(() => { const b = document.getElementById('tool-as-task'); return b.checked && b.disabled; })()`))
			}

			// countdown, 1 second, as a task: polled until completed.
			f.pickTool(t, "countdown")
			f.run(t,
				chromedp.SendKeys(css(`#tool-detail input[name="seconds"]`), "1"),
				clickAsTask,
				chromedp.Click(css(`#tool-call`)),
				chromedp.WaitVisible(css(`#tool-result[data-outcome="task"]`)),
			)
			id := f.attr(t, `#tool-result`, "data-task-id")
			if len(id) < 16 {
				t.Fatalf("task id shown %q", id)
			}
			task := `#tasks-list li[data-task-id="` + id + `"]`
			f.run(t,
				chromedp.Click(css(`#tab-tasks`)),
				chromedp.WaitVisible(css(task+`[data-status="completed"]`)),
				chromedp.Click(css(task+` button[aria-label="Result of task `+id+`"]`)),
				chromedp.WaitVisible(css(task+` .result[data-outcome]`)),
			)
			if o, text := f.attr(t, task+` .result`, "data-outcome"), f.text(t, task+` .result`); o != "ok" || !strings.Contains(text, "Liftoff after 1 seconds.") {
				t.Errorf("tasks/result: %q %q", o, text)
			}
			// The status came by notifications/tasks/status or by the
			// page's polling; Poll asks at once.
			f.run(t,
				chromedp.Click(css(task+` button[aria-label="Poll task `+id+`"]`)),
				chromedp.WaitReady(css(`#messages-body tr[data-dir="send"][data-method="tasks/get"]`)),
				chromedp.WaitReady(css(task+`[data-status="completed"]`)),
			)
			// Cancel is off for a task that ended.
			if !get(t, f, chromedp.JavascriptAttribute[bool](css(task+` button[aria-label="Cancel task `+id+`"]`), "disabled")) {
				t.Errorf("Cancel enabled on a completed task")
			}

			// slow_compute, 600 seconds, as a task: cancelled.
			f.pickTool(t, "slow_compute")
			f.run(t,
				chromedp.SendKeys(css(`#tool-detail input[name="seconds"]`), "600"),
				clickAsTask,
				chromedp.Click(css(`#tool-call`)),
				chromedp.WaitVisible(css(`#tool-result[data-outcome="task"]`)),
			)
			slow := f.attr(t, `#tool-result`, "data-task-id")
			stask := `#tasks-list li[data-task-id="` + slow + `"]`
			f.run(t,
				chromedp.Click(css(`#tab-tasks`)),
				chromedp.WaitVisible(css(stask+`[data-status="working"]`)),
			)
			if i == 0 {
				f.shot(t, "tasks")
			}
			f.run(t,
				chromedp.Click(css(stask+` button[aria-label="Cancel task `+slow+`"]`)),
				chromedp.WaitVisible(css(stask+`[data-status="cancelled"]`)),
				chromedp.WaitReady(css(`#messages-body tr[data-dir="send"][data-method="tasks/cancel"]`)),
			)

			if tc.stateless {
				// The extension is declared with the client's other
				// capabilities, in every request's _meta.
				sent := eval[string](t, f, `document.querySelector('#messages-body tr[data-dir="send"][data-method="tools/call"]').dataset.search`)
				// (The log's search text is lower case.)
				want := `"io.modelcontextprotocol/clientcapabilities":{"roots":{},"sampling":{},"elicitation":{"form":{},"url":{}},"extensions":{"io.modelcontextprotocol/tasks":{},"io.modelcontextprotocol/ui":{"mimetypes":["text/html;profile=mcp-app"]}}}`
				if !strings.Contains(sent, want) {
					t.Errorf("tools/call sent %s, want clientCapabilities %s", sent, want)
				}
				f.run(t,
					chromedp.Click(css(`#tab-tasks`)),
					chromedp.Click(css(`#tasks-refresh`)),
				)
				if st := f.text(t, `#tasks-status`); !strings.HasPrefix(st, "tasks/list is not part of the stateless era") {
					t.Errorf("List tasks in the stateless era: %q", st)
				}
				return
			}

			// tasks/list shows both, with their final status.
			f.run(t,
				exec(`clearTasks()`), // forget them: what follows comes from tasks/list
				chromedp.Click(css(`#tasks-refresh`)),
				void(chromedp.Poll[bool](`document.getElementById('tasks-status').textContent.includes('listed by the server')`)),
			)
			got := eval[map[string]string](t, f, `Object.fromEntries([...document.querySelectorAll('#tasks-list li')].map((li) => [li.dataset.taskId, li.dataset.status]))`)
			if len(got) != 2 || got[id] != "completed" || got[slow] != "cancelled" {
				t.Errorf("tasks listed: %v, want %s completed and %s cancelled", got, id, slow)
			}
			if st := f.text(t, `#tasks-status`); !strings.HasPrefix(st, "2 task(s)") {
				t.Errorf("tasks/list: %q", st)
			}
		})
	}
}

// TestStructuredContent: a tool's structuredContent is shown as a tree,
// checked against the tool's output schema; a mismatch is an alert that
// says where.
func TestStructuredContent(t *testing.T) {
	srv := httpServer(t)
	f := open(t, &inspect.Target{URL: srv + "/mcp", Era: "stateless"})
	f.run(t, chromedp.WaitVisible(css(`#status[data-status="connected"]`)))

	f.pickTool(t, "weather")
	if outcome, _ := f.call(t); outcome != "ok" {
		t.Fatalf("weather: outcome %q", outcome)
	}
	f.run(t, chromedp.WaitVisible(css(`#tool-result .schema-check[data-valid]`)))
	if v, text := f.attr(t, `#tool-result .schema-check`, "data-valid"), f.text(t, `#tool-result .schema-check`); v != "true" || text != "✓ matches the tool's output schema" {
		t.Errorf("weather: check %q %q", v, text)
	}
	// The tree: nested objects are <details>, leaves their JSON.
	leaves := eval[[]string](t, f, `[...document.querySelectorAll('#tool-result .structured .leaf')].map((l) => l.textContent)`)
	if strings.Join(leaves, "|") != `city: "Paris"|temperature: 21.5|conditions: "sunny"|speed: 12|direction: "NW"` {
		t.Errorf("tree leaves %q", leaves)
	}
	// Collapsing the wind object hides its leaves.
	f.run(t, chromedp.Click(css(`#tool-result .structured details details > summary`)))
	if open := eval[bool](t, f, `document.querySelector('#tool-result .structured details details').open`); open {
		t.Errorf("the wind object did not collapse")
	}
	f.shot(t, "structured")

	f.pickTool(t, "weather_broken")
	if outcome, _ := f.call(t); outcome != "ok" {
		t.Fatalf("weather_broken: outcome %q", outcome)
	}
	f.run(t, chromedp.WaitVisible(css(`#tool-result .schema-check[data-valid]`)))
	v, text := f.attr(t, `#tool-result .schema-check`, "data-valid"), f.text(t, `#tool-result .schema-check`)
	role := f.attr(t, `#tool-result .schema-check`, "role")
	if v != "false" || role != "alert" || !strings.HasPrefix(text, "✗ does not match the tool's output schema: ") || !strings.Contains(text, "temperature") {
		t.Errorf("weather_broken: check %q role %q %q", v, role, text)
	}
	f.shot(t, "structured-mismatch")
}

// logLines is the text of the log pane's lines of what (the level and
// logger of a notifications/message, or a notification's method).
func (f *fixture) logLines(t *testing.T, what string) []string {
	t.Helper()
	return eval[[]string](t, f, `[...document.querySelectorAll('#log-list li')].filter((li) => li.dataset.what === `+strconv.Quote(what)+`).map((li) => li.lastChild.textContent)`)
}

// TestLogLevel sets the server's log level from the log pane and sees
// test_tool_with_logging's three info messages filtered out at warning
// and shown at info: with logging/setLevel in the session era, and in the
// stateless era with the level each request carries in its _meta.
func TestLogLevel(t *testing.T) {
	needBrowser(t)
	for _, tc := range targets(t) {
		if tc.name != "http-session" && tc.name != "stdio-stateless" {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			f := open(t, &tc.target)
			f.run(t, chromedp.WaitVisible(css(`#status[data-status="connected"]`)))
			setLevel := func(level string) {
				f.run(t,
					chromedp.Click(css(`#tab-log`)),
					chromedp.SetValue(css(`#log-level`), level),
					chromedp.Click(css(`#log-set-level`)),
					void(chromedp.Poll[bool](`document.getElementById('log-level-status').textContent === 'level set to `+level+`'`)),
				)
			}
			callLogging := func() {
				f.pickTool(t, "test_tool_with_logging")
				if outcome, text := f.call(t); outcome != "ok" || !strings.Contains(text, "Tool with logging executed successfully") {
					t.Fatalf("test_tool_with_logging: %q %q", outcome, text)
				}
			}

			setLevel("warning")
			if !tc.stateless {
				if n := eval[int](t, f, `document.querySelectorAll('#messages-body tr[data-dir="send"][data-method="logging/setLevel"]').length`); n != 1 {
					t.Errorf("%d logging/setLevel sent, want 1", n)
				}
			}
			callLogging()
			if got := f.logLines(t, "info"); len(got) != 0 {
				t.Errorf("at level warning, info messages shown: %q", got)
			}
			if tc.stateless {
				sent := eval[string](t, f, `[...document.querySelectorAll('#messages-body tr[data-dir="send"][data-method="tools/call"]')].pop().dataset.search`)
				if !strings.Contains(sent, `"io.modelcontextprotocol/loglevel":"warning"`) {
					t.Errorf("tools/call at level warning sent %s", sent)
				}
			}

			setLevel("info")
			callLogging()
			got := f.logLines(t, "info")
			if strings.Join(got, "|") != "Tool execution started|Tool processing data|Tool execution completed" {
				t.Errorf("at level info, the info messages shown: %q", got)
			}
			f.run(t, chromedp.Click(css(`#tab-log`)))
			if tc.name == "http-session" {
				f.shot(t, "log")
			}
		})
	}
}

// TestListChanged: a tool that adds and removes a tool makes the server
// send notifications/tools/list_changed, which the log shows and which
// makes the page fetch tools/list again (session era: the stateless era
// sends it only on a subscriptions/listen stream, which the inspector
// does not open).
func TestListChanged(t *testing.T) {
	srv := httpServer(t)
	f := open(t, &inspect.Target{URL: srv + "/mcp", Era: "session"})
	f.run(t, chromedp.WaitVisible(css(`#status[data-status="connected"]`)))
	count := func(dir, method string) int {
		return eval[int](t, f, `document.querySelectorAll('#messages-body tr[data-dir="`+dir+`"][data-method="`+method+`"]').length`)
	}
	f.pickTool(t, "test_trigger_tool_change")
	if n := count("send", "tools/list"); n != 1 {
		t.Fatalf("%d tools/list before the change, want 1", n)
	}
	if outcome, text := f.call(t); outcome != "ok" || !strings.Contains(text, "test_temporary_tool was added and removed") {
		t.Fatalf("test_trigger_tool_change: %q %q", outcome, text)
	}
	notes := count("recv", "notifications/tools/list_changed")
	if notes < 1 {
		t.Fatalf("no notifications/tools/list_changed received")
	}
	// One refresh per notification, each answered.
	f.run(t, void(chromedp.Poll[bool](`document.querySelectorAll('#messages-body tr[data-dir="send"][data-method="tools/list"]').length === `+strconv.Itoa(1+notes)+` && document.getElementById('inflight-count').textContent === '0'`)))
	if got := f.logLines(t, "notifications/tools/list_changed"); len(got) != notes || got[0] != "refreshing the tools" {
		t.Errorf("log lines %q, want %d of refreshing the tools", got, notes)
	}
	// The list is as it was: the temporary tool came and went.
	f.run(t, chromedp.WaitVisible(css(`#tools-list button[data-key="echo"]`)))
	if n := eval[int](t, f, `document.querySelectorAll('#tools-list button[data-key="test_temporary_tool"]').length`); n != 0 {
		t.Errorf("the temporary tool is still listed")
	}
}

// TestURLElicitationAndAudio: a URL-mode elicitation is a card with the
// URL as a link that opens in a new tab (never opened by the page), and
// its Accept answers the server; an audio content gets a player that
// decodes it.
func TestURLElicitationAndAudio(t *testing.T) {
	needBrowser(t)
	for _, tc := range targets(t) {
		if tc.name != "http-session" && tc.name != "stdio-stateless" {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			f := open(t, &tc.target)
			f.run(t, chromedp.WaitVisible(css(`#status[data-status="connected"]`)))
			f.pickTool(t, "open_url")
			card := `#asks-list .ask[data-kind="elicitation"][data-mode="url"]`
			f.run(t,
				chromedp.Click(css(`#tool-call`)),
				chromedp.WaitVisible(css(card+` a`)),
			)
			link := card + ` a`
			if href, target, rel := f.attr(t, link, "href"), f.attr(t, link, "target"), f.attr(t, link, "rel"); href != "https://weather.example/connect?state=abc" || target != "_blank" || rel != "noopener noreferrer" {
				t.Errorf("link href %q target %q rel %q", href, target, rel)
			}
			if text := f.text(t, card); !strings.Contains(text, "Sign in to the weather service.") || !strings.Contains(text, "https://weather.example/connect?state=abc") {
				t.Errorf("card %q", text)
			}
			if tc.name == "http-session" {
				f.shot(t, "elicitation-url")
			}
			f.run(t,
				chromedp.Click(css(card+` button.primary`)),
				chromedp.WaitVisible(css(`#tool-result[data-outcome]`)),
				chromedp.WaitNotPresent(css(card)),
			)
			if text := f.text(t, `#tool-result`); !strings.Contains(text, "URL elicitation: action=accept") {
				t.Errorf("open_url: %q", text)
			}

			f.pickTool(t, "test_audio_content")
			if outcome, text := f.call(t); outcome != "ok" {
				t.Fatalf("test_audio_content: %q %q", outcome, text)
			}
			src := f.attr(t, `#tool-result audio`, "src")
			if label := f.attr(t, `#tool-result audio`, "aria-label"); label != "audio from the server (audio/wav)" {
				t.Errorf("audio label %q", label)
			}
			// The browser read it: its metadata loaded without a media
			// error (the fixture is a WAV header without samples, so its
			// duration is not a number to check), from the fixture's bytes.
			f.run(t, void(chromedp.Poll[bool](`(() => { const a = document.querySelector('#tool-result audio'); return !!a && (a.readyState >= 1 || !!a.error); })()`)))
			if code := eval[int](t, f, `(() => { const e = document.querySelector('#tool-result audio').error; return e ? e.code : 0; })()`); code != 0 {
				t.Fatalf("the browser could not read the audio: MediaError %d", code)
			}
			if src != "data:audio/wav;base64,"+everything.WAV {
				t.Errorf("audio src %q, want the fixture's bytes", src)
			}
		})
	}
}
