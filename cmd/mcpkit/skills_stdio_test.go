package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/mcpkit/mcpkit/ext/skills"
	"github.com/mcpkit/mcpkit/mcp"
)

// referenceSkills reads the skills mcpkit serve embeds from their
// source directory: every file by its skill:// URI.
func referenceSkills(t *testing.T) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	root := os.DirFS(filepath.Join("..", "..", "internal", "everything", "skills"))
	err := fs.WalkDir(root, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(root, p)
		files["skill://"+p] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// wantResources is the entry's resources of the skill whose SKILL.md is
// at uri, computed here from the source files: every file under the
// skill's directory, nested skills' included, by URI.
func wantResources(files map[string][]byte, uri string) map[string]skills.Resource {
	root := strings.TrimSuffix(uri, "SKILL.md")
	want := map[string]skills.Resource{}
	for u, b := range files {
		if strings.HasPrefix(u, root) {
			sum := sha256.Sum256(b)
			want[u] = skills.Resource{URI: u, Digest: "sha256:" + hex.EncodeToString(sum[:]), Size: int64(len(b))}
		}
	}
	return want
}

func checkResources(t *testing.T, what string, got []skills.Resource, want map[string]skills.Resource) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d resources %v, want %d %v", what, len(got), got, len(want), want)
	}
	for _, r := range got {
		if r != want[r.URI] {
			t.Errorf("%s: resource %+v, want %+v", what, r, want[r.URI])
		}
	}
}

// TestSkillsStdio runs the reference server, mcpkit serve, over stdio
// through mcp.CommandTransport, in both eras, and checks the Skills
// client against it: List finds its three skills, nested security among
// them, with the digests and sizes of the source files; Get returns the
// nested skill's entry; ReadFile returns each of its files verified; and
// Pull materializes it, byte for byte, at skills.Path.
func TestSkillsStdio(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
	files := referenceSkills(t)
	const nested = "skill://code-review/security/SKILL.md"
	listed := []string{"skill://code-review/SKILL.md", nested, "skill://release-notes/SKILL.md"}
	argv := serverCommand(t)
	for _, era := range []mcp.ProtocolEra{mcp.EraSession, mcp.EraStateless} {
		t.Run(era.String(), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			cs, err := mcp.NewClient(mcp.Implementation{Name: "skills-stdio-test", Version: "1"}, &mcp.ClientOptions{ProtocolEra: era}).
				Connect(ctx, &mcp.CommandTransport{Command: exec.Command(argv[0], argv[1:]...), ShutdownGrace: 5 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			if got := cs.Stateless(); got != (era == mcp.EraStateless) {
				t.Fatalf("Stateless() = %v in the %v era", got, era)
			}

			var uris []string
			for s, err := range skills.List(ctx, cs) {
				if err != nil {
					t.Fatalf("List: %v", err)
				}
				uris = append(uris, s.URI)
				checkResources(t, "List "+s.URI, s.Resources, wantResources(files, s.URI))
			}
			if strings.Join(uris, " ") != strings.Join(listed, " ") {
				t.Errorf("List: %v, want %v", uris, listed)
			}

			s, err := skills.Get(ctx, cs, nested)
			if err != nil {
				t.Fatalf("Get: %v", err)
			}
			want := wantResources(files, nested)
			if len(want) != 2 {
				t.Fatalf("the source of %s has %d files, want SKILL.md and rules.md", nested, len(want))
			}
			checkResources(t, "Get", s.Resources, want)
			if fm := `{"name":"security","description":"A security pass over a change to an MCP server, nested in code-review.","metadata":{"author":"mcpkit"}}`; s.URI != nested || string(s.Frontmatter) != fm || s.Dynamic {
				t.Errorf("Get: %s %s dynamic=%v, want %s %s", s.URI, s.Frontmatter, s.Dynamic, nested, fm)
			}

			for u := range want {
				b, err := skills.ReadFile(ctx, cs, s, u)
				if err != nil || string(b) != string(files[u]) {
					t.Errorf("ReadFile %s: %q, %v; want %q", u, b, err, files[u])
				}
			}

			dir := t.TempDir()
			p, err := skills.Pull(ctx, cs, "reference-stdio", s, dir)
			if err != nil {
				t.Fatalf("Pull: %v", err)
			}
			if wantP, _ := skills.Path(dir, "reference-stdio", nested); p != wantP || p != filepath.Join(dir, "reference-stdio", "skill", "code-review", "security") {
				t.Errorf("Pull: %s, want %s", p, wantP)
			}
			pulled := map[string]string{}
			err = filepath.WalkDir(p, func(f string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				rel, _ := filepath.Rel(p, f)
				b, err := os.ReadFile(f)
				pulled["skill://code-review/security/"+filepath.ToSlash(rel)] = string(b)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(pulled) != len(want) {
				t.Errorf("Pull wrote %d files, want %d", len(pulled), len(want))
			}
			for u := range want {
				if got, ok := pulled[u]; !ok || got != string(files[u]) {
					t.Errorf("pulled %s: %q (present %v), want %q", u, got, ok, files[u])
				}
			}
		})
	}
}
