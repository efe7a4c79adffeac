package skills_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/mcpkit/mcpkit/ext/skills"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	"go.uber.org/goleak"
)

// fixture is a server offering skills from a map of files, as a test
// describes it: entries built from the files, served by skills/list (in
// pages of pageSize), skills/get and resources/directory/read, with
// every resources/read recorded.
type fixture struct {
	files    map[string]string // resource URI -> content
	entries  []json.RawMessage // what skills/list serves; skills/get serves the ones that decode
	hidden   []json.RawMessage // served by skills/get only
	settings *skills.Settings  // nil: the extension is not declared
	pageSize int
	// repeat makes every skills/list and resources/directory/read page
	// name cursor "1".
	repeat bool
	// endless makes every skills/list and resources/directory/read page
	// empty, naming the cursor after the one it was asked for.
	endless bool
	// blob serves every file as a base64 blob.
	blob bool
	// served, if set, replaces the content served at a URI.
	served func(uri, content string) string

	mu       sync.Mutex
	reads    []string
	dirReads []string
}

func (f *fixture) readURIs() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.reads)
}

// digest is the spec's digest of s.
func digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// entry builds the entry of the skill at root from f.files: every file
// under root, SKILL.md first, with fm as its frontmatter.
func (f *fixture) entry(root, fm string) json.RawMessage {
	type res struct {
		URI    string `json:"uri"`
		Digest string `json:"digest"`
		Size   int    `json:"size"`
	}
	var rs []res
	var uris []string
	for uri := range f.files {
		if strings.HasPrefix(uri, root+"/") {
			uris = append(uris, uri)
		}
	}
	slices.Sort(uris)
	for _, uri := range uris {
		rs = append(rs, res{uri, digest(f.files[uri]), len(f.files[uri])})
	}
	b, err := json.Marshal(map[string]any{"uri": root + "/SKILL.md", "frontmatter": json.RawMessage(fm), "resources": rs})
	if err != nil {
		panic(err)
	}
	return b
}

// start serves f and returns a client session to it in the given era.
func (f *fixture) start(t *testing.T, era mcp.ProtocolEra) *mcp.ClientSession {
	t.Helper()
	s := mcp.NewServer(mcp.Implementation{Name: "skills-test", Version: "1.0.0"}, nil)
	for uri := range f.files {
		err := s.AddResource(&mcp.Resource{URI: uri, Name: uri}, func(_ context.Context, _ *mcp.Request, p *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
			f.mu.Lock()
			f.reads = append(f.reads, p.URI)
			f.mu.Unlock()
			content := f.files[p.URI]
			if f.served != nil {
				content = f.served(p.URI, content)
			}
			if f.blob {
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: p.URI, MIMEType: "application/octet-stream", BlobData: []byte(content)}}}, nil
			}
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: p.URI, Text: content}}}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if f.settings != nil {
		err := s.AddExtension(mcp.Extension{ID: skills.ID, Settings: f.settings, Methods: map[string]mcp.MethodHandler{
			"skills/list": func(_ context.Context, r *mcp.Request) (any, error) {
				var p skills.ListParams
				if len(r.Params) > 0 {
					if err := json.Unmarshal(r.Params, &p); err != nil {
						return nil, err
					}
				}
				start := 0
				if p.Cursor != "" {
					start, _ = strconv.Atoi(p.Cursor)
				}
				if f.endless {
					return map[string]any{"skills": []any{}, "nextCursor": strconv.Itoa(start + 1)}, nil
				}
				size := f.pageSize
				if size == 0 {
					size = len(f.entries) + 1
				}
				end := min(start+size, len(f.entries))
				res := map[string]any{"skills": f.entries[start:end]}
				if end < len(f.entries) {
					res["nextCursor"] = strconv.Itoa(end)
				}
				if f.repeat {
					res["nextCursor"] = "1"
				}
				return res, nil
			},
			"skills/get": func(_ context.Context, r *mcp.Request) (any, error) {
				var p skills.GetParams
				if err := json.Unmarshal(r.Params, &p); err != nil {
					return nil, err
				}
				for _, raw := range slices.Concat(f.entries, f.hidden) {
					var e struct {
						URI string `json:"uri"`
					}
					if json.Unmarshal(raw, &e) == nil && e.URI == p.URI {
						return map[string]json.RawMessage{"skill": raw}, nil
					}
				}
				return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "No skill is served at "+p.URI, nil)
			},
			"resources/directory/read": func(_ context.Context, r *mcp.Request) (any, error) {
				var p struct {
					URI    string `json:"uri"`
					Cursor string `json:"cursor"`
				}
				if err := json.Unmarshal(r.Params, &p); err != nil {
					return nil, err
				}
				f.mu.Lock()
				f.dirReads = append(f.dirReads, p.URI)
				f.mu.Unlock()
				if f.endless {
					n, _ := strconv.Atoi(p.Cursor)
					return map[string]any{"resources": []any{}, "nextCursor": strconv.Itoa(n + 1)}, nil
				}
				children := map[string]string{}
				for uri := range f.files {
					rest, ok := strings.CutPrefix(uri, p.URI+"/")
					if !ok {
						continue
					}
					if first, _, nested := strings.Cut(rest, "/"); nested {
						children[p.URI+"/"+first] = "inode/directory"
					} else {
						children[uri] = "text/markdown"
					}
				}
				var out []map[string]string
				for _, uri := range slices.Sorted(func(yield func(string) bool) {
					for k := range children {
						if !yield(k) {
							return
						}
					}
				}) {
					out = append(out, map[string]string{"uri": uri, "name": uri[strings.LastIndex(uri, "/")+1:], "mimeType": children[uri]})
				}
				res := map[string]any{"resources": out}
				if f.repeat {
					res["nextCursor"] = "1"
				}
				return res, nil
			},
		}})
		if err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	clientT, serverT := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, serverT)
	if err != nil {
		t.Fatal(err)
	}
	c := mcp.NewClient(mcp.Implementation{Name: "skills-test-client", Version: "1.0.0"}, &mcp.ClientOptions{ProtocolEra: era})
	cs, err := c.Connect(ctx, clientT)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Close()
		cancel()
	})
	return cs
}

