package mcp

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// isEraCodecFile reports whether name is one of the era codec files, the
// only files of the package that may tell the two eras apart
// (docs/architecture.md).
func isEraCodecFile(name string) bool {
	return strings.HasPrefix(name, "era") || strings.HasPrefix(name, "client_era")
}

// eraOnlyIdents are names that belong to one era's codec: a feature file
// that mentions one is asking which era it is in.
var eraOnlyIdents = map[string]string{
	"statelessRequest":   "the stateless era's request type",
	"sessionEra":         "the session era's type",
	"statelessKey":       "the stateless era's context mark",
	"isStatelessVersion": "the stateless era's version check",
}

// eraBranches returns, by position, the era branches f holds: a mention of
// an eraOnlyIdents name, a type assertion or switch on a Request's era, a
// read of the era field outside a call, a call of Request.Stateless, and a
// comparison with (or a case of) a protocol version constant.
func eraBranches(fset *token.FileSet, f *ast.File) []string {
	var out []string
	report := func(n ast.Node, what string) {
		out = append(out, fset.Position(n.Pos()).String()+": "+what)
	}
	called := make(map[ast.Expr]bool) // selectors that are the function of a call
	ast.Inspect(f, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok {
			called[c.Fun] = true
		}
		return true
	})
	isEra := func(e ast.Expr) bool {
		switch e := e.(type) {
		case *ast.SelectorExpr:
			return e.Sel.Name == "era"
		case *ast.CallExpr:
			if sel, ok := e.Fun.(*ast.SelectorExpr); ok {
				return sel.Sel.Name == "inEra" || sel.Sel.Name == "era"
			}
		}
		return false
	}
	isVersion := func(e ast.Expr) bool {
		if sel, ok := e.(*ast.SelectorExpr); ok {
			e = sel.Sel
		}
		id, ok := e.(*ast.Ident)
		return ok && strings.HasPrefix(id.Name, "Version2")
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Ident:
			if what, ok := eraOnlyIdents[n.Name]; ok {
				report(n, "mentions "+n.Name+", "+what)
			}
		case *ast.TypeAssertExpr:
			if isEra(n.X) {
				report(n, "type-asserts on the era")
			}
		case *ast.SelectorExpr:
			switch {
			case n.Sel.Name == "era" && !called[n]:
				report(n, "reads the era field instead of calling through it")
			case n.Sel.Name == "Stateless" && called[n]:
				report(n, "asks Stateless()")
			}
		case *ast.BinaryExpr:
			if (n.Op == token.EQL || n.Op == token.NEQ) && (isVersion(n.X) || isVersion(n.Y)) {
				report(n, "compares with a protocol version")
			}
		case *ast.CaseClause:
			for _, e := range n.List {
				if isVersion(e) {
					report(e, "switches on a protocol version")
				}
			}
		}
		return true
	})
	return out
}

// TestEraSeam fails when a file of the package other than the era codec
// files (era*.go, client_era*.go) and the tests branches on the era: what
// differs by era goes behind the era interface (era.go) or the client's
// (client_era.go).
func TestEraSeam(t *testing.T) {
	paths, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, path := range paths {
		if strings.HasSuffix(path, "_test.go") || isEraCodecFile(path) {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for _, b := range eraBranches(fset, f) {
			t.Errorf("%s (move it behind the era seam, era.go)", b)
		}
	}
	if checked < 50 {
		t.Fatalf("checked %d files; the package has more", checked)
	}
}

// TestEraSeamFinds checks that eraBranches finds each kind of branch it
// looks for, and nothing in code that goes through the seam.
func TestEraSeamFinds(t *testing.T) {
	const src = `package mcp

func a(r *Request) {
	if st, ok := r.era.(*statelessRequest); ok {
		_ = st
	}
	switch r.inEra().(type) {
	}
	if r.era == nil {
	}
	if r.Stateless() {
	}
	if r.ProtocolVersion == Version20260728 {
	}
	switch r.ProtocolVersion {
	case Version20251125:
	}
	_ = Request{era: sessionEra{}}
	_ = isStatelessVersion(r.ProtocolVersion)
	_ = ctx.Value(statelessKey{})
}

func b(ctx context.Context, r *Request, cs *ClientSession) {
	_ = r.inEra().log(ctx, r, LevelInfo, "", nil)
	_ = cs.era().lacks("x")
	_ = Request{era: newSessionEra()}
	if r.ProtocolVersion == "" {
	}
}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "seam.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(eraBranches(fset, f), "\n")
	want := strings.Join([]string{
		"seam.go:4:15: type-asserts on the era",
		"seam.go:4:15: reads the era field instead of calling through it",
		"seam.go:4:23: mentions statelessRequest, the stateless era's request type",
		"seam.go:7:9: type-asserts on the era",
		"seam.go:9:5: reads the era field instead of calling through it",
		"seam.go:11:5: asks Stateless()",
		"seam.go:13:5: compares with a protocol version",
		"seam.go:16:7: switches on a protocol version",
		"seam.go:18:19: mentions sessionEra, the session era's type",
		"seam.go:19:6: mentions isStatelessVersion, the stateless era's version check",
		"seam.go:20:16: mentions statelessKey, the stateless era's context mark",
	}, "\n")
	if got != want {
		t.Errorf("eraBranches found\n%s\nwant\n%s", got, want)
	}
}
