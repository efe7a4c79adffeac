package skills_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"testing/synctest"
	"time"

	"github.com/mcpkit/mcpkit/ext/skills"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
	"go.uber.org/goleak"
)

const (
	reviewMD = "---\nname: code-review\ndescription: Review changes.\nlicense: MIT\nmetadata:\n  zeta: \"1\"\n  alpha: \"2\"\n---\n# Review\n"
	nestedMD = "---\nname: security\ndescription: Security pass.\n---\nBody\n"
	notesMD  = "---\nname: release-notes\ndescription: Draft notes.\nallowed-tools: Bash(git log:*)\n---\nRun scripts/collect.sh\n"
	script   = "#!/bin/sh\necho hi\n"
)

func skillsFS() fstest.MapFS {
	return fstest.MapFS{
		"code-review/SKILL.md":             {Data: []byte(reviewMD)},
		"code-review/checklist.md":         {Data: []byte("- tests\n")},
		"code-review/security/SKILL.md":    {Data: []byte(nestedMD)},
		"code-review/empty":                {Mode: fs.ModeDir},
		"release-notes/SKILL.md":           {Data: []byte(notesMD)},
		"release-notes/scripts/collect.sh": {Data: []byte(script)},
		"release-notes/logo.bin":           {Data: []byte{0, 1, 2, 0xff}},
	}
}

func res(uri, content string) string {
	return fmt.Sprintf(`{"uri":%q,"digest":%q,"size":%d}`, uri, digest(content), len(content))
}

// conn serves srv over the in-memory transport and returns a function
// sending one raw frame and returning the raw answer.
func conn(t *testing.T, srv *mcp.Server) func(frame string) string {
	t.Helper()
	ignore := goleak.IgnoreCurrent()
	ctx, cancel := context.WithCancel(t.Context())
	clientT, serverT := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, serverT)
	if err != nil {
		t.Fatal(err)
	}
	c, err := clientT.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.Close()
		ss.Close()
		cancel()
		goleak.VerifyNone(t, ignore)
	})
	return func(frame string) string {
		t.Helper()
		if err := c.Write(ctx, []byte(frame)); err != nil {
			t.Fatal(err)
		}
		got, err := c.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return string(got)
	}
}

const (
	smeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"}}`
	info  = `"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}}`
	init_ = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`
)

func newServer(t *testing.T, fsys fs.FS, opts *skills.Options) (*mcp.Server, *skills.Server) {
	t.Helper()
	srv := mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"}, &mcp.ServerOptions{
		CacheHint: func(string) mcp.CacheHint { return mcp.CacheHint{TTL: 60e9, Scope: mcp.CachePublic} },
	})
	sk, err := skills.Serve(srv, fsys, opts)
	if err != nil {
		t.Fatal(err)
	}
	return srv, sk
}

// callBothEras runs the same call in both eras: want is the session era's
// result; the stateless era's adds resultType, the cache hint when
// cacheable, and the server's identity.
func callBothEras(t *testing.T, srv *mcp.Server, method, params, wantResult string, cacheable bool) {
	t.Helper()
	call := conn(t, srv)
	call(init_)
	got := call(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":%s}`, method, params))
	if want := `{"jsonrpc":"2.0","id":1,"result":` + wantResult + `}`; got != want {
		t.Errorf("session era %s:\n got %s\nwant %s", method, got, want)
	}
	sp := strings.Replace(params, "{", "{"+smeta+",", 1)
	if params == "{}" {
		sp = "{" + smeta + "}"
	}
	got = call(fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":%q,"params":%s}`, method, sp))
	head := `"resultType":"complete",`
	if cacheable {
		head += `"ttlMs":60000,"cacheScope":"public",`
	}
	want := `{"jsonrpc":"2.0","id":2,"result":{` + head + info + "," + wantResult[1:] + `}`
	if got != want {
		t.Errorf("stateless era %s:\n got %s\nwant %s", method, got, want)
	}
}

