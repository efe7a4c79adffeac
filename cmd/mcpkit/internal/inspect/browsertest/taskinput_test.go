package browsertest

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// runTask calls the picked tool as a task and returns its id and the
// selector of its row in the Tasks view, which it shows.
func (f *fixture) runTask(t *testing.T, stateless bool) (id, row string) {
	t.Helper()
	if !stateless {
		f.run(t, chromedp.Click(css(`#tool-as-task`)))
	}
	f.run(t,
		chromedp.Click(css(`#tool-call`)),
		chromedp.WaitVisible(css(`#tool-result[data-outcome="task"]`)),
	)
	id = f.attr(t, `#tool-result`, "data-task-id")
	row = `#tasks-list li[data-task-id="` + id + `"]`
	f.run(t, chromedp.Click(css(`#tab-tasks`)), chromedp.WaitVisible(css(row)))
	return id, row
}

// taskResultText clicks the task's Result button and returns the result.
func (f *fixture) taskResultText(t *testing.T, id, row string) string {
	t.Helper()
	f.run(t,
		chromedp.WaitVisible(css(row+`[data-status="completed"]`)),
		chromedp.Click(css(row+` button[aria-label="Result of task `+id+`"]`)),
		chromedp.WaitVisible(css(row+` .result[data-outcome]`)),
	)
	return f.text(t, row+` .result`)
}

// TestTaskInput answers a task's own input requests. In the stateless era
// with the tasks extension, confirm_delete's task waits in input_required
// with its inputRequests in tasks/get: the Tasks view shows the
// elicitation as a form in the task's row, and its answer goes with
// tasks/update; multi_input's two requests are two forms, answered one
// after the other, the task waiting until both are. In the session era
// the task's elicitation is an ordinary elicitation request of the
// server, answered from the card above the views.
func TestTaskInput(t *testing.T) {
	needBrowser(t)
	for _, tc := range targets(t) {
		if tc.name != "http-session" && tc.name != "stdio-stateless" && tc.name != "http-stateless" {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			target := tc.target
			target.TasksExtension = tc.stateless
			f := open(t, &target)
			f.run(t, chromedp.WaitVisible(css(`#status[data-status="connected"]`)))

			f.pickTool(t, "confirm_delete")
			f.run(t, chromedp.SendKeys(css(`#tool-detail input[name="filename"]`), "notes.txt"))
			id, row := f.runTask(t, tc.stateless)
			if !tc.stateless {
				card := `#asks-list .ask[data-kind="elicitation"]`
				f.run(t, chromedp.WaitVisible(css(card)))
				if text := f.text(t, card); !strings.Contains(text, "Delete notes.txt?") {
					t.Errorf("elicitation card: %q", text)
				}
				f.run(t,
					chromedp.Click(css(card+` input[name="confirm"]`)),
					chromedp.Click(css(card+` button[type=submit]`)),
				)
				if text := f.taskResultText(t, id, row); !strings.Contains(text, "Deleted notes.txt.") {
					t.Errorf("confirm_delete's result: %q", text)
				}
				return
			}
			card := row + ` .task-input[data-key="confirm"]`
			f.run(t, chromedp.WaitVisible(css(row+`[data-status="input_required"] `+card[len(row)+1:])))
			if text := f.text(t, card); !strings.Contains(text, "Delete notes.txt?") || !strings.Contains(text, "confirm") {
				t.Errorf("the task's input card: %q", text)
			}
			if tc.name == "http-stateless" {
				f.shot(t, "task-input")
			}
			f.run(t,
				chromedp.Click(css(card+` input[name="confirm"]`)),
				chromedp.Click(css(card+` button[type=submit]`)),
			)
			if text := f.taskResultText(t, id, row); !strings.Contains(text, "Deleted notes.txt.") {
				t.Errorf("confirm_delete's result: %q", text)
			}
			sent := eval[string](t, f, `document.querySelector('#messages-body tr[data-dir="send"][data-method="tasks/update"]').dataset.search`)
			if want := `"taskid":"` + strings.ToLower(id) + `","inputresponses":{"confirm":{"action":"accept","content":{"confirm":true}}}`; !strings.Contains(sent, want) {
				t.Errorf("tasks/update sent %s, want %s", sent, want)
			}
			if n := eval[int](t, f, `document.querySelectorAll('`+row+` .task-input').length`); n != 0 {
				t.Errorf("%d input cards left on the completed task", n)
			}

			// multi_input: two requests at once, answered one by one.
			f.pickTool(t, "multi_input")
			id, row = f.runTask(t, true)
			first, second := row+` .task-input[data-key="first"]`, row+` .task-input[data-key="second"]`
			f.run(t,
				chromedp.WaitVisible(css(first)),
				chromedp.WaitVisible(css(second)),
				chromedp.SendKeys(css(first+` input[name="name"]`), "Ada"),
				chromedp.Click(css(first+` button[type=submit]`)),
				chromedp.WaitNotPresent(css(first)),
			)
			if st := f.attr(t, row, "data-status"); st != "input_required" {
				t.Errorf("multi_input with one answer of two: status %q, want input_required", st)
			}
			f.run(t, chromedp.Click(css(second+` button:not([type=submit])`))) // Decline
			if text := f.taskResultText(t, id, row); !strings.Contains(text, "first=Ada (accept), second= (decline)") {
				t.Errorf("multi_input's result: %q", text)
			}
		})
	}
}