// eras runs f in both protocol eras, checking for leaked goroutines.
func eras(t *testing.T, f func(t *testing.T, era mcp.ProtocolEra)) {
	for _, era := range []mcp.ProtocolEra{mcp.EraSession, mcp.EraStateless} {
		t.Run(era.String(), func(t *testing.T) {
			ignore := goleak.IgnoreCurrent()
			t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
			f(t, era)
		})
	}
}

const (
	pdfMD  = "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\n---\n\nSkill body.\n"
	pdfFM  = `{"name":"pdf-processing","description":"Extract, fill, and assemble PDF documents"}`
	formMD = "Supporting content.\n"
)

// pdfFixture is the skill skill://pdf-processing with SKILL.md, a
// reference and a script.
func pdfFixture() *fixture {
	f := &fixture{
		files: map[string]string{
			"skill://pdf-processing/SKILL.md":            pdfMD,
			"skill://pdf-processing/references/FORMS.md": formMD,
			"skill://pdf-processing/scripts/extract.py":  "print('x')\n",
		},
		settings: &skills.Settings{},
	}
	f.entries = []json.RawMessage{f.entry("skill://pdf-processing", pdfFM)}
	return f
}

func decode(t *testing.T, raw json.RawMessage) skills.Skill {
	t.Helper()
	var s skills.Skill
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestClientRequiresDeclaration(t *testing.T) {
	eras(t, func(t *testing.T, era mcp.ProtocolEra) {
		f := pdfFixture()
		f.settings = nil
		cs := f.start(t, era)
		s := decode(t, pdfFixture().entries[0])
		want := `skills: not declared by the server: the server's capabilities have no extensions["io.modelcontextprotocol/skills"]`
		for _, err := range skills.List(t.Context(), cs) {
			if !errors.Is(err, skills.ErrNotDeclared) || err.Error() != want {
				t.Errorf("List: %v, want %s", err, want)
			}
		}
		if _, err := skills.Get(t.Context(), cs, s.URI); !errors.Is(err, skills.ErrNotDeclared) {
			t.Errorf("Get: %v", err)
		}
		if _, err := skills.ReadFile(t.Context(), cs, s, s.URI); !errors.Is(err, skills.ErrNotDeclared) {
			t.Errorf("ReadFile: %v", err)
		}
		if _, err := skills.Pull(t.Context(), cs, "srv", s, t.TempDir()); !errors.Is(err, skills.ErrNotDeclared) {
			t.Errorf("Pull: %v", err)
		}
		if r := f.readURIs(); len(r) != 0 {
			t.Errorf("read %v", r)
		}

		// Declared without directoryRead: no resources/directory/read.
		g := pdfFixture()
		cs = g.start(t, era)
		for _, err := range skills.ReadDirectory(t.Context(), cs, "skill://pdf-processing") {
			want := "skills: not declared by the server: the server did not declare directoryRead, so resources/directory/read is not called"
			if err == nil || err.Error() != want {
				t.Errorf("ReadDirectory: %v, want %s", err, want)
			}
		}
		if len(g.dirReads) != 0 {
			t.Errorf("resources/directory/read was called: %v", g.dirReads)
		}
	})
}

func TestReadDirectory(t *testing.T) {
	eras(t, func(t *testing.T, era mcp.ProtocolEra) {
		f := pdfFixture()
		f.settings = &skills.Settings{DirectoryRead: true}
		cs := f.start(t, era)
		var got []string
		for r, err := range skills.ReadDirectory(t.Context(), cs, "skill://pdf-processing") {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, r.URI+" "+r.MIMEType)
		}
		want := []string{"skill://pdf-processing/SKILL.md text/markdown", "skill://pdf-processing/references inode/directory", "skill://pdf-processing/scripts inode/directory"}
		if !slices.Equal(got, want) {
			t.Errorf("got %q\nwant %q", got, want)
		}
	})
}

