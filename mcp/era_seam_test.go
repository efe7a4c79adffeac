package mcp

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/build"
	"go/constant"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// isEraCodecFile reports whether name is one of the era codec files, the
// only files of the package that may tell the two eras apart
// (docs/architecture.md).
func isEraCodecFile(name string) bool {
	name = filepath.Base(name)
	return strings.HasPrefix(name, "era") || strings.HasPrefix(name, "client_era")
}

// A seamUse says where a file outside the era codec files may use one
// object declared in them, and why that is not a branch on the era.
type seamUse struct {
	files []string // the files that may use it; none: any file
	why   string
}

// seamAllowed lists, by name ("T.m" for a method or field of T), the
// objects of the era codec files that other files may use besides the
// methods of the era interfaces (era in era.go, clientEra in
// client_era.go): the seam's entries and the constructors they call, and
// plain data both eras share. The fields and methods of a type listed
// here may be used where the type may.
var seamAllowed = map[string]seamUse{
	// The seam itself.
	"Request.inEra":     {why: "the server's seam: the era serving a request"},
	"ClientSession.era": {why: "the client's seam: the era a session speaks"},
	"ask":               {why: "Request.CreateMessage, Elicit and ListRoots call inEra().ask through it"},
	"era":               {files: []string{"request.go"}, why: "Request.era holds the request's era; only inEra reads it"},
	"clientStatelessEra": {files: []string{"client_session.go"},
		why: "ClientSession.stateless holds a stateless-era session's era; only era() reads it"},

	// The entries: where a request or a session gets its era.
	"newSessionEra": {files: []string{"session.go"}, why: "the session era's entry (handleRequest, handleNotification) builds its Request"},
	"mayBeStateless": {files: []string{"session.go"},
		why: "handleRequest hands a request that may be the stateless era's to that era's entry"},
	"ServerSession.serveIfStateless": {files: []string{"session.go"}, why: "the stateless era's entry on a session"},
	"Server.serveStateless":          {files: []string{"host.go"}, why: "Host.ServeStateless, the stateless era's entry for transports"},
	"ServerSession.handleStateless":  {files: []string{"host.go"}, why: "Host.ServeStateless on a session"},
	"requestProtocolVersion": {files: []string{"host.go"},
		why: "Host.StatelessVersionOf, the transports' probe (mcphttp compares it with MCP-Protocol-Version)"},
	"rawProtocolVersion": {files: []string{"host.go"}, why: "as requestProtocolVersion, for a notification"},
	"newTaskWorkEra": {files: []string{"task_ext.go"},
		why: "the tasks extension's work runs in the era its constructor builds, not in the tools/call's"},
	"mayCallClient": {files: []string{"elicitation.go", "roots.go", "sampling.go", "session.go"},
		why: "ServerSession's own requests to the client fail with its error in a stateless-era request; the caller does not branch"},
	"ServerSession.acceptsBatches": {files: []string{"serve.go"},
		why: "the stdio loop asks the session whether it takes batches; the version test stays in era_session.go"},
	"ClientSession.start": {files: []string{"client.go"}, why: "Client.Connect starts a session in the era the options choose"},
	"probeKey": {files: []string{"client_timeout.go"},
		why: "the era probe's server/discover is not cancelled by notifications/cancelled, which a session-era server would get before initialize"},

	// Plain data both eras share.
	"ProtocolEra":  {files: []string{"client.go", "protocol.go"}, why: "the public name of an era, in ClientOptions and Versions"},
	"EraSession":   {files: []string{"protocol.go"}, why: "Versions lists an era's versions"},
	"EraStateless": {files: []string{"protocol.go"}, why: "Versions lists an era's versions"},
	"defaultProbeTimeout": {files: []string{"client.go"},
		why: "ClientOptions.ProbeTimeout's default, set with the other options"},
	"defaultMaxInputRounds": {files: []string{"client.go"},
		why: "ClientOptions.MaxInputRounds's default, set with the other options"},
	"serverHello": {why: "what clientEra.hello returns"},
	"CacheHint":   {why: "ServerOptions.CacheHint's result type"},
	"resultHead": {files: []string{"content.go", "list.go", "prompt_encode.go", "resource_encode.go", "task_ext.go"},
		why: "the head (resultType, cache hint, _meta) a result's encoder writes when statelessResponse passes one"},
	"decodeToolCall": {files: []string{"tool.go"}, why: "tools/call's params decoder, behind the seam"},
	"callMembers":    {files: []string{"prompt_decode.go"}, why: "the params decoder's members, shared with prompts/get's"},
	"plainMeta":      {files: []string{"prompt_decode.go"}, why: "as callMembers"},
	"metaMember":     {files: []string{"client_listen.go"}, why: "_meta of a notification's params, to match it to its subscriptions/listen"},
	"metaKeySubscriptionID": {files: []string{"client_listen.go", "listen.go"},
		why: "the _meta key of subscriptions/listen, a method only one era has"},
	"resultTypeTask": {files: []string{"task_ext.go"}, why: "the tasks extension's resultType, a wire name"},
	"statelessError": {files: []string{"task_ext.go"},
		why: "the tasks extension's task fails with the error shapes of the only era that has it"},
	"decodeObject": {files: []string{"task_ext.go"}, why: "splits a JSON object into members"},
	"rawMember":    {files: []string{"task_ext.go"}, why: "what decodeObject returns"},
}

