package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/mcpkit/mcpkit/ext/skills"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
)

const (
	gitMD  = "---\nname: git-workflow\ndescription: Follow the team's Git conventions\n---\n\nBranch, then commit.\n"
	gitRef = "Conventional commits.\n"
)

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// skillsServer serves one skill, skill://git-workflow, over Streamable
// HTTP; with declare false it does not declare the extension. tamper, if
// set, changes what resources/read serves.
func skillsServer(t *testing.T, declare bool, tamper func(string) string) string {
	t.Helper()
	files := map[string]string{
		"skill://git-workflow/SKILL.md":          gitMD,
		"skill://git-workflow/references/REF.md": gitRef,
	}
	s := mcp.NewServer(mcp.Implementation{Name: "skills-cli-test", Version: "1.0.0"}, nil)
	for uri, content := range files {
		s.AddResource(&mcp.Resource{URI: uri, Name: uri}, func(_ context.Context, _ *mcp.Request, p *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
			c := content
			if tamper != nil {
				c = tamper(c)
			}
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: p.URI, Text: c}}}, nil
		})
	}
	entry := json.RawMessage(fmt.Sprintf(`{"uri":"skill://git-workflow/SKILL.md","frontmatter":{"name":"git-workflow","description":"Follow the team's Git conventions"},"resources":[{"uri":"skill://git-workflow/SKILL.md","digest":%q,"size":%d},{"uri":"skill://git-workflow/references/REF.md","digest":%q,"size":%d}]}`,
		sha(gitMD), len(gitMD), sha(gitRef), len(gitRef)))
	if declare {
		err := s.AddExtension(mcp.Extension{ID: skills.ID, Methods: map[string]mcp.MethodHandler{
			"skills/list": func(context.Context, *mcp.Request) (any, error) {
				return map[string]any{"skills": []json.RawMessage{entry, json.RawMessage(`{"uri":"skill://bad/SKILL.md","frontmatter":{"name":"bad","description":"d"}}`)}}, nil
			},
			"skills/get": func(_ context.Context, r *mcp.Request) (any, error) {
				var p skills.GetParams
				json.Unmarshal(r.Params, &p)
				if p.URI != "skill://git-workflow/SKILL.md" {
					return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "No skill is served at "+p.URI, nil)
				}
				return map[string]any{"skill": entry}, nil
			},
		}})
		if err != nil {
			t.Fatal(err)
		}
	}
	h := mcphttp.NewHandler(s, nil)
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		srv.Close()
		h.Close()
	})
	return srv.URL
}