func TestListDoesNotRead(t *testing.T) {
	eras(t, func(t *testing.T, era mcp.ProtocolEra) {
		f := pdfFixture()
		f.files["skill://git/SKILL.md"] = "---\nname: git\ndescription: d\n---\n"
		f.entries = append(f.entries, f.entry("skill://git", `{"name":"git","description":"d"}`))
		f.pageSize = 1
		cs := f.start(t, era)
		var uris []string
		for s, err := range skills.List(t.Context(), cs) {
			if err != nil {
				t.Fatal(err)
			}
			uris = append(uris, s.URI)
		}
		if want := []string{"skill://pdf-processing/SKILL.md", "skill://git/SKILL.md"}; !slices.Equal(uris, want) {
			t.Errorf("listed %q, want %q", uris, want)
		}
		if r := f.readURIs(); len(r) != 0 {
			t.Errorf("listing read %v", r)
		}
	})
}

func TestListInvalidEntry(t *testing.T) {
	eras(t, func(t *testing.T, era mcp.ProtocolEra) {
		f := pdfFixture()
		f.entries = append([]json.RawMessage{json.RawMessage(`{"uri":"skill://x/SKILL.md","frontmatter":{"name":"x","description":"d"}}`)}, f.entries...)
		cs := f.start(t, era)
		var got []string
		for s, err := range skills.List(t.Context(), cs) {
			if err != nil {
				if !errors.Is(err, skills.ErrInvalidEntry) {
					t.Errorf("not ErrInvalidEntry: %v", err)
				}
				got = append(got, err.Error())
				continue
			}
			got = append(got, s.URI)
		}
		want := []string{
			`skills: invalid skill entry: skills/list: {"uri":"skill://x/SKILL.md","frontmatter":{"name":"x","description":"d"}}: skills: an entry has no resources`,
			"skill://pdf-processing/SKILL.md",
		}
		if !slices.Equal(got, want) {
			t.Errorf("got %q\nwant %q", got, want)
		}
	})
}

// drain runs seq to its end and returns what it yielded: an item as
// name(item), an error as its text, reporting one that does not wrap want.
func drain[T any](t *testing.T, seq iter.Seq2[T, error], name func(T) string, want error) []string {
	t.Helper()
	var got []string
	for v, err := range seq {
		if err != nil {
			if !errors.Is(err, want) {
				t.Errorf("not %v: %v", want, err)
			}
			got = append(got, err.Error())
			continue
		}
		got = append(got, name(v))
	}
	return got
}

func skillURI(s skills.Skill) string     { return s.URI }
func resourceURI(r *mcp.Resource) string { return r.URI }

func TestListRepeatedCursor(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
	f := pdfFixture()
	f.entries = append(f.entries, f.entries[0], f.entries[0])
	f.pageSize = 1
	f.repeat = true
	f.settings = &skills.Settings{DirectoryRead: true}
	cs := f.start(t, mcp.EraSession)
	got := drain(t, skills.List(t.Context(), cs), skillURI, skills.ErrTooManyPages)
	want := []string{"skill://pdf-processing/SKILL.md", "skill://pdf-processing/SKILL.md", `skills: too many pages: skills/list repeated the cursor "1" on page 2`}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}

	// resources/directory/read: the same check, its error naming no page.
	got = drain(t, skills.ReadDirectory(t.Context(), cs, "skill://pdf-processing/scripts"), resourceURI, skills.ErrTooManyPages)
	want = []string{"skill://pdf-processing/scripts/extract.py", "skill://pdf-processing/scripts/extract.py", `skills: too many pages: resources/directory/read skill://pdf-processing/scripts repeated the cursor "1"`}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