// eraReporting lists the objects declared outside the era codec files
// that tell the eras apart, with the one file (where each is declared)
// that may use them.
var eraReporting = map[string]string{
	"statelessVersions":  "protocol.go",
	"sessionVersions":    "protocol.go",
	"isSessionVersion":   "protocol.go",
	"StatelessVersionOf": "host.go",
}

// versionShaped matches a constant that names a protocol version.
var versionShaped = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)

// checkPackage type-checks the package's non-test files, with extra
// (file name to source) added, against the export data of its imports,
// which go list builds.
func checkPackage(t *testing.T, extra map[string]string) (*token.FileSet, []*ast.File, *types.Package, *types.Info) {
	t.Helper()
	fset := token.NewFileSet()
	paths, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	imports := map[string]bool{}
	parse := func(name string, src any) {
		f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
		for _, spec := range f.Imports {
			path, err := strconv.Unquote(spec.Path.Value)
			if err != nil {
				t.Fatal(err)
			}
			if path != "unsafe" {
				imports[path] = true
			}
		}
	}
	for _, path := range paths {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		if ok, err := build.Default.MatchFile(".", path); err != nil {
			t.Fatal(err)
		} else if ok {
			parse(path, nil)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(extra)) {
		parse(name, extra[name])
	}
	if len(files) < 50 {
		t.Fatalf("found %d files; the package has more", len(files))
	}

	args := append([]string{"list", "-export", "-deps", "-f", "{{.ImportPath}}={{.Export}}"}, slices.Sorted(maps.Keys(imports))...)
	cmd := exec.Command("go", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -export: %v\n%s", err, stderr.Bytes())
	}
	exports := map[string]string{}
	for line := range strings.Lines(string(out)) {
		path, file, _ := strings.Cut(strings.TrimSpace(line), "=")
		exports[path] = file
	}
	lookup := func(path string) (io.ReadCloser, error) {
		if exports[path] == "" {
			return nil, fmt.Errorf("go list gave no export data for %s", path)
		}
		return os.Open(exports[path])
	}
	info := &types.Info{
		Types: map[ast.Expr]types.TypeAndValue{},
		Defs:  map[*ast.Ident]types.Object{},
		Uses:  map[*ast.Ident]types.Object{},
	}
	conf := types.Config{Importer: importer.ForCompiler(fset, "gc", lookup)}
	pkg, err := conf.Check("github.com/mcpkit/mcpkit/mcp", fset, files, info)
	if err != nil {
		t.Fatalf("type-checking the package: %v", err)
	}
	return fset, files, pkg, info
}

// seamCheck finds era branches in a type-checked package.
type seamCheck struct {
	fset   *token.FileSet
	pkg    *types.Package
	info   *types.Info
	ifaces []*types.Interface // era and clientEra
	// names holds "T.f" for the fields of the package's named struct types.
	names map[types.Object]string
	// storage holds the fields and package variables declared outside the
	// era files that hold an era.
	storage map[types.Object]bool
	// used records, for TestEraSeam, the seamAllowed entries used, by
	// "name file".
	used map[string]bool
}

func newSeamCheck(fset *token.FileSet, pkg *types.Package, info *types.Info) *seamCheck {
	c := &seamCheck{fset: fset, pkg: pkg, info: info, names: map[types.Object]string{},
		storage: map[types.Object]bool{}, used: map[string]bool{}}
	for _, name := range []string{"era", "clientEra"} {
		c.ifaces = append(c.ifaces, pkg.Scope().Lookup(name).Type().Underlying().(*types.Interface))
	}
	var eraTypes []*types.Named // the types that implement an era
	for _, name := range pkg.Scope().Names() {
		tn, ok := pkg.Scope().Lookup(name).(*types.TypeName)
		if !ok {
			continue
		}
		named, ok := tn.Type().(*types.Named)
		if !ok {
			continue
		}
		if st, ok := named.Underlying().(*types.Struct); ok {
			for f := range st.Fields() {
				c.names[f] = name + "." + f.Name()
			}
		}
		if _, ok := named.Underlying().(*types.Interface); !ok && c.isEraFile(tn) && c.implementsEra(named) {
			eraTypes = append(eraTypes, named)
		}
	}
	eraNamed := map[*types.TypeName]bool{}
	for _, name := range []string{"era", "clientEra"} {
		eraNamed[pkg.Scope().Lookup(name).(*types.TypeName)] = true
	}
	for _, t := range eraTypes {
		eraNamed[t.Obj()] = true
	}
	for _, obj := range info.Defs {
		v, ok := obj.(*types.Var)
		if ok && !c.isEraFile(v) && (v.IsField() || v.Parent() == pkg.Scope()) && mentions(v.Type(), eraNamed) {
			c.storage[obj] = true
		}
	}
	return c
}

// mentions reports whether t is, or is built from, a type named in set.
func mentions(t types.Type, set map[*types.TypeName]bool) bool {
	switch t := t.(type) {
	case *types.Named:
		if set[t.Obj()] {
			return true
		}
		for a := range t.TypeArgs().Types() {
			if mentions(a, set) {
				return true
			}
		}
	case *types.Pointer:
		return mentions(t.Elem(), set)
	case *types.Slice:
		return mentions(t.Elem(), set)
	case *types.Array:
		return mentions(t.Elem(), set)
	case *types.Chan:
		return mentions(t.Elem(), set)
	case *types.Map:
		return mentions(t.Key(), set) || mentions(t.Elem(), set)
	case *types.Struct:
		for f := range t.Fields() {
			if mentions(f.Type(), set) {
				return true
			}
		}
	case *types.Signature:
		for v := range t.Params().Variables() {
			if mentions(v.Type(), set) {
				return true
			}
		}
		for v := range t.Results().Variables() {
			if mentions(v.Type(), set) {
				return true
			}
		}
	}
	return false
}

func (c *seamCheck) implementsEra(t types.Type) bool {
	for _, iface := range c.ifaces {
		if types.Implements(t, iface) || types.Implements(types.NewPointer(t), iface) {
			return true
		}
	}
	return false
}

func (c *seamCheck) file(obj types.Object) string {
	return filepath.Base(c.fset.Position(obj.Pos()).Filename)
}

func (c *seamCheck) isEraFile(obj types.Object) bool { return isEraCodecFile(c.file(obj)) }

// name returns obj's name as seamAllowed spells it, and that of the type
// it is a member of ("" if none).
func (c *seamCheck) name(obj types.Object) (name, owner string) {
	if fn, ok := obj.(*types.Func); ok {
		if recv := fn.Signature().Recv(); recv != nil {
			t := recv.Type()
			if p, ok := t.(*types.Pointer); ok {
				t = p.Elem()
			}
			if named, ok := t.(*types.Named); ok {
				owner = named.Obj().Name()
				return owner + "." + fn.Name(), owner
			}
		}
	}
	if n, ok := c.names[obj]; ok {
		owner, _, _ = strings.Cut(n, ".")
		return n, owner
	}
	return obj.Name(), ""
}

// isSeamMethod reports whether obj is a method of era or clientEra.
func (c *seamCheck) isSeamMethod(obj types.Object) bool {
	fn, ok := obj.(*types.Func)
	if !ok {
		return false
	}
	for _, iface := range c.ifaces {
		for m := range iface.Methods() {
			if m == fn {
				return true
			}
		}
	}
	return false
}

// allowed reports whether file may use obj, an object of an era file.
func (c *seamCheck) allowed(obj types.Object, file string) bool {
	if c.isSeamMethod(obj) {
		return true
	}
	name, owner := c.name(obj)
	for _, key := range []string{name, owner} {
		use, ok := seamAllowed[key]
		if key == "" || !ok {
			continue
		}
		if len(use.files) == 0 || slices.Contains(use.files, file) {
			c.used[key+" "+file] = true
			return true
		}
	}
	return false
}

func kindOf(obj types.Object) string {
	switch obj := obj.(type) {
	case *types.TypeName:
		return "type"
	case *types.Const:
		return "const"
	case *types.Func:
		return "func"
	case *types.Var:
		if obj.IsField() {
			return "field"
		}
	}
	return "var"
}

// branches returns, by position, the era branches of f: a use of an object
// of an era file that seamAllowed does not list (a method of the era
// interfaces excepted), a use of a field or variable that holds an era, a
// use of an eraReporting object, a type assertion or switch on an era or a
// comparison with one, and a comparison with (or a case of) a constant
// that names a protocol version.
func (c *seamCheck) branches(f *ast.File) []string {
	file := filepath.Base(c.fset.Position(f.Pos()).Filename)
	var out []string
	report := func(n ast.Node, what string) {
		out = append(out, c.fset.Position(n.Pos()).String()+": "+what)
	}
	called := map[*ast.Ident]bool{}
	keyed := map[*ast.Ident]bool{} // the keys of composite literals
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			switch fun := ast.Unparen(n.Fun).(type) {
			case *ast.Ident:
				called[fun] = true
			case *ast.SelectorExpr:
				called[fun.Sel] = true
			case *ast.IndexExpr: // an instance of a generic function
				if id, ok := fun.X.(*ast.Ident); ok {
					called[id] = true
				}
			}
		case *ast.KeyValueExpr:
			if id, ok := n.Key.(*ast.Ident); ok {
				keyed[id] = true
			}
		}
		return true
	})
	isEra := func(e ast.Expr) bool {
		t := c.info.TypeOf(e)
		if t == nil {
			return false
		}
		for _, iface := range c.ifaces {
			if types.Identical(t.Underlying(), iface) {
				return true
			}
		}
		return false
	}
	version := func(e ast.Expr) (string, bool) {
		tv, ok := c.info.Types[e]
		if !ok || tv.Value == nil || tv.Value.Kind() != constant.String {
			return "", false
		}
		v := constant.StringVal(tv.Value)
		return v, versionShaped.MatchString(v)
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Ident:
			obj := c.info.Uses[n]
			if obj == nil || obj.Pkg() != c.pkg {
				break
			}
			name, _ := c.name(obj)
			switch {
			case c.storage[obj] && !(keyed[n] && c.allowedKey(obj, file)):
				report(n, fmt.Sprintf("uses %s, which holds an era (%s)", name, c.file(obj)))
			case !c.isEraFile(obj) && eraReporting[name] != "" && eraReporting[name] != file:
				report(n, fmt.Sprintf("uses %s, which tells the eras apart (%s)", name, c.file(obj)))
			case c.isEraFile(obj) && !c.allowed(obj, file):
				verb := "uses " + kindOf(obj)
				if called[n] {
					verb = "calls"
				}
				report(n, fmt.Sprintf("%s %s of %s", verb, name, c.file(obj)))
			}
		case *ast.TypeAssertExpr:
			if isEra(n.X) {
				if n.Type == nil {
					report(n, "switches on the era's type")
				} else {
					report(n, "type-asserts on the era")
				}
			}
		case *ast.BinaryExpr:
			switch n.Op {
			case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ:
			default:
				return true
			}
			if isEra(n.X) || isEra(n.Y) {
				report(n, "compares the era")
			}
			for _, e := range []ast.Expr{n.X, n.Y} {
				if v, ok := version(e); ok {
					report(n, fmt.Sprintf("compares with protocol version %q", v))
					break
				}
			}
		case *ast.SwitchStmt:
			if n.Tag != nil {
				if v, ok := version(n.Tag); ok {
					report(n.Tag, fmt.Sprintf("switches on protocol version %q", v))
				}
				if isEra(n.Tag) {
					report(n.Tag, "switches on the era")
				}
			}
		case *ast.CaseClause:
			for _, e := range n.List {
				if v, ok := version(e); ok {
					report(e, fmt.Sprintf("switches on protocol version %q", v))
				}
			}
		}
		return true
	})
	return out
}