var (
	reviewEntry = `{"uri":"skill://code-review/SKILL.md","frontmatter":{"name":"code-review","description":"Review changes.","license":"MIT","metadata":{"zeta":"1","alpha":"2"}},"resources":[` +
		res("skill://code-review/SKILL.md", reviewMD) + "," + res("skill://code-review/checklist.md", "- tests\n") + "," + res("skill://code-review/security/SKILL.md", nestedMD) + `]}`
	nestedEntry = `{"uri":"skill://code-review/security/SKILL.md","frontmatter":{"name":"security","description":"Security pass."},"resources":[` + res("skill://code-review/security/SKILL.md", nestedMD) + `]}`
	notesEntry  = `{"uri":"skill://release-notes/SKILL.md","frontmatter":{"name":"release-notes","description":"Draft notes.","allowed-tools":"Bash(git log:*)"},"resources":[` +
		res("skill://release-notes/SKILL.md", notesMD) + "," + res("skill://release-notes/logo.bin", "\x00\x01\x02\xff") + "," + res("skill://release-notes/scripts/collect.sh", script) + `]}`
)

// TestCapability: the extension is declared with directoryRead, and the
// resources capability with it, in both eras.
func TestCapability(t *testing.T) {
	srv, _ := newServer(t, skillsFS(), nil)
	call := conn(t, srv)
	if got := call(init_); !strings.Contains(got, `"resources":{"subscribe":true,"listChanged":true},"extensions":{"io.modelcontextprotocol/skills":{"directoryRead":true}}`) {
		t.Errorf("initialize: %s", got)
	}
	if got := call(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + smeta + `}}`); !strings.Contains(got, `"resources":{"subscribe":true,"listChanged":true},"extensions":{"io.modelcontextprotocol/skills":{"directoryRead":true}}`) {
		t.Errorf("server/discover: %s", got)
	}
	// With no skill at all, resources is declared still.
	empty, _ := newServer(t, fstest.MapFS{}, nil)
	if got := conn(t, empty)(init_); !strings.Contains(got, `"resources":{"subscribe":true,"listChanged":true}`) {
		t.Errorf("no skill: initialize: %s", got)
	}
}

// TestList: skills/list returns every entry, nested skills flat, the
// frontmatter verbatim in its key order, resources complete (nested
// files in the enclosing skill's), SKILL.md first; ttlMs and cacheScope
// in the stateless era.
func TestList(t *testing.T) {
	srv, _ := newServer(t, skillsFS(), nil)
	callBothEras(t, srv, "skills/list", `{}`, `{"skills":[`+reviewEntry+","+nestedEntry+","+notesEntry+`]}`, true)
}

// TestListPagination: pages of PageSize entries, an entry never split,
// nextCursor passed back; a cursor that is not one is -32602.
func TestListPagination(t *testing.T) {
	srv, _ := newServer(t, skillsFS(), &skills.Options{PageSize: 2})
	call := conn(t, srv)
	call(init_)
	got := call(`{"jsonrpc":"2.0","id":1,"method":"skills/list"}`)
	var page skills.ListResult
	var resp struct{ Result json.RawMessage }
	if err := json.Unmarshal([]byte(got), &resp); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(resp.Result, &page); err != nil {
		t.Fatal(err)
	}
	if len(page.Skills) != 2 || page.NextCursor == "" {
		t.Fatalf("page 1: %s", got)
	}
	got = call(`{"jsonrpc":"2.0","id":2,"method":"skills/list","params":{"cursor":"` + page.NextCursor + `"}}`)
	if want := `{"jsonrpc":"2.0","id":2,"result":{"skills":[` + notesEntry + `]}}`; got != want {
		t.Errorf("page 2:\n got %s\nwant %s", got, want)
	}
	got = call(`{"jsonrpc":"2.0","id":3,"method":"skills/list","params":{"cursor":"!!"}}`)
	if want := `{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"skills/list: invalid cursor \"!!\""}}`; got != want {
		t.Errorf("bad cursor:\n got %s\nwant %s", got, want)
	}
	got = call(`{"jsonrpc":"2.0","id":4,"method":"skills/list","params":{"cursor":"` + strings.Repeat("a", 6000) + `"}}`)
	if want := `{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"skills/list: the cursor is longer than 5462 bytes"}}`; got != want {
		t.Errorf("long cursor:\n got %s\nwant %s", got, want)
	}
}