// TestListTooManyPages checks the bound skills.MaxListPages on List and
// ReadDirectory against a server whose every page names a new cursor.
func TestListTooManyPages(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
	f := pdfFixture()
	f.endless = true
	f.settings = &skills.Settings{DirectoryRead: true}
	cs := f.start(t, mcp.EraSession)
	got := drain(t, skills.List(t.Context(), cs), skillURI, skills.ErrTooManyPages)
	want := []string{"skills: too many pages: skills/list has more than 10000 pages (skills.MaxListPages)"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	got = drain(t, skills.ReadDirectory(t.Context(), cs, "skill://pdf-processing"), resourceURI, skills.ErrTooManyPages)
	want = []string{"skills: too many pages: resources/directory/read skill://pdf-processing has more than 10000 pages (skills.MaxListPages)"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if n := len(f.dirReads); n != skills.MaxListPages {
		t.Errorf("%d resources/directory/read calls, want %d", n, skills.MaxListPages)
	}
}

func TestGetUnlisted(t *testing.T) {
	eras(t, func(t *testing.T, era mcp.ProtocolEra) {
		f := pdfFixture()
		f.hidden, f.entries = f.entries, nil
		cs := f.start(t, era)
		for _, err := range skills.List(t.Context(), cs) {
			t.Fatalf("the listing is empty, got %v", err)
		}
		s, err := skills.Get(t.Context(), cs, "skill://pdf-processing/SKILL.md")
		if err != nil {
			t.Fatal(err)
		}
		if s.URI != "skill://pdf-processing/SKILL.md" || len(s.Resources) != 3 || string(s.Frontmatter) != pdfFM {
			t.Errorf("got %+v", s)
		}
		_, err = skills.Get(t.Context(), cs, "skill://nope/SKILL.md")
		var rpcErr *jsonrpc.Error
		if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams || rpcErr.Message != "No skill is served at skill://nope/SKILL.md" {
			t.Errorf("unknown skill: %v", err)
		}
		if _, err := skills.Get(t.Context(), cs, "skill://nope"); err == nil || err.Error() != `skills: "skill://nope" is not the URI of a SKILL.md` {
			t.Errorf("not a SKILL.md: %v", err)
		}
	})
}

func TestReadFileVerifies(t *testing.T) {
	eras(t, func(t *testing.T, era mcp.ProtocolEra) {
		f := pdfFixture()
		tamper := map[string]string{}
		f.served = func(uri, content string) string {
			if c, ok := tamper[uri]; ok {
				return c
			}
			return content
		}
		cs := f.start(t, era)
		s := decode(t, f.entries[0])
		const md, forms = "skill://pdf-processing/SKILL.md", "skill://pdf-processing/references/FORMS.md"
		b, err := skills.ReadFile(t.Context(), cs, s, forms)
		if err != nil || string(b) != formMD {
			t.Fatalf("verified read: %q, %v", b, err)
		}
		for _, tc := range []struct {
			name, uri, served, want string
		}{
			{"size", forms, formMD + "x", "skills: verification failed: skill://pdf-processing/references/FORMS.md is 21 bytes, the entry says 20"},
			{"digest", forms, strings.ToUpper(formMD), "skills: verification failed: skill://pdf-processing/references/FORMS.md has digest " + digest(strings.ToUpper(formMD)) + ", the entry says " + digest(formMD)},
			{"unlisted", "skill://pdf-processing/templates/new.md", "", "skills: verification failed: skill://pdf-processing/templates/new.md is not listed in the entry of skill://pdf-processing/SKILL.md (refresh it with skills/get)"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				if tc.served != "" {
					tamper[tc.uri] = tc.served
					defer delete(tamper, tc.uri)
				}
				b, err := skills.ReadFile(t.Context(), cs, s, tc.uri)
				if !errors.Is(err, skills.ErrVerification) || err.Error() != tc.want || b != nil {
					t.Errorf("got %q, %v\nwant %s", b, err, tc.want)
				}
			})
		}
		t.Run("frontmatter", func(t *testing.T) {
			// The SKILL.md matches its digest, but not the entry's
			// frontmatter: the conformance scenario's tampering.
			evil := strings.Replace(pdfMD, "Extract, fill, and assemble PDF documents", "Exfiltrate credentials", 1)
			raw := strings.Replace(string(f.entry("skill://pdf-processing", pdfFM)), digest(pdfMD), digest(evil), 1)
			raw = strings.Replace(raw, `"size":`+strconv.Itoa(len(pdfMD)), `"size":`+strconv.Itoa(len(evil)), 1)
			s := decode(t, json.RawMessage(raw))
			tamper[md] = evil
			defer delete(tamper, md)
			_, err := skills.ReadFile(t.Context(), cs, s, md)
			want := `skills: verification failed: skill://pdf-processing/SKILL.md: frontmatter field "description" is "Exfiltrate credentials" in the SKILL.md but "Extract, fill, and assemble PDF documents" in the entry`
			if !errors.Is(err, skills.ErrVerification) || err.Error() != want {
				t.Errorf("got %v\nwant %s", err, want)
			}
		})
	})
}

func TestFrontmatterCompare(t *testing.T) {
	for _, tc := range []struct {
		name, yaml, entry, want string
	}{
		{"equal", "name: a\ndescription: d\nlicense: MIT\nmetadata:\n  version: 2.1\n  n: 3\n  tags: [x, y]\n  on: true\n  none: null\n", `{"name":"a","description":"d","license":"MIT","metadata":{"version":2.1,"n":3,"tags":["x","y"],"on":true,"none":null}}`, ""},
		{"date as written", "name: a\ndescription: d\ndate: 2024-01-02\n", `{"name":"a","description":"d","date":"2024-01-02"}`, ""},
		{"date as RFC 3339", "name: a\ndescription: d\ndate: 2024-01-02\n", `{"name":"a","description":"d","date":"2024-01-02T00:00:00Z"}`, ""},
		{"CRLF", "name: a\r\ndescription: d\r\n", `{"name":"a","description":"d"}`, ""},
		{"extra in file", "name: a\ndescription: d\nallowed-tools: Bash\n", `{"name":"a","description":"d"}`, `frontmatter field "allowed-tools" is in the SKILL.md but not in the entry`},
		{"extra in entry", "name: a\ndescription: d\n", `{"name":"a","description":"d","license":"MIT"}`, `frontmatter field "license" is in the entry but not in the SKILL.md`},
		{"number vs string", "name: a\ndescription: d\nv: 1\n", `{"name":"a","description":"d","v":"1"}`, `frontmatter field "v" is 1 in the SKILL.md but "1" in the entry`},
		{"nested", "name: a\ndescription: d\nm:\n  k: [1, 2]\n", `{"name":"a","description":"d","m":{"k":[1,3]}}`, `frontmatter field "m"."k"[1] is 2 in the SKILL.md but 3 in the entry`},
		{"duplicate key", "name: a\nname: b\ndescription: d\n", `{"name":"a","description":"d"}`, `the SKILL.md's frontmatter: the key "name" appears twice (line 2)`},
		{"alias bomb", "a: &a [x,x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: [*e,*e,*e,*e,*e,*e,*e,*e,*e,*e]\nname: a\ndescription: d\n", `{"name":"a","description":"d"}`, `the SKILL.md's frontmatter: it expands to more than 100000 YAML nodes`},
		{"not a mapping", "- a\n", `{"name":"a","description":"d"}`, `the SKILL.md's frontmatter is not a YAML mapping`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md := "---\n" + tc.yaml + "---\nbody\n"
			if strings.Contains(tc.yaml, "\r\n") {
				md = "---\r\n" + tc.yaml + "---\r\nbody\r\n"
			}
			err := skills.CompareFrontmatter([]byte(md), json.RawMessage(tc.entry))
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("got %v", err)
			case tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.want)):
				t.Errorf("got %v\nwant %s", err, tc.want)
			}
		})
	}
	for _, md := range []string{"no frontmatter\n", "---\nname: a\n", ""} {
		if err := skills.CompareFrontmatter([]byte(md), json.RawMessage(`{}`)); err == nil {
			t.Errorf("%q: no error", md)
		}
	}
}