// TestTaskSampling: a sampling request made from inside a task is shown
// and answered. In the stateless era with the tasks extension,
// summarize_task's task waits in input_required with the sampling request
// in its inputRequests: the Tasks view shows it as a sampling card in the
// task's row (the prompt, the system prompt, maxTokens; Approve only, as
// tasks/update carries results, not refusals), and the edited answer goes
// with tasks/update. In the session era the task's sampling/createMessage
// is an ordinary request of the server (tied to the task), approved from
// the card above the views.
func TestTaskSampling(t *testing.T) {
	needBrowser(t)
	for _, tc := range targets(t) {
		if tc.name != "http-session" && tc.name != "stdio-stateless" {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			target := tc.target
			target.TasksExtension = tc.stateless
			f := open(t, &target)
			f.run(t, chromedp.WaitVisible(css(`#status[data-status="connected"]`)))
			f.pickTool(t, "summarize_task")
			id, row := f.runTask(t, tc.stateless)
			card := `#asks-list .ask[data-kind="sampling"]`
			if tc.stateless {
				card = row + `[data-status="input_required"] .task-input[data-key="summary"][data-kind="sampling"]`
			}
			f.run(t, chromedp.WaitVisible(css(card+` textarea`)))
			text := f.text(t, card)
			for _, want := range []string{"Summarize the release notes.", "You summarize in one line.", "maxTokens 40"} {
				if !strings.Contains(text, want) {
					t.Errorf("sampling card %q lacks %q", text, want)
				}
			}
			if n := eval[int](t, f, `document.querySelectorAll('`+strings.ReplaceAll(card, `'`, `\'`)+` button').length`); tc.stateless && n != 1 {
				t.Errorf("the task's sampling card has %d buttons, want Approve alone", n)
			}
			f.run(t,
				chromedp.SendKeys(css(card+` textarea`), "Faster tasks, fewer bugs."),
				chromedp.Click(css(card+` button.primary`)),
			)
			if got := f.taskResultText(t, id, row); !strings.Contains(got, "summary by mcpkit-inspect-user: Faster tasks, fewer bugs.") {
				t.Errorf("summarize_task's result: %q", got)
			}
			if tc.stateless {
				sent := eval[string](t, f, `document.querySelector('#messages-body tr[data-dir="send"][data-method="tasks/update"]').dataset.search`)
				if want := `"taskid":"` + strings.ToLower(id) + `","inputresponses":{"summary":{"role":"assistant","content":{"type":"text","text":"faster tasks, fewer bugs."},"model":"mcpkit-inspect-user","stopreason":"endturn"}}`; !strings.Contains(sent, want) {
					t.Errorf("tasks/update sent %s, want %s", sent, want)
				}
			} else {
				// The answer went back as the response to the server's
				// sampling/createMessage, which named the task.
				got := eval[string](t, f, `document.querySelector('#messages-body tr[data-dir="recv"][data-method="sampling/createMessage"]').dataset.search`)
				if !strings.Contains(got, strings.ToLower(id)) {
					t.Errorf("the server's sampling/createMessage %s does not name task %s", got, id)
				}
			}
		})
	}
}