// TestGet: skills/get answers for every served skill, nested ones
// included, with the listing's entry; -32602 for anything else.
func TestGet(t *testing.T) {
	srv, _ := newServer(t, skillsFS(), &skills.Options{MaxURILength: 100})
	callBothEras(t, srv, "skills/get", `{"uri":"skill://code-review/security/SKILL.md"}`, `{"skill":`+nestedEntry+`}`, true)
	call := conn(t, srv)
	call(init_)
	for _, tc := range []struct{ params, want string }{
		{`{"uri":"skill://nope/SKILL.md"}`, `{"code":-32602,"message":"No skill is served at skill://nope/SKILL.md","data":{"uri":"skill://nope/SKILL.md"}}`},
		{`{"uri":"skill://code-review/checklist.md"}`, `{"code":-32602,"message":"No skill is served at skill://code-review/checklist.md","data":{"uri":"skill://code-review/checklist.md"}}`},
		{`{"uri":"skill://code-review"}`, `{"code":-32602,"message":"No skill is served at skill://code-review","data":{"uri":"skill://code-review"}}`},
		{`{}`, `{"code":-32602,"message":"skills/get: params.uri is required"}`},
		{`{"uri":"skill://` + strings.Repeat("a", 100) + `"}`, `{"code":-32602,"message":"skills/get: params.uri is longer than 100 bytes"}`},
		{`{"uri":5}`, `{"code":-32602,"message":"skills/get: invalid params: json: cannot unmarshal number into Go struct field GetParams.uri of type string"}`},
	} {
		got := call(`{"jsonrpc":"2.0","id":1,"method":"skills/get","params":` + tc.params + `}`)
		if want := `{"jsonrpc":"2.0","id":1,"error":` + tc.want + `}`; got != want {
			t.Errorf("%s:\n got %s\nwant %s", tc.params, got, want)
		}
	}
}

// TestReadDirectory: a directory's direct children, subdirectories as
// inode/directory, an empty directory empty, pages; -32602 for a file
// and for a URI that is nothing.
func TestServerReadDirectory(t *testing.T) {
	srv, _ := newServer(t, skillsFS(), nil)
	callBothEras(t, srv, "resources/directory/read", `{"uri":"skill://code-review"}`, `{"resources":[`+
		`{"uri":"skill://code-review/SKILL.md","name":"code-review","description":"Review changes.","mimeType":"text/markdown","size":112},`+
		`{"uri":"skill://code-review/checklist.md","name":"checklist.md","mimeType":"text/markdown","size":8},`+
		`{"uri":"skill://code-review/empty","name":"empty","mimeType":"inode/directory"},`+
		`{"uri":"skill://code-review/security","name":"security","mimeType":"inode/directory"}]}`, false)
	call := conn(t, srv)
	call(init_)
	for _, tc := range []struct{ params, want string }{
		{`{"uri":"skill://code-review/empty"}`, `"result":{"resources":[]}`},
		{`{"uri":"skill://release-notes/scripts"}`, `"result":{"resources":[{"uri":"skill://release-notes/scripts/collect.sh","name":"collect.sh","mimeType":"text/x-shellscript","size":18}]}`},
		{`{"uri":"skill://code-review/SKILL.md"}`, `"error":{"code":-32602,"message":"skill://code-review/SKILL.md is not a directory resource","data":{"uri":"skill://code-review/SKILL.md"}}`},
		{`{"uri":"skill://code-review/"}`, `"error":{"code":-32602,"message":"No directory resource is served at skill://code-review/","data":{"uri":"skill://code-review/"}}`},
		{`{"uri":"skill://nope"}`, `"error":{"code":-32602,"message":"No directory resource is served at skill://nope","data":{"uri":"skill://nope"}}`},
	} {
		got := call(`{"jsonrpc":"2.0","id":1,"method":"resources/directory/read","params":` + tc.params + `}`)
		if want := `{"jsonrpc":"2.0","id":1,` + tc.want + `}`; got != want {
			t.Errorf("%s:\n got %s\nwant %s", tc.params, got, want)
		}
	}
	// Pages of one child: each cursor leads to the next child.
	paged, _ := newServer(t, skillsFS(), &skills.Options{PageSize: 1})
	pcall := conn(t, paged)
	pcall(init_)
	var uris []string
	cursor := ""
	for range 10 {
		params := `{"uri":"skill://code-review"`
		if cursor != "" {
			params += `,"cursor":"` + cursor + `"`
		}
		var resp struct {
			Result skills.ReadDirectoryResult
		}
		if err := json.Unmarshal([]byte(pcall(`{"jsonrpc":"2.0","id":1,"method":"resources/directory/read","params":`+params+`}}`)), &resp); err != nil {
			t.Fatal(err)
		}
		if len(resp.Result.Resources) != 1 {
			t.Fatalf("page of %d", len(resp.Result.Resources))
		}
		uris = append(uris, resp.Result.Resources[0].URI)
		if cursor = resp.Result.NextCursor; cursor == "" {
			break
		}
	}
	if got := strings.Join(uris, " "); got != "skill://code-review/SKILL.md skill://code-review/checklist.md skill://code-review/empty skill://code-review/security" {
		t.Errorf("pages: %s", got)
	}
}