func TestCheckEntry(t *testing.T) {
	res := func(uri string) string {
		return fmt.Sprintf(`{"uri":%q,"digest":%q,"size":1}`, uri, digest("x"))
	}
	md := res("skill://a/SKILL.md")
	many := []string{md}
	for i := range skills.MaxResources {
		many = append(many, res(fmt.Sprintf("skill://a/f%d", i)))
	}
	for _, tc := range []struct{ entry, want string }{
		{`{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a","description":"d"},"resources":[` + md + `]}`, ""},
		{`{"uri":"skill://a/b/a/SKILL.md","frontmatter":{"name":"a","description":"d"},"resources":"dynamic"}`, ""},
		{`{"uri":"skill://a/README.md","frontmatter":{"name":"a","description":"d"},"resources":[]}`, `skills: invalid skill entry: uri "skill://a/README.md" does not end in /SKILL.md`},
		{`{"uri":"skill://a/SKILL.md","frontmatter":{"name":"b","description":"d"},"resources":[` + md + `]}`, `skills: invalid skill entry: skill://a/SKILL.md: the skill path ends in "a", not in the frontmatter's name "b"`},
		{`{"uri":"skill://a/SKILL.md","frontmatter":{"description":"d"},"resources":[` + md + `]}`, `skills: invalid skill entry: skill://a/SKILL.md: the frontmatter has no name`},
		{`{"uri":"skill://a/SKILL.md","frontmatter":[],"resources":[` + md + `]}`, `skills: invalid skill entry: skill://a/SKILL.md: the frontmatter is not a JSON object`},
		{`{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a","description":"d"},"resources":[]}`, `skills: invalid skill entry: skill://a/SKILL.md: its resources do not list the SKILL.md itself`},
		{`{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a","description":"d"},"resources":[` + md + `,` + md + `]}`, `skills: invalid skill entry: skill://a/SKILL.md lists "skill://a/SKILL.md" twice`},
		{`{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a","description":"d"},"resources":[` + md + `,` + res("skill://b/x") + `]}`, `skills: invalid skill entry: skill://a/SKILL.md lists "skill://b/x", which is not within the skill`},
		{`{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a","description":"d"},"resources":[` + md + `,` + res("skill://a/../b/x") + `]}`, `skills: invalid skill entry: skill://a/SKILL.md lists "skill://a/../b/x": the path segment ".." would leave the skill's directory`},
		{`{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a","description":"d"},"resources":[` + md + `,` + res("skill://a/%2E%2E/x") + `]}`, `skills: invalid skill entry: skill://a/SKILL.md lists "skill://a/%2E%2E/x": the path segment "%2E%2E" would leave the skill's directory`},
		{`{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a","description":"d"},"resources":[` + md + `,` + res("skill://a/x%2Fy") + `]}`, `skills: invalid skill entry: skill://a/SKILL.md lists "skill://a/x%2Fy": the path segment "x%2Fy" holds a slash, a backslash or NUL`},
		{`{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a","description":"d"},"resources":[` + md + `,` + res("skill://a/X") + `,` + res("skill://a/x") + `]}`, `skills: invalid skill entry: skill://a/SKILL.md lists "skill://a/X" and "skill://a/x", which differ only in case`},
		{`{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a","description":"d"},"resources":[{"uri":"skill://a/SKILL.md","digest":"sha256:ABC","size":1}]}`, `skills: invalid skill entry: skill://a/SKILL.md: the digest of "skill://a/SKILL.md" is "sha256:ABC", not sha256: and 64 lowercase hex digits`},
		{`{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a","description":"d"},"resources":[` + strings.Join(many, ",") + `]}`, `skills: over the per-skill limits: skill://a/SKILL.md lists 513 resources, more than the 512 a host must accept`},
		{`{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a","description":"d"},"resources":[` + md + `,{"uri":"skill://a/big","digest":"` + digest("") + `","size":16777216}]}`, `skills: over the per-skill limits: skill://a/SKILL.md: its files sum to more than the 16777216 bytes a host must accept`},
	} {
		err := skills.Check(decode(t, json.RawMessage(tc.entry)))
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || err.Error() != tc.want) {
			t.Errorf("%.90s:\n got %v\nwant %s", tc.entry, err, tc.want)
		}
	}
	// Exactly at the limits is accepted.
	atLimit := `{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a","description":"d"},"resources":[` + strings.Join(many[:skills.MaxResources-1], ",") + `,{"uri":"skill://a/big","digest":"` + digest("") + `","size":` + strconv.Itoa(skills.MaxTotalSize-(skills.MaxResources-1)) + `}]}`
	if err := skills.Check(decode(t, json.RawMessage(atLimit))); err != nil {
		t.Errorf("at the limits: %v", err)
	}
}