// eraSetters lists the files that may set a field holding an era in a
// composite literal, by field: the entries that build a Request with its
// era (session.go for the session era, task_ext.go for a task's work; the
// stateless era's is in era_stateless.go).
var eraSetters = map[string][]string{
	"Request.era": {"session.go", "task_ext.go"},
}

// allowedKey reports whether file may set obj, a field that holds an era,
// in a composite literal.
func (c *seamCheck) allowedKey(obj types.Object, file string) bool {
	name, _ := c.name(obj)
	if slices.Contains(eraSetters[name], file) {
		c.used[name+" "+file] = true
		return true
	}
	return false
}

// TestEraSeam fails when a file of the package other than the era codec
// files (era*.go, client_era*.go) and the tests branches on the era: what
// differs by era goes behind the era interface (era.go) or the client's
// (client_era.go).
func TestEraSeam(t *testing.T) {
	fset, files, pkg, info := checkPackage(t, nil)
	c := newSeamCheck(fset, pkg, info)
	for _, f := range files {
		if isEraCodecFile(fset.Position(f.Pos()).Filename) {
			continue
		}
		for _, b := range c.branches(f) {
			t.Errorf("%s, move it behind the era seam (era.go, client_era.go)", b)
		}
	}
	// An entry no file uses any more goes.
	usedAnywhere := func(name string) bool {
		for k := range c.used {
			if strings.HasPrefix(k, name+" ") {
				return true
			}
		}
		return false
	}
	for _, name := range slices.Sorted(maps.Keys(seamAllowed)) {
		use := seamAllowed[name]
		if len(use.files) == 0 && !usedAnywhere(name) {
			t.Errorf("seamAllowed[%q] is used nowhere: drop it", name)
		}
		for _, file := range use.files {
			if !c.used[name+" "+file] {
				t.Errorf("seamAllowed[%q] lets %s use it, which it does not: drop the file", name, file)
			}
		}
	}
	for name, files := range eraSetters {
		for _, file := range files {
			if !c.used[name+" "+file] {
				t.Errorf("eraSetters[%q] lets %s set it, which it does not: drop the file", name, file)
			}
		}
	}
	if len(c.storage) == 0 {
		t.Error("found no field that holds an era; Request.era is one")
	}
}