// TestRead: skill files are resources: SKILL.md text/markdown, a script
// its type, binary content a blob; a URI no skill serves is not found
// (-32002 in the session era, -32602 in the stateless era).
func TestRead(t *testing.T) {
	srv, _ := newServer(t, skillsFS(), nil)
	callBothEras(t, srv, "resources/read", `{"uri":"skill://code-review/SKILL.md"}`,
		`{"contents":[{"uri":"skill://code-review/SKILL.md","mimeType":"text/markdown","text":`+strings.ReplaceAll(fmt.Sprintf("%q", reviewMD), `\"`, `\"`)+`}]}`, true)
	call := conn(t, srv)
	call(init_)
	for _, tc := range []struct{ frame, want string }{
		{`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"skill://release-notes/scripts/collect.sh"}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"contents":[{"uri":"skill://release-notes/scripts/collect.sh","mimeType":"text/x-shellscript","text":"#!/bin/sh\necho hi\n"}]}}`},
		{`{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"skill://release-notes/logo.bin"}}`,
			`{"jsonrpc":"2.0","id":2,"result":{"contents":[{"uri":"skill://release-notes/logo.bin","mimeType":"application/octet-stream","blob":"AAEC/w=="}]}}`},
		{`{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"skill://release-notes/nope.md"}}`,
			`{"jsonrpc":"2.0","id":3,"error":{"code":-32002,"message":"Resource not found","data":{"uri":"skill://release-notes/nope.md"}}}`},
		{`{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{` + smeta + `,"uri":"skill://release-notes/nope.md"}}`,
			`{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"Resource not found","data":{"uri":"skill://release-notes/nope.md"}}}`},
	} {
		if got := call(tc.frame); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.frame, got, tc.want)
		}
	}
}

// TestRefused: skills that break the Agent Skills rules or a limit are
// reported at registration, each, and not served; the others are.
func TestRefused(t *testing.T) {
	fm := func(name string) *fstest.MapFile {
		return &fstest.MapFile{Data: []byte("---\nname: " + name + "\ndescription: d\n---\n")}
	}
	fsys := skillsFS()
	fsys["Bad_Name/SKILL.md"] = fm("Bad_Name")
	fsys["a--b/SKILL.md"] = fm("a--b")
	fsys["-a/SKILL.md"] = fm("-a")
	fsys[strings.Repeat("x", 65)+"/SKILL.md"] = fm(strings.Repeat("x", 65))
	fsys["other/SKILL.md"] = fm("different")
	fsys["nodesc/SKILL.md"] = &fstest.MapFile{Data: []byte("---\nname: nodesc\n---\n")}
	fsys["nofm/SKILL.md"] = &fstest.MapFile{Data: []byte("# no frontmatter\n")}
	fsys["open/SKILL.md"] = &fstest.MapFile{Data: []byte("---\nname: open\n")}
	fsys["link/SKILL.md"] = fm("link")
	fsys["link/out"] = &fstest.MapFile{Data: []byte("/etc/passwd"), Mode: fs.ModeSymlink}
	fsys["dup/SKILL.md"] = &fstest.MapFile{Data: []byte("---\nname: dup\nname: dup\ndescription: d\n---\n")}
	fsys["SKILL.md"] = fm("root")
	srv := mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"}, nil)
	sk, err := skills.Serve(srv, fsys, nil)
	var refused *skills.RefusedError
	if !errors.As(err, &refused) || sk == nil {
		t.Fatalf("Serve = %v, %v", sk, err)
	}
	want := `skills: 11 skill(s) refused, not served:
  -a: name "-a" starts or ends with a hyphen
  Bad_Name: name "Bad_Name" has characters other than lowercase letters, digits and hyphens
  .: SKILL.md is at the root of the FS: a skill is a directory, named as the skill
  a--b: name "a--b" has two hyphens in a row
  dup: frontmatter: line 3: key "name" is repeated
  link: link/out is not a regular file or a directory (L---------): only those are served
  nodesc: frontmatter has no description (a non-empty string)
  nofm: SKILL.md does not begin with a --- line opening its YAML frontmatter
  open: SKILL.md's frontmatter has no closing --- line
  other: frontmatter name "different" is not the directory's name "other"
  ` + strings.Repeat("x", 65) + `: name "` + strings.Repeat("x", 65) + `" is not 1 to 64 characters`
	if err.Error() != want {
		t.Errorf("error =\n%s\nwant\n%s", err, want)
	}
	var uris []string
	for _, e := range sk.Skills() {
		uris = append(uris, e.URI)
	}
	if got := strings.Join(uris, " "); got != "skill://code-review/SKILL.md skill://code-review/security/SKILL.md skill://release-notes/SKILL.md" {
		t.Errorf("served: %s", got)
	}
}