func TestSkillsCLI(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
	url := skillsServer(t, true, nil)
	dir := t.TempDir()
	for _, era := range []string{"session", "stateless"} {
		t.Run(era, func(t *testing.T) {
			code, out, errOut := runCLI(t, "", "skills", "list", "--era", era, "--url", url)
			if want := fmt.Sprintf("skill://git-workflow/SKILL.md  2 files, %d bytes  Follow the team's Git conventions\n", len(gitMD)+len(gitRef)); code != 1 || out != want ||
				errOut != `mcpkit: skills: invalid skill entry: skills/list: {"uri":"skill://bad/SKILL.md","frontmatter":{"name":"bad","description":"d"}}: skills: an entry has no resources`+"\nmcpkit: 1 skill entries are invalid and were left out\n" {
				t.Errorf("list: exit %d, stdout %q, stderr %q; want 1, %q", code, out, errOut, want)
			}

			code, out, errOut = runCLI(t, "", "skills", "get", "skill://git-workflow/SKILL.md", "--era", era, "--url", url)
			want := "skill://git-workflow/SKILL.md\n" +
				`frontmatter: {"name":"git-workflow","description":"Follow the team's Git conventions"}` + "\n" +
				fmt.Sprintf("resources: 2 files, %d bytes\n", len(gitMD)+len(gitRef)) +
				fmt.Sprintf("  skill://git-workflow/SKILL.md           %d  ", len(gitMD)) + sha(gitMD) + "\n" +
				"  skill://git-workflow/references/REF.md  22  " + sha(gitRef) + "\n"
			if code != 0 || out != want || errOut != "" {
				t.Errorf("get: exit %d, stdout\n%s\nstderr %q; want\n%s", code, out, errOut, want)
			}

			code, out, errOut = runCLI(t, "", "skills", "get", "skill://nope/SKILL.md", "--era", era, "--url", url)
			if want := "mcpkit: skills get skill://nope/SKILL.md: the server answered skills/get with jsonrpc error -32602: No skill is served at skill://nope/SKILL.md\n"; code != 1 || out != "" || errOut != want {
				t.Errorf("get unknown: exit %d, stdout %q, stderr %q; want 1, %q", code, out, errOut, want)
			}

			code, out, errOut = runCLI(t, "", "skills", "pull", "skill://git-workflow/SKILL.md", "--dir", dir, "--era", era, "--url", url)
			p := filepath.Join(dir, strings.NewReplacer(":", "%3A", "/", "%2F").Replace(url), "skill", "git-workflow")
			if code != 0 || out != p+"\n" || errOut != "" {
				t.Fatalf("pull: exit %d, stdout %q, stderr %q; want 0, %q", code, out, errOut, p)
			}
			for rel, want := range map[string]string{"SKILL.md": gitMD, "references/REF.md": gitRef} {
				if b, err := os.ReadFile(filepath.Join(p, rel)); err != nil || string(b) != want {
					t.Errorf("%s: %q, %v", rel, b, err)
				}
			}
		})
	}
	code, out, errOut := runCLI(t, "", "skills", "list", "--json", "--url", url)
	if code != 1 || !strings.HasPrefix(out, `{"skills":[{"uri":"skill://git-workflow/SKILL.md","frontmatter":{"name":"git-workflow"`) || !strings.HasSuffix(errOut, "were left out\n") {
		t.Errorf("list --json: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

func TestSkillsCLIRefuses(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
	dir := t.TempDir()
	tampered := skillsServer(t, true, func(s string) string { return strings.Replace(s, "Branch", "Rm -rf", 1) })
	code, out, errOut := runCLI(t, "", "skills", "pull", "skill://git-workflow/SKILL.md", "--dir", dir, "--label", "evil", "--url", tampered)
	want := "mcpkit: skills pull skill://git-workflow/SKILL.md: skills: verification failed: skill://git-workflow/SKILL.md has digest " + sha(strings.Replace(gitMD, "Branch", "Rm -rf", 1)) + ", the entry says " + sha(gitMD) + "\n"
	if code != 1 || out != "" || errOut != want {
		t.Errorf("tampered: exit %d, stdout %q, stderr %q; want 1, %q", code, out, errOut, want)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("a refused pull wrote %v", entries)
	}

	plain := skillsServer(t, false, nil)
	for _, verb := range [][]string{{"list"}, {"get", "skill://git-workflow/SKILL.md"}, {"pull", "skill://git-workflow/SKILL.md", "--dir", dir}} {
		code, out, errOut := runCLI(t, "", append(append([]string{"skills"}, verb...), "--url", plain)...)
		what := "skills " + verb[0]
		if verb[0] != "list" {
			what += " skill://git-workflow/SKILL.md"
		}
		want := "mcpkit: " + what + ": the server does not offer skills (its capabilities do not declare io.modelcontextprotocol/skills)\n"
		if code != 1 || out != "" || errOut != want {
			t.Errorf("%v without the extension: exit %d, stdout %q, stderr %q; want 1, %q", verb, code, out, errOut, want)
		}
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"skills"}, "mcpkit: skills: want a subcommand: list, get or pull\nRun 'mcpkit help skills' for usage.\n"},
		{[]string{"skills", "push"}, "mcpkit: skills: unknown subcommand \"push\": want list, get or pull\nRun 'mcpkit help skills' for usage.\n"},
		{[]string{"skills", "get", "--url", plain}, "mcpkit: skills get: want exactly one SKILL.md URI before --, got 0 arguments\nRun 'mcpkit help skills get' for usage.\n"},
		{[]string{"skills", "pull", "skill://a/README.md", "--url", plain}, "mcpkit: skills pull: \"skill://a/README.md\" is not the URI of a SKILL.md (such as skill://git-workflow/SKILL.md)\nRun 'mcpkit help skills pull' for usage.\n"},
		{[]string{"skills", "pull", "skill://../SKILL.md", "--url", plain}, "mcpkit: skills pull: skills: skill://../SKILL.md: the path segment \"..\" would leave the skill's directory\nRun 'mcpkit help skills pull' for usage.\n"},
		{[]string{"skills", "list", "extra", "--url", plain}, "mcpkit: skills list: unexpected argument \"extra\" (the server command goes after --)\nRun 'mcpkit help skills list' for usage.\n"},
	} {
		code, out, errOut := runCLI(t, "", tc.args...)
		if code != 2 || out != "" || errOut != tc.want {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2, %q", tc.args, code, out, errOut, tc.want)
		}
	}
}