// TestEraSeamFinds plants each kind of era branch in a file type-checked
// with the package, and checks the exact findings; the code of b, which
// goes through the seam, has none.
func TestEraSeamFinds(t *testing.T) {
	const src = `package mcp

import (
	"context"
	"errors"
	"slices"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

func a(ctx context.Context, r *Request, cs *ClientSession, req *jsonrpc.Request, err error) {
	if st, ok := r.inEra().(*statelessRequest); ok {
		_ = st
	}
	switch r.inEra().(type) {
	}
	if r.era == nil {
	}
	if r.Stateless() || cs.Stateless() {
	}
	if r.ProtocolVersion == Version20260728 {
	}
	switch r.ProtocolVersion {
	case Version20251125:
	}
	_ = Request{era: sessionEra{}}
	_ = isStatelessVersion(r.ProtocolVersion)
	_ = ctx.Value(statelessKey{})
	_ = sessionEra{}.log(ctx, r, LevelInfo, "", nil)
	if r.inEra() != nil {
	}
}

// The bypasses of a guard that matches names.
type holder struct{ mode era }

type sr = statelessRequest

func bypass(ctx context.Context, r *Request, cs *ClientSession, req *jsonrpc.Request, err error) {
	const v = Version20260728
	if r.ProtocolVersion == v {
	}
	if mayBeStateless(req) {
	}
	if r.ProtocolVersion != "2026-07-28" || r.ProtocolVersion >= "2026-01-01" {
	}
	switch "2025-11-25" {
	case r.ProtocolVersion:
	}
	var target *statelessRequest
	_ = errors.As(err, &target)
	if cs.stateless.Load() != nil {
	}
	_ = slices.Contains(statelessVersions, r.ProtocolVersion)
	_ = newSessionEra()
}

func b(ctx context.Context, r *Request, cs *ClientSession) {
	_ = r.inEra().log(ctx, r, LevelInfo, "", nil)
	e := r.inEra()
	_ = e.logEnabled(r, LevelInfo)
	_ = cs.era().lacks("x")
	_ = cs.era().hello(cs).version
	_, _ = ask[CreateMessageResult](ctx, r, nil)
	var hint CacheHint
	_ = hint
	if r.ProtocolVersion == "" {
	}
	switch r.Method {
	case "tools/call":
	}
}
`
	fset, files, pkg, info := checkPackage(t, map[string]string{"seam.go": src})
	c := newSeamCheck(fset, pkg, info)
	var got []string
	for _, f := range files {
		if fset.Position(f.Pos()).Filename == "seam.go" {
			got = c.branches(f)
		}
	}
	want := []string{
		"seam.go:12:15: type-asserts on the era",
		"seam.go:12:27: uses type statelessRequest of era_stateless.go",
		"seam.go:15:9: switches on the era's type",
		"seam.go:17:5: compares the era",
		"seam.go:17:7: uses Request.era, which holds an era (request.go)",
		"seam.go:19:7: calls Request.Stateless of era_stateless.go",
		"seam.go:19:25: calls ClientSession.Stateless of client_era_stateless.go",
		"seam.go:21:5: compares with protocol version \"2026-07-28\"",
		"seam.go:24:7: switches on protocol version \"2025-11-25\"",
		"seam.go:26:14: uses Request.era, which holds an era (request.go)",
		"seam.go:26:19: uses type sessionEra of era_session.go",
		"seam.go:27:6: calls isStatelessVersion of era_stateless.go",
		"seam.go:28:16: uses type statelessKey of era_stateless.go",
		"seam.go:29:6: uses type sessionEra of era_session.go",
		"seam.go:29:19: calls sessionEra.log of era_session.go",
		"seam.go:30:5: compares the era",
		"seam.go:35:26: uses type era of era.go",
		"seam.go:37:11: uses type statelessRequest of era_stateless.go",
		"seam.go:41:5: compares with protocol version \"2026-07-28\"",
		"seam.go:43:5: calls mayBeStateless of era_stateless.go",
		"seam.go:45:5: compares with protocol version \"2026-07-28\"",
		"seam.go:45:42: compares with protocol version \"2026-01-01\"",
		"seam.go:47:9: switches on protocol version \"2025-11-25\"",
		"seam.go:50:14: uses type statelessRequest of era_stateless.go",
		"seam.go:52:8: uses ClientSession.stateless, which holds an era (client_session.go)",
		"seam.go:54:22: uses statelessVersions, which tells the eras apart (protocol.go)",
		"seam.go:55:6: calls newSessionEra of era_session.go",
	}
	if !slices.Equal(got, want) {
		t.Errorf("found\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