// TestLimits: a skill over 512 files or 16 MiB is refused before its
// files are hashed past the limit.
func TestLimits(t *testing.T) {
	fsys := fstest.MapFS{"many/SKILL.md": {Data: []byte("---\nname: many\ndescription: d\n---\n")}}
	for i := range skills.MaxResources {
		fsys[fmt.Sprintf("many/f%03d", i)] = &fstest.MapFile{Data: []byte("x")}
	}
	fsys["big/SKILL.md"] = &fstest.MapFile{Data: []byte("---\nname: big\ndescription: d\n---\n")}
	fsys["big/blob"] = &fstest.MapFile{Data: make([]byte, skills.MaxTotalSize)}
	fsys["fits/SKILL.md"] = &fstest.MapFile{Data: []byte("---\nname: fits\ndescription: d\n---\n")}
	fsys["fits/blob"] = &fstest.MapFile{Data: make([]byte, skills.MaxTotalSize-int(len("---\nname: fits\ndescription: d\n---\n")))}
	srv := mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"}, nil)
	sk, err := skills.Serve(srv, fsys, nil)
	want := "skills: 2 skill(s) refused, not served:\n  big: 16777249 bytes, more than the 16777216 a skill may have (Options.MaxSkillSize)\n  many: 513 files, more than the 512 a skill may have (Options.MaxSkillFiles)"
	if err == nil || err.Error() != want {
		t.Fatalf("Serve: %v\nwant %s", err, want)
	}
	if got := sk.Skills(); len(got) != 1 || got[0].URI != "skill://fits/SKILL.md" || len(got[0].Resources) != 2 {
		t.Errorf("served %+v", got)
	}
}

// TestFrontmatterBombs: an alias bomb and a SKILL.md without an end
// are refused with bounded work.
func TestFrontmatterBombs(t *testing.T) {
	bomb := "---\nname: bomb\ndescription: d\na: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n---\n"
	fsys := fstest.MapFS{
		"bomb/SKILL.md":  {Data: []byte(bomb)},
		"huge/SKILL.md":  {Data: []byte("---\nname: huge\ndescription: d\nx: \"" + strings.Repeat("y", 70<<10) + "\"\n---\n")},
		"nan/SKILL.md":   {Data: []byte("---\nname: nan\ndescription: d\nx: .nan\n---\n")},
		"merge/SKILL.md": {Data: []byte("---\nname: merge\ndescription: d\nbase: &b {k: v}\nm:\n  <<: *b\n---\n")},
	}
	srv := mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"}, nil)
	_, err := skills.Serve(srv, fsys, nil)
	want := "skills: 4 skill(s) refused, not served:\n" +
		"  bomb: frontmatter: more than 10000 YAML nodes once aliases are expanded\n" +
		"  huge: SKILL.md's frontmatter has no closing --- line within its first 65536 bytes\n" +
		"  merge: frontmatter: line 6: merge keys (<<) are not supported\n" +
		"  nan: frontmatter: line 4: .nan is not a JSON number"
	if err == nil || err.Error() != want {
		t.Errorf("Serve: %v\nwant %s", err, want)
	}
}

