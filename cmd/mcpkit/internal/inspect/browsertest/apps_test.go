package browsertest

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/mcpkit/mcpkit/cmd/mcpkit/internal/inspect"
)

// inApp reads the text of sel in the app's View: the inner iframe of the
// sandbox proxy that the page frames, two frames deep. Chrome runs the
// View's sandboxed frame (an opaque origin) in a process of its own, a
// target of its own: a context attached to it (chromedp.WithTargetID)
// reads it, kept for the rest of the test, as cancelling it closes the
// frame. A View in the page's process is reached from its node, itself
// reached from the proxy's (chromedp.FromNode).
func (f *fixture) inApp(t *testing.T, sel string) string {
	t.Helper()
	src := f.viewURL(t)
	if f.frameCtx == nil || f.frameSrc != src {
		infos, err := chromedp.Targets(f.ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, info := range infos {
			if info.Type == "iframe" && info.URL == src {
				ctx, cancel := chromedp.NewContext(f.ctx, chromedp.WithTargetID(info.TargetID))
				t.Cleanup(cancel)
				f.frameCtx, f.frameSrc = ctx, src
			}
		}
	}
	if f.frameCtx != nil {
		text, err := chromedp.Run(f.frameCtx, chromedp.Text(css(sel)))
		if err != nil {
			t.Fatalf("in the app's frame: %v", err)
		}
		return text
	}
	proxy := get(t, f, chromedp.Nodes(css(`#app-frame`)))
	view := get(t, f, chromedp.Nodes(css(`#view`), chromedp.FromNode(proxy[0])))
	return get(t, f, chromedp.Text(css(sel), chromedp.FromNode(view[0])))
}

// viewURL is the URL of the View the page's proxy frames: the sandbox
// origin's /view/ID for the proxy's /proxy/ID.
func (f *fixture) viewURL(t *testing.T) string {
	t.Helper()
	src := f.attr(t, `#app-frame`, "src")
	id, ok := strings.CutPrefix(src, f.sandbox+"/proxy/")
	if !ok {
		t.Fatalf("iframe src=%q, want the sandbox proxy %s/proxy/ID", src, f.sandbox)
	}
	return f.sandbox + "/view/" + id
}

// TestApps renders the reference server's demo MCP App (greet_app, whose
// UI is ui://mcpkit/greeting) over stdio and HTTP in both eras: the page
// frames the sandbox proxy (another origin, allow-scripts and
// allow-same-origin), which frames the app sandboxed with allow-scripts
// alone and forwards its messages; the app gets ui/initialize answered, the
// tool's input and result (which it writes into its page), its
// size-changed resizes the frame, its ui/message and ui/open-link are
// shown (the link not followed), its tools/call of echo is forwarded and
// its tools/call of greet_app (visibility "model") refused without
// reaching the server; its resources/read of its own ui:// resource is
// forwarded and of test://static-text refused (-32000) without reaching
// the server; its ui/update-model-context and notifications/message are
// shown in its log and the log pane, its ui/download-file as a blob:
// link to click (nothing saved), its ui/request-display-mode answered
// "inline"; a message from another window is not read, nor one the
// app posts to the page itself, past the proxy.
func TestApps(t *testing.T) {
	needBrowser(t)
	for i, tc := range targets(t) {
		t.Run(tc.name, func(t *testing.T) {
			f := open(t, &tc.target)
			f.run(t, chromedp.WaitVisible(css(`#status[data-status="connected"]`)))
			f.pickTool(t, "greet_app")
			f.run(t, chromedp.SendKeys(css(`#tool-detail input[name="name"]`), "Ada"))
			outcome, text := f.call(t)
			if outcome != "ok" || !strings.Contains(text, "Hello, Ada!") {
				t.Errorf("greet_app: outcome %q, result %q", outcome, text)
			}
			// The app's last step: its ui/request-display-mode.
			f.run(t, chromedp.WaitVisible(css(`#app-log li[data-method="ui/request-display-mode"]`)))
			if sb := f.attr(t, `#app-frame`, "sandbox"); sb != "allow-scripts allow-same-origin" {
				t.Errorf("iframe sandbox=%q, want allow-scripts allow-same-origin", sb)
			}
			if f.sandbox == f.base || !strings.HasPrefix(f.sandbox, "http://127.0.0.1:") {
				t.Errorf("sandbox origin %s, page %s: want another port", f.sandbox, f.base)
			}
			if src := f.attr(t, `#app-frame`, "src"); !strings.HasPrefix(src, f.sandbox+"/proxy/") || strings.Contains(src, "token") {
				t.Errorf("iframe src=%q, want %s/proxy/ID without the token", src, f.sandbox)
			}
			// The View, in the proxy, sandboxed with allow-scripts alone.
			proxy := get(t, f, chromedp.Nodes(css(`#app-frame`)))
			if sb := get(t, f, chromedp.AttributeValue(css(`#view`), "sandbox", chromedp.FromNode(proxy[0]))).Value; sb != "allow-scripts" {
				t.Errorf("the View's iframe sandbox=%q, want allow-scripts", sb)
			}

			// What the app saw, read in its frame.
			for sel, want := range map[string]string{
				"#result":       "Hello, Ada!",
				"#input":        `{"name":"Ada"}`,
				"#host":         "mcpkit-inspect 0.1.0",
				"#message":      "ok: {}",
				"#link":         "ok: {}",
				"#call-refused": `refused: mcpkit inspect: refused: apps: the tool is not callable by apps: greet_app has visibility ["model"]`,
				"#read":         "ok: ui://mcpkit/greeting text/html;profile=mcp-app",
				"#read-refused": `refused: mcpkit inspect: Policy violation: an app reads only the ui:// resources of its server, not "test://static-text"`,
				"#context":      "ok: {}",
				"#download":     "ok: {}",
				"#mode":         `ok: {"mode":"inline"}`,
			} {
				if got := f.inApp(t, sel); got != want {
					t.Errorf("app %s: %q, want %q", sel, got, want)
				}
			}
			if got := f.inApp(t, "#call-echo"); !strings.HasPrefix(got, "ok: ") || !strings.Contains(got, `"text":"from the app"`) {
				t.Errorf("app #call-echo: %q, want echo's result", got)
			}

			// size-changed: the frame is as tall as the app said.
			size := strings.TrimSuffix(f.inApp(t, "#size"), "px")
			if got := f.attr(t, `#app-frame`, "data-height"); got != size {
				t.Errorf("frame data-height %q, app reported %q", got, size)
			}
			if got := eval[string](t, f, `String(document.getElementById('app-frame').getBoundingClientRect().height)`); got != size {
				t.Errorf("frame height %spx, app reported %spx", got, size)
			}

			// ui/message and ui/open-link shown; the page did not navigate.
			if got := f.text(t, `#app-log li[data-method="ui/message"] q`); got != "The card shows: Hello, Ada!" {
				t.Errorf("ui/message shown %q", got)
			}
			if href := f.attr(t, `#app-log a.app-link`, "href"); href != "https://modelcontextprotocol.io/extensions/apps" {
				t.Errorf("ui/open-link shown as %q", href)
			}
			if loc := eval[string](t, f, `location.href`); loc != f.url {
				t.Errorf("the page navigated to %q", loc)
			}

			// ui/update-model-context and the app's log line: in its log
			// and in the log pane.
			const ctxShown = `The user sees the card: Hello, Ada!; structuredContent {"greeting":"Hello, Ada!"}`
			if got := f.text(t, `#app-log li[data-method="ui/update-model-context"] q`); got != ctxShown {
				t.Errorf("ui/update-model-context shown %q, want %q", got, ctxShown)
			}
			pane := eval[[]string](t, f, `[...document.querySelectorAll('#log-list li')].map((li) => li.dataset.what + " | " + li.lastChild.textContent)`)
			for _, want := range []string{"app ui/update-model-context | " + ctxShown, "app info greeting | card shown: Hello, Ada!"} {
				if !slices.Contains(pane, want) {
					t.Errorf("log pane %q lacks %q", pane, want)
				}
			}
			// ui/download-file: a link the user may click, nothing saved.
			if got := f.attr(t, `#app-log a.app-download`, "download"); got != "greeting.txt" {
				t.Errorf("download name %q", got)
			}
			if href := f.attr(t, `#app-log a.app-download`, "href"); !strings.HasPrefix(href, "blob:"+f.base+"/") {
				t.Errorf("download href %q, want a blob: URL of the page", href)
			}
			if got := f.text(t, `#app-log a.app-download`); got != "download greeting.txt (12 bytes, text/plain)" {
				t.Errorf("download link %q", got)
			}
			if got := f.text(t, `#app-log li[data-method="ui/request-display-mode"]`); !strings.Contains(got, "fullscreen (the inspector shows apps inline)") {
				t.Errorf("ui/request-display-mode shown %q", got)
			}
			// Of the app's reads, only the ui:// one reached the server.
			reads := eval[[]string](t, f, `[...document.querySelectorAll('#messages-body tr[data-dir="send"][data-method="resources/read"]')].map((r) => r.dataset.search.includes('test://static-text') ? 'static-text' : r.dataset.search.includes('ui://mcpkit/greeting') ? 'greeting' : r.dataset.search)`)
			if strings.Join(reads, ",") != "greeting,greeting" {
				t.Errorf("resources/read sent to the server: %q, want the inspector's fetch of the app and the app's own read", reads)
			}
			var readStatuses []int
			for _, h := range f.hitsTo("/api/app-read") {
				readStatuses = append(readStatuses, h.status)
			}
			if len(readStatuses) != 2 || readStatuses[0] != 200 || readStatuses[1] != 403 {
				t.Errorf("/api/app-read answers %v, want [200 403]", readStatuses)
			}

			// The refused call never reached the server: two tools/call
			// went out, the user's greet_app and the app's echo.
			sent := eval[[]string](t, f, `[...document.querySelectorAll('#messages-body tr[data-dir="send"][data-method="tools/call"]')].map((r) => r.dataset.search.includes('"name":"echo"') ? 'echo' : r.dataset.search.includes('"name":"greet_app"') ? 'greet_app' : r.dataset.search)`)
			if strings.Join(sent, ",") != "greet_app,echo" && strings.Join(sent, ",") != "echo,greet_app" {
				t.Errorf("tools/call sent to the server: %q, want greet_app and echo", sent)
			}
			// A message from another window than the app's (here the
			// page itself) is not read.
			f.run(t,
				exec(`window.postMessage({jsonrpc: "2.0", id: 99, method: "ui/message", params: {role: "user", content: {type: "text", text: "forged"}}}, "*")`),
				chromedp.WaitReady(css(`#app-log[data-ignored="1"]`)),
			)
			if got := f.text(t, `#app-log`); strings.Contains(got, "forged") {
				t.Errorf("a message from the page itself was read: %q", got)
			}
			// The app reaches the page only through the proxy: what it
			// posts to the page directly (window.top) is not read.
			if f.inApp(t, "#result"); f.frameCtx == nil {
				t.Fatal("the View runs in the page's process: no frame context to post from")
			}
			if _, err := chromedp.Run(f.frameCtx, exec(`window.top.postMessage({jsonrpc: "2.0", id: 98, method: "ui/message", params: {role: "user", content: {type: "text", text: "past the proxy"}}}, "*")`)); err != nil {
				t.Fatalf("in the app's frame: %v", err)
			}
			f.run(t, chromedp.WaitReady(css(`#app-log[data-ignored="2"]`)))
			if got := f.text(t, `#app-log`); strings.Contains(got, "past the proxy") {
				t.Errorf("a message of the app past the proxy was read: %q", got)
			}
			if got := f.text(t, `#app-log li[data-method="ui/notifications/sandbox-proxy-ready"]`); !strings.HasPrefix(got, "ui/notifications/sandbox-proxy-ready") {
				t.Errorf("sandbox-proxy-ready shown %q", got)
			}
			// The proxy forwarded the app's messages up (its ui/initialize,
			// ..., its ui/request-display-mode) and the page's down.
			up := get(t, f, chromedp.AttributeValue(css(`html`), "data-up", chromedp.FromNode(proxy[0]))).Value
			if n, _ := strconv.Atoi(up); n < 10 {
				t.Errorf("the proxy forwarded %q messages of the app, want at least 10", up)
			}

			var statuses []int
			for _, h := range f.hitsTo("/api/app-call") {
				statuses = append(statuses, h.status)
				if !h.token {
					t.Errorf("/api/app-call without the token")
				}
			}
			if len(statuses) != 2 || statuses[0] != 200 || statuses[1] != 403 {
				t.Errorf("/api/app-call answers %v, want [200 403]", statuses)
			}
			if i == 0 {
				f.run(t, exec(`document.getElementById('tool-app').scrollIntoView({block: 'end'})`))
				f.shot(t, "app")
				f.checkKeyboard(t, "app")
			}
		})
	}
}

// digest is "sha256:" and the hex SHA-256 of s.
func digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// TestSkills lists the reference server's skills (HTTP in the session
// era, stdio in the stateless era), shows one's frontmatter and files,
// and reads a file with its digest verified; then, on a server whose file
// changed after it was listed, pages through skills/list one skill at a
// time and shows the mismatch.
func TestSkills(t *testing.T) {
	needBrowser(t)
	srv := httpServer(t)
	for i, target := range []inspect.Target{
		{URL: srv + "/mcp", Era: "session"},
		{Command: stdioCommand(t), Era: "stateless"},
	} {
		t.Run(target.Era, func(t *testing.T) {
			f := open(t, &target)
			f.run(t,
				chromedp.WaitVisible(css(`#status[data-status="connected"]`)),
				chromedp.WaitVisible(css(`#tab-skills`)),
				chromedp.Click(css(`#tab-skills`)),
				chromedp.WaitVisible(css(`#skills-list button`)),
			)
			keys := eval[[]string](t, f, `[...document.querySelectorAll('#skills-list button')].map((b) => b.dataset.key)`)
			want := "skill://code-review/SKILL.md,skill://code-review/security/SKILL.md,skill://release-notes/SKILL.md"
			if strings.Join(keys, ",") != want {
				t.Errorf("skills listed %q, want %s", keys, want)
			}
			f.run(t,
				chromedp.Click(css(`#skills-list button[data-key="skill://release-notes/SKILL.md"]`)),
				chromedp.WaitVisible(css(`#skill-detail table.files`)),
			)
			files := eval[[]string](t, f, `[...document.querySelectorAll('#skill-detail tr[data-uri]')].map((r) => r.dataset.uri)`)
			if strings.Join(files, ",") != "skill://release-notes/SKILL.md,skill://release-notes/scripts/collect.sh" {
				t.Errorf("files %q", files)
			}
			if got := f.text(t, `#skill-detail .tree`); !strings.Contains(got, "name: \"release-notes\"") {
				t.Errorf("frontmatter shown %q", got)
			}
			f.run(t,
				chromedp.Click(css(`#skill-detail button[aria-label="Read skill://release-notes/scripts/collect.sh"]`)),
				chromedp.WaitVisible(css(`#skill-file[data-verified]`)),
			)
			if v := f.attr(t, `#skill-file`, "data-verified"); v != "true" {
				t.Errorf("collect.sh verified=%q: %s", v, f.text(t, `#skill-file`))
			}
			listed := eval[string](t, f, `document.querySelector('#skill-detail tr[data-uri="skill://release-notes/scripts/collect.sh"] td.digest').textContent`)
			if got := f.text(t, `#skill-file .verify`); !strings.HasPrefix(got, "✓ digest verified: "+listed+", ") {
				t.Errorf("verdict %q, want the listed digest %s", got, listed)
			}
			if i == 0 {
				f.shot(t, "skills")
				f.checkKeyboard(t, "skills")
			}
		})
	}

	t.Run("mismatch", func(t *testing.T) {
		f := open(t, &inspect.Target{URL: srv + "/skew", Era: "session"})
		f.run(t,
			chromedp.WaitVisible(css(`#status[data-status="connected"]`)),
			chromedp.Click(css(`#tab-skills`)),
			chromedp.WaitVisible(css(`#skills-list button[data-key="skill://notes/SKILL.md"]`)),
			chromedp.WaitVisible(css(`#skills-more`)),
		)
		if n := eval[int](t, f, `document.querySelectorAll('#skills-list button').length`); n != 1 {
			t.Errorf("first page: %d skills, want 1", n)
		}
		f.run(t,
			chromedp.Click(css(`#skills-more`)),
			chromedp.WaitVisible(css(`#skills-list button[data-key="skill://plain/SKILL.md"]`)),
		)
		if hidden := get(t, f, chromedp.JavascriptAttribute[bool](css(`#skills-more`), "hidden")); !hidden {
			t.Errorf("Load more still shown after the last page")
		}
		f.run(t,
			chromedp.Click(css(`#skills-list button[data-key="skill://notes/SKILL.md"]`)),
			chromedp.WaitVisible(css(`#skill-detail button[aria-label="Read skill://notes/notes.md"]`)),
			chromedp.Click(css(`#skill-detail button[aria-label="Read skill://notes/notes.md"]`)),
			chromedp.WaitVisible(css(`#skill-file[data-verified]`)),
		)
		if v := f.attr(t, `#skill-file`, "data-verified"); v != "false" {
			t.Errorf("notes.md verified=%q", v)
		}
		got := f.text(t, `#skill-file .verify[role="alert"]`)
		for _, want := range []string{"✗ digest mismatch", "listed: " + digest("as listed\n") + ", 10 bytes", "read: " + digest("changed since\n") + ", 14 bytes"} {
			if !strings.Contains(strings.Join(strings.Fields(got), " "), want) {
				t.Errorf("mismatch shown as %q, want %q in it", got, want)
			}
		}
		if got := f.text(t, `#skill-file pre`); got != "changed since\n" && got != "changed since" {
			t.Errorf("content shown %q", got)
		}
		f.shot(t, "skills-mismatch")
	})
}