func TestPullLimits(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
	f := pdfFixture()
	var e map[string]any
	json.Unmarshal(f.entries[0], &e)
	rs := e["resources"].([]any)
	for i := range skills.MaxResources {
		rs = append(rs, map[string]any{"uri": fmt.Sprintf("skill://pdf-processing/f%d", i), "digest": digest(""), "size": 0})
	}
	e["resources"] = rs
	raw, _ := json.Marshal(e)
	cs := f.start(t, mcp.EraSession)
	_, err := skills.Pull(t.Context(), cs, "srv", decode(t, raw), t.TempDir())
	if !errors.Is(err, skills.ErrOverLimit) {
		t.Errorf("got %v", err)
	}
	if r := f.readURIs(); len(r) != 0 {
		t.Errorf("read %v before refusing", r)
	}
}

func TestPathOrigin(t *testing.T) {
	dir := filepath.FromSlash("/cache")
	for _, tc := range []struct{ server, uri, want string }{
		{"http://127.0.0.1:8080/mcp", "skill://acme/billing/refunds/SKILL.md", "/cache/http%3A%2F%2F127.0.0.1%3A8080%2Fmcp/skill/acme/billing/refunds"},
		{"docs", "skill://git-workflow/SKILL.md", "/cache/docs/skill/git-workflow"},
		{".hidden", "github://owner/repo/a%20b/SKILL.md", "/cache/%2Ehidden/github/owner/repo/a%20b"},
		{"..", "skill://%C3%A9t%C3%A9/SKILL.md", "/cache/%2E./skill/%C3%A9t%C3%A9"},
		{"docs", "skill://a%25b%3Fc~d!@/SKILL.md", "/cache/docs/skill/a%25b%3Fc~d%21%40"},
	} {
		p, err := skills.Path(dir, tc.server, tc.uri)
		if err != nil || p != filepath.FromSlash(tc.want) {
			t.Errorf("Path(%q, %q) = %q, %v; want %q", tc.server, tc.uri, p, err, tc.want)
			continue
		}
		server, uri, err := skills.Origin(dir, p)
		if err != nil || server != tc.server || uri != tc.uri {
			t.Errorf("Origin(%q) = %q, %q, %v; want %q, %q", p, server, uri, err, tc.server, tc.uri)
		}
	}
	for _, tc := range []struct{ server, uri, want string }{
		{"", "skill://a/SKILL.md", "skills: a server label is required to materialize a skill"},
		{"s", "skill://a", `skills: "skill://a" is not the URI of a SKILL.md`},
		{"s", "skill://a/../../SKILL.md", `skills: skill://a/../../SKILL.md: the path segment ".." would leave the skill's directory`},
		{"s", "a/SKILL.md", `skills: "a/SKILL.md" is not scheme://skill-path/SKILL.md`},
		{strings.Repeat("x", 256), "skill://a/SKILL.md", "skills: skill://a/SKILL.md: the path segment xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx... is 256 bytes escaped, more than a file name may be"},
	} {
		if _, err := skills.Path(dir, tc.server, tc.uri); err == nil || err.Error() != tc.want {
			t.Errorf("Path(%q, %q): %v, want %s", tc.server, tc.uri, err, tc.want)
		}
	}
}

