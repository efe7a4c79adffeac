package browsertest

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// options are the values the completion listbox of the input sel offers.
func (f *fixture) options(t *testing.T, sel string) []string {
	t.Helper()
	return eval[[]string](t, f, `(() => { const i = document.querySelector('`+sel+`');
		return [...document.getElementById(i.getAttribute('aria-controls')).querySelectorAll('[role=option]')].map((o) => o.dataset.value); })()`)
}

// listboxOpen waits for the listbox of the input sel to show n options.
func listboxOpen(sel string, n int) chromedp.Action[chromedp.Void] {
	return void(chromedp.Poll[bool](`(() => { const i = document.querySelector('` + sel + `');
		const l = document.getElementById(i.getAttribute('aria-controls'));
		return i.getAttribute('aria-expanded') === 'true' && !l.hidden && l.querySelectorAll('[role=option]').length === ` + itoa(n) + `; })()`))
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestCompletion: the reference server declares completions, so the
// fields of a prompt's arguments and of a resource template's variables
// ask completion/complete as the user types and offer the values in a
// listbox; a click or the keyboard (ArrowDown, Enter) picks one, which
// fills the field. arg2's values follow arg1, which the page sends as
// context. Over HTTP in the session era and over stdio in the stateless
// era.
func TestCompletion(t *testing.T) {
	needBrowser(t)
	for _, tc := range targets(t) {
		if tc.name != "http-session" && tc.name != "stdio-stateless" {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			f := open(t, &tc.target)
			f.run(t, chromedp.WaitVisible(css(`#status[data-status="connected"]`)))

			arg1, arg2 := `#prompt-detail input[name="arg1"]`, `#prompt-detail input[name="arg2"]`
			f.run(t,
				chromedp.Click(css(`#tab-prompts`)),
				chromedp.Click(css(`#prompts-list button[data-key="test_prompt_with_arguments"]`)),
				chromedp.WaitVisible(css(arg1)),
			)
			if role, auto := f.attr(t, arg1, "role"), f.attr(t, arg1, "aria-autocomplete"); role != "combobox" || auto != "list" {
				t.Errorf("arg1: role=%q aria-autocomplete=%q, want combobox and list", role, auto)
			}
			// Typing "te" offers the server's four values that start so.
			f.run(t, chromedp.SendKeys(css(arg1), "te"), listboxOpen(arg1, 4))
			if got, want := f.options(t, arg1), []string{"test", "testValue1", "testValue2", "testing"}; strings.Join(got, ",") != strings.Join(want, ",") {
				t.Errorf("arg1 completions: %q, want %q", got, want)
			}
			if st := f.text(t, `#prompt-detail .field[data-name="arg1"] .completion-status`); !strings.HasPrefix(st, "4 completion(s) of 4") {
				t.Errorf("arg1 status: %q", st)
			}
			if tc.name == "http-session" {
				f.shot(t, "completion")
			}
			// A click picks one: the field holds it and the list closes.
			f.run(t, chromedp.Click(css(`#prompt-detail [role=option][data-value="testing"]`)))
			if v := get(t, f, chromedp.Value(css(arg1))); v != "testing" {
				t.Errorf("arg1 after the click: %q, want testing", v)
			}
			if ex := f.attr(t, arg1, "aria-expanded"); ex != "false" {
				t.Errorf("arg1 aria-expanded after the pick: %q", ex)
			}

			// arg2 by the keyboard: its values follow arg1 (sent as
			// context); ArrowDown twice and Enter pick the second.
			f.run(t,
				chromedp.SendKeys(css(arg2), "t"),
				listboxOpen(arg2, 3),
				chromedp.KeyEvent(kb.ArrowDown),
				chromedp.KeyEvent(kb.ArrowDown),
			)
			if got := f.options(t, arg2); strings.Join(got, ",") != "testing-a,testing-b,testing-c" {
				t.Errorf("arg2 completions: %q", got)
			}
			act := f.attr(t, arg2, "aria-activedescendant")
			if sel := eval[string](t, f, `document.getElementById('`+act+`').dataset.value`); sel != "testing-b" {
				t.Errorf("after ArrowDown twice the active option is %q (%s), want testing-b", sel, act)
			}
			f.run(t, chromedp.KeyEvent(kb.Enter))
			if v := get(t, f, chromedp.Value(css(arg2))); v != "testing-b" {
				t.Errorf("arg2 after Enter: %q, want testing-b", v)
			}
			sent := eval[string](t, f, `[...document.querySelectorAll('#messages-body tr[data-dir="send"][data-method="completion/complete"]')].pop().dataset.search`)
			if !strings.Contains(sent, `"ref":{"type":"ref/prompt","name":"test_prompt_with_arguments"},"argument":{"name":"arg2","value":"t"},"context":{"arguments":{"arg1":"testing"}}`) {
				t.Errorf("completion/complete sent %s", sent)
			}
			// Enter picked, it did not submit; the prompt gets the values.
			if sent := eval[bool](t, f, `[...pending.values()].some((p) => p.method === 'prompts/get') || !!document.querySelector('#messages-body tr[data-method="prompts/get"]')`); sent {
				t.Errorf("Enter on an option submitted the form")
			}
			f.run(t, chromedp.Click(css(`#prompt-get`)), chromedp.WaitVisible(css(`#prompt-result[data-outcome]`)))
			if text := f.text(t, `#prompt-result`); !strings.Contains(text, "arg1='testing', arg2='testing-b'") {
				t.Errorf("prompt: %q", text)
			}
			// Escape closes the list.
			// ArrowDown asks at once; Escape closes the list.
			f.run(t,
				chromedp.Focus(css(arg1)),
				chromedp.KeyEvent(kb.ArrowDown),
				listboxOpen(arg1, 1),
				chromedp.KeyEvent(kb.Escape),
				void(chromedp.Poll[bool](`document.querySelector('`+arg1+`').getAttribute('aria-expanded') === 'false'`)),
			)

			// A resource template's variable.
			id := `#resource-detail input[name="id"]`
			f.run(t,
				chromedp.Click(css(`#tab-resources`)),
				chromedp.Click(css(`#templates-list button[data-key="test://template/{id}/data"]`)),
				chromedp.WaitVisible(css(id)),
				chromedp.SendKeys(css(id), "1"),
				listboxOpen(id, 2),
			)
			if got := f.options(t, id); strings.Join(got, ",") != "1,123" {
				t.Errorf("id completions: %q", got)
			}
			f.run(t,
				chromedp.Click(css(`#resource-detail [role=option][data-value="123"]`)),
				chromedp.Click(css(`#resource-detail button[type=submit]`)),
				chromedp.WaitVisible(css(`#resource-result[data-outcome]`)),
			)
			if text := f.text(t, `#resource-result`); !strings.Contains(text, "test://template/123/data") {
				t.Errorf("template read: %q", text)
			}
		})
	}
}
