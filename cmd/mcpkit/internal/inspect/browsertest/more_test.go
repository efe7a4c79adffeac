package browsertest

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/mcpkit/mcpkit/cmd/mcpkit/internal/inspect"
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
				want := `"io.modelcontextprotocol/clientcapabilities":{"roots":{},"sampling":{},"elicitation":{"form":{},"url":{}},"extensions":{"io.modelcontextprotocol/tasks":{}}}`
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