// TestRescan: a changed file gets its new digest, a new skill is served,
// a removed one is not, and resources/list follows.
func TestRescan(t *testing.T) {
	fsys := skillsFS()
	srv, sk := newServer(t, fsys, nil)
	fsys["code-review/checklist.md"] = &fstest.MapFile{Data: []byte("- more tests\n")}
	delete(fsys, "release-notes/SKILL.md")
	fsys["new-one/SKILL.md"] = &fstest.MapFile{Data: []byte("---\nname: new-one\ndescription: d\n---\n")}
	if err := sk.Rescan(); err != nil {
		t.Fatal(err)
	}
	got := sk.Skills()
	if len(got) != 3 || got[0].Resources[1].Digest != digest("- more tests\n") || got[2].URI != "skill://new-one/SKILL.md" {
		t.Errorf("after rescan: %+v", got)
	}
	call := conn(t, srv)
	call(init_)
	list := call(`{"jsonrpc":"2.0","id":1,"method":"resources/list"}`)
	if strings.Contains(list, "release-notes") || !strings.Contains(list, `"uri":"skill://new-one/SKILL.md"`) || !strings.Contains(list, `"uri":"skill://code-review/checklist.md","name":"checklist.md","mimeType":"text/markdown","size":13`) {
		t.Errorf("resources/list: %s", list)
	}
}

// TestHTTP serves the skills over Streamable HTTP in both eras, through
// mcp's client.
func TestHTTP(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
	srv, _ := newServer(t, skillsFS(), nil)
	h := mcphttp.NewHandler(srv, nil)
	defer h.Close()
	hs := httptest.NewServer(h)
	defer hs.Close()
	defer hs.Client().CloseIdleConnections()
	for _, era := range []mcp.ProtocolEra{mcp.EraSession, mcp.EraStateless} {
		cs, err := mcp.NewClient(mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{ProtocolEra: era}).
			Connect(t.Context(), &mcphttp.ClientTransport{URL: hs.URL, HTTPClient: hs.Client()})
		if err != nil {
			t.Fatal(err)
		}
		var got skills.GetResult
		if err := cs.Call(t.Context(), "skills/get", &skills.GetParams{URI: "skill://release-notes/SKILL.md"}, &got); err != nil {
			t.Fatalf("%v: %v", era, err)
		}
		b, _ := json.Marshal(got.Skill)
		if string(b) != notesEntry {
			t.Errorf("%v: %s", era, b)
		}
		cs.Close()
	}
}

// lockedFS is a MapFS that a test changes while a server reads it: each
// change replaces a file under mu, and Open (through which fs.WalkDir
// and the server read everything) takes mu.
type lockedFS struct {
	mu sync.Mutex
	m  fstest.MapFS
	// fail, if set, is what every Open returns.
	fail error
}

func (l *lockedFS) Open(name string) (fs.File, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.fail != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: l.fail}
	}
	return l.m.Open(name)
}

func (l *lockedFS) setFail(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.fail = err
}

func (l *lockedFS) set(name string, f *fstest.MapFile) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.m[name] = f
}

// TestWatch runs Watch in a synctest bubble, whose clock moves only when
// every goroutine in it is blocked (a time.Sleep there takes no real
// time): a tree left alone causes no rescan however many intervals pass;
// a change, even one that keeps the file's size, is picked up at the
// next tick, OnRescan sees the outcome and skills/list the new digest; a
// skill refused on the rescan reaches OnRescan as a *RefusedError; and
// Watch ends with the cause of its context's cancellation.
func TestWatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const interval = time.Minute
		fsys := &lockedFS{m: skillsFS()}
		outcomes := make(chan error, 10)
		var rescans []error
		// took returns every OnRescan outcome so far; called after
		// synctest.Wait, when Watch is blocked on its ticker.
		took := func() []error {
			for {
				select {
				case err := <-outcomes:
					rescans = append(rescans, err)
				default:
					return rescans
				}
			}
		}
		srv, sk := newServer(t, fsys, &skills.Options{OnRescan: func(err error) { outcomes <- err }})
		call := conn(t, srv)
		call(init_)
		ctx, cancel := context.WithCancelCause(t.Context())
		defer cancel(nil)
		done := make(chan error, 1)
		go func() { done <- sk.Watch(ctx, interval) }()

		time.Sleep(10*interval + interval/2)
		synctest.Wait()
		if got := took(); len(got) != 0 {
			t.Fatalf("an unchanged tree after 10 intervals: rescans %v, want none", got)
		}

		// Same size, new modification time: a change the digest shows.
		fsys.set("code-review/checklist.md", &fstest.MapFile{Data: []byte("- TESTS\n"), ModTime: time.Now()})
		time.Sleep(interval / 4) // still before the next tick
		synctest.Wait()
		if got := took(); len(got) != 0 {
			t.Fatalf("before the tick: rescans %v, want none", got)
		}
		list := call(`{"jsonrpc":"2.0","id":1,"method":"skills/list"}`)
		if !strings.Contains(list, res("skill://code-review/checklist.md", "- tests\n")) {
			t.Errorf("skills/list before the tick: %s", list)
		}
		time.Sleep(interval / 2) // past the tick
		synctest.Wait()
		if got := took(); len(got) != 1 || got[0] != nil {
			t.Fatalf("after the tick: rescans %v, want [<nil>]", got)
		}
		list = call(`{"jsonrpc":"2.0","id":2,"method":"skills/list"}`)
		if !strings.Contains(list, res("skill://code-review/checklist.md", "- TESTS\n")) || strings.Contains(list, digest("- tests\n")) {
			t.Errorf("skills/list after the tick: %s", list)
		}

		time.Sleep(5 * interval)
		synctest.Wait()
		if got := took(); len(got) != 1 {
			t.Fatalf("unchanged since the rescan: rescans %v, want 1", got)
		}

		// A new skill breaking the naming rules: refused, the others kept.
		fsys.set("Bad_Name/SKILL.md", &fstest.MapFile{Data: []byte("---\nname: Bad_Name\ndescription: d\n---\n")})
		time.Sleep(interval)
		synctest.Wait()
		var refused *skills.RefusedError
		if got := took(); len(got) != 2 || !errors.As(got[1], &refused) {
			t.Fatalf("after a refused skill: rescans %v, want a *RefusedError second", got)
		}
		if got := len(sk.Skills()); got != 3 {
			t.Errorf("served after the refusal: %d skills, want 3", got)
		}

		stop := errors.New("shutting down")
		cancel(stop)
		if err := <-done; err != stop {
			t.Errorf("Watch returned %v, want the cause %v", err, stop)
		}
		if got := took(); len(got) != 2 {
			t.Errorf("rescans after the cancellation: %v, want 2", got)
		}
	})
}