// tree returns the files under dir with their contents and modes.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			out[filepath.ToSlash(rel)+"/"] = info.Mode().Perm().String()
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out[filepath.ToSlash(rel)] = info.Mode().Perm().String() + " " + string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestPullWritesFiles(t *testing.T) {
	eras(t, func(t *testing.T, era mcp.ProtocolEra) {
		f := pdfFixture()
		cs := f.start(t, era)
		dir := t.TempDir()
		s := decode(t, f.entries[0])
		p, err := skills.Pull(t.Context(), cs, "docs-server", s, dir)
		if err != nil {
			t.Fatal(err)
		}
		if want := filepath.Join(dir, "docs-server", "skill", "pdf-processing"); p != want {
			t.Errorf("path %s, want %s", p, want)
		}
		got := tree(t, filepath.Join(dir, "docs-server"))
		want := map[string]string{
			"./":                               "-rwxr-xr-x",
			"skill/":                           "-rwxr-xr-x",
			"skill/pdf-processing/":            "-rwxr-xr-x",
			"skill/pdf-processing/SKILL.md":    "-rw-r--r-- " + pdfMD,
			"skill/pdf-processing/references/": "-rwxr-xr-x",
			"skill/pdf-processing/references/FORMS.md": "-rw-r--r-- " + formMD,
			"skill/pdf-processing/scripts/":            "-rwxr-xr-x",
			"skill/pdf-processing/scripts/extract.py":  "-rw-r--r-- print('x')\n",
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("tree:\n got %v\nwant %v", got, want)
		}
		// SKILL.md was read first.
		if r := f.readURIs(); len(r) != 3 || r[0] != s.URI {
			t.Errorf("reads %v", r)
		}
	})
}

// Files served as base64 blobs are verified on their decoded bytes.
func TestPullBlobs(t *testing.T) {
	eras(t, func(t *testing.T, era mcp.ProtocolEra) {
		f := pdfFixture()
		f.blob = true
		cs := f.start(t, era)
		p, err := skills.Pull(t.Context(), cs, "srv", decode(t, f.entries[0]), t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(filepath.Join(p, "references", "FORMS.md")); err != nil || string(b) != formMD {
			t.Errorf("FORMS.md: %q, %v", b, err)
		}
		f.served = func(uri, content string) string { return content + "more" }
		_, err = skills.ReadFile(t.Context(), cs, decode(t, f.entries[0]), "skill://pdf-processing/references/FORMS.md")
		if want := "skills: verification failed: skill://pdf-processing/references/FORMS.md is 24 bytes, the entry says 20"; err == nil || err.Error() != want {
			t.Errorf("got %v, want %s", err, want)
		}
	})
}

func TestPullRefusesTampered(t *testing.T) {
	eras(t, func(t *testing.T, era mcp.ProtocolEra) {
		f := pdfFixture()
		f.served = func(uri, content string) string {
			if strings.HasSuffix(uri, "/SKILL.md") {
				return strings.Replace(content, "Skill body.", "Evil body!!", 1)
			}
			return content
		}
		cs := f.start(t, era)
		dir := t.TempDir()
		_, err := skills.Pull(t.Context(), cs, "srv", decode(t, f.entries[0]), dir)
		if !errors.Is(err, skills.ErrVerification) {
			t.Fatalf("got %v", err)
		}
		// Nothing after the SKILL.md was read, nothing written.
		if r := f.readURIs(); !slices.Equal(r, []string{"skill://pdf-processing/SKILL.md"}) {
			t.Errorf("reads %v", r)
		}
		if got := tree(t, dir); len(got) != 1 {
			t.Errorf("wrote %v", got)
		}
	})
}

func TestPullReplaces(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
	f := pdfFixture()
	cs := f.start(t, mcp.EraSession)
	dir := t.TempDir()
	s := decode(t, f.entries[0])
	p, err := skills.Pull(t.Context(), cs, "srv", s, dir)
	if err != nil {
		t.Fatal(err)
	}
	// A newer entry without the script: the script does not survive.
	delete(f.files, "skill://pdf-processing/scripts/extract.py")
	s2 := decode(t, f.entry("skill://pdf-processing", pdfFM))
	if _, err := skills.Pull(t.Context(), cs, "srv", s2, dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(p, "scripts")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("scripts/ survived: %v", err)
	}
	// A failed pull leaves the materialized skill as it was.
	before := tree(t, dir)
	f.served = func(uri, content string) string { return content + "!" }
	if _, err := skills.Pull(t.Context(), cs, "srv", s2, dir); !errors.Is(err, skills.ErrVerification) {
		t.Fatalf("got %v", err)
	}
	if after := tree(t, dir); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("changed by a failed pull:\n%v\n%v", before, after)
	}
}

func TestPullTwoServers(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
	dir := t.TempDir()
	a, b := pdfFixture(), pdfFixture()
	b.files["skill://pdf-processing/references/FORMS.md"] = "Other server.\n"
	b.entries = []json.RawMessage{b.entry("skill://pdf-processing", pdfFM)}
	pa, err := skills.Pull(t.Context(), a.start(t, mcp.EraSession), "server-a", decode(t, a.entries[0]), dir)
	if err != nil {
		t.Fatal(err)
	}
	pb, err := skills.Pull(t.Context(), b.start(t, mcp.EraStateless), "server-b", decode(t, b.entries[0]), dir)
	if err != nil {
		t.Fatal(err)
	}
	if pa == pb {
		t.Fatalf("one path for both servers: %s", pa)
	}
	for p, want := range map[string]string{pa: "server-a", pb: "server-b"} {
		server, uri, err := skills.Origin(dir, p)
		if err != nil || server != want || uri != "skill://pdf-processing/SKILL.md" {
			t.Errorf("Origin(%s) = %q, %q, %v", p, server, uri, err)
		}
	}
	ga, _ := os.ReadFile(filepath.Join(pa, "references", "FORMS.md"))
	gb, _ := os.ReadFile(filepath.Join(pb, "references", "FORMS.md"))
	if string(ga) != formMD || string(gb) != "Other server.\n" {
		t.Errorf("contents %q, %q", ga, gb)
	}
}

func TestPullDynamic(t *testing.T) {
	eras(t, func(t *testing.T, era mcp.ProtocolEra) {
		for _, directoryRead := range []bool{false, true} {
			f := pdfFixture()
			f.settings = &skills.Settings{DirectoryRead: directoryRead}
			f.entries = []json.RawMessage{json.RawMessage(`{"uri":"skill://pdf-processing/SKILL.md","frontmatter":` + pdfFM + `,"resources":"dynamic"}`)}
			cs := f.start(t, era)
			dir := t.TempDir()
			p, err := skills.Pull(t.Context(), cs, "srv", decode(t, f.entries[0]), dir)
			if err != nil {
				t.Fatal(err)
			}
			got := tree(t, p)
			want := 2 // ./ and SKILL.md
			if directoryRead {
				want = 6 // and references/, FORMS.md, scripts/, extract.py
			}
			if len(got) != want || got["SKILL.md"] != "-rw-r--r-- "+pdfMD {
				t.Errorf("directoryRead %v: %v", directoryRead, got)
			}
		}
	})
}