// TestWatchBackoff: while the FS cannot be read, Watch polls at 1, 2, 4,
// 8, 16 and then 32 intervals apart (skills.MaxWatchBackoff), each poll a
// failed rescan that OnRescan sees; the first poll after the FS is back
// succeeds and the polls are one interval apart again (a change is seen
// at the next tick). The times are the synctest bubble's, exact.
func TestWatchBackoff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const interval = time.Minute
		fsys := &lockedFS{m: skillsFS()}
		type outcome struct {
			at  time.Duration
			err error
		}
		start := time.Now()
		outcomes := make(chan outcome, 100)
		_, sk := newServer(t, fsys, &skills.Options{OnRescan: func(err error) { outcomes <- outcome{time.Since(start), err} }})
		took := func() (at []time.Duration, errs []error) {
			for {
				select {
				case o := <-outcomes:
					at, errs = append(at, o.at), append(errs, o.err)
				default:
					return at, errs
				}
			}
		}
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- sk.Watch(ctx, interval) }()

		down := errors.New("disk gone")
		time.Sleep(interval / 2)
		fsys.setFail(down)
		time.Sleep(100 * interval)
		synctest.Wait()
		at, errs := took()
		want := []time.Duration{1, 3, 7, 15, 31, 63, 95}
		for i := range want {
			want[i] *= interval
		}
		if !slices.Equal(at, want) {
			t.Errorf("rescans while the FS fails at %v, want %v", at, want)
		}
		for i, err := range errs {
			var refused *skills.RefusedError
			if !errors.Is(err, down) || errors.As(err, &refused) {
				t.Errorf("rescan %d: %v, want an error wrapping %v", i, err, down)
			}
		}
		if got := len(sk.Skills()); got != 3 {
			t.Errorf("served while the FS fails: %d skills, want the 3 from before", got)
		}

		fsys.setFail(nil) // at 100.5 intervals; the next poll is at 127
		time.Sleep(27 * interval)
		synctest.Wait()
		if at, errs = took(); !slices.Equal(at, []time.Duration{127 * interval}) || errs[0] != nil {
			t.Errorf("after the FS is back: rescans at %v: %v, want one at %v, nil", at, errs, 127*interval)
		}
		fsys.set("code-review/checklist.md", &fstest.MapFile{Data: []byte("- TESTS\n"), ModTime: time.Now()})
		time.Sleep(interval)
		synctest.Wait()
		if at, errs = took(); !slices.Equal(at, []time.Duration{128 * interval}) || errs[0] != nil {
			t.Errorf("a change after the recovery: rescans at %v: %v, want one at %v, nil", at, errs, 128*interval)
		}
		cancel()
		<-done
	})
}
