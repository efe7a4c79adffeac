// Package apitest lists the exported API of a Go package, declarations
// only, in a stable order, so that a test can compare it with a golden
// file and any change to what users can name is a reviewed decision
// (issue 16 of mcpkit: "Only what users need is exported").
//
// The listing follows go doc -all's order (constants, variables,
// functions, then each type with its constants, variables, constructors
// and methods, every group sorted by name) without doc text: struct fields
// and interface methods appear, unexported ones summarised by
// "// contains filtered or unexported fields" as go doc does.
package apitest

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/build"
	"go/doc"
	"go/format"
	"go/parser"
	"go/printer"
	"go/token"
	"path/filepath"
	"regexp"
	"strings"
)

// load parses the non-test Go files of the package in dir that the
// default build context selects, with or without their comments, and
// returns its documentation, reduced to exported names.
func load(dir string, comments bool) (*doc.Package, *token.FileSet, error) {
	bp, err := build.Default.ImportDir(dir, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("apitest: %s: %w", dir, err)
	}
	fset := token.NewFileSet()
	var mode parser.Mode
	if comments {
		mode = parser.ParseComments
	}
	var files []*ast.File
	for _, name := range bp.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, mode)
		if err != nil {
			return nil, nil, fmt.Errorf("apitest: %w", err)
		}
		files = append(files, f)
	}
	p, err := doc.NewFromFiles(fset, files, bp.ImportPath)
	if err != nil {
		return nil, nil, fmt.Errorf("apitest: %s: %w", dir, err)
	}
	return p, fset, nil
}

// Listing returns the exported API of the package in dir, declarations
// only, one blank line between declarations.
func Listing(dir string) (string, error) {
	p, fset, err := load(dir, false)
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "package %s\n", p.Name)
	decl := func(n ast.Node) error {
		// The blank lines the stripped comments leave are dropped and the
		// declaration formatted again, so that a comment's edit never
		// shows in the listing.
		var d bytes.Buffer
		if err := printer.Fprint(&d, fset, n); err != nil {
			return fmt.Errorf("apitest: %s: %w", dir, err)
		}
		var lines []string
		for _, l := range strings.Split(d.String(), "\n") {
			if strings.TrimSpace(l) != "" {
				lines = append(lines, l)
			}
		}
		src, err := format.Source([]byte(strings.Join(lines, "\n")))
		if err != nil {
			return fmt.Errorf("apitest: %s: %w", dir, err)
		}
		b.WriteByte('\n')
		b.Write(bytes.TrimSpace(src))
		b.WriteByte('\n')
		return nil
	}
	funcs := func(fs []*doc.Func) error {
		for _, f := range fs {
			f.Decl.Body = nil
			if err := decl(f.Decl); err != nil {
				return err
			}
		}
		return nil
	}
	values := func(vs []*doc.Value) error {
		for _, v := range vs {
			if err := decl(v.Decl); err != nil {
				return err
			}
		}
		return nil
	}
	if err := values(p.Consts); err != nil {
		return "", err
	}
	if err := values(p.Vars); err != nil {
		return "", err
	}
	if err := funcs(p.Funcs); err != nil {
		return "", err
	}
	for _, t := range p.Types {
		if err := decl(t.Decl); err != nil {
			return "", err
		}
		if err := values(t.Consts); err != nil {
			return "", err
		}
		if err := values(t.Vars); err != nil {
			return "", err
		}
		if err := funcs(t.Funcs); err != nil {
			return "", err
		}
		if err := funcs(t.Methods); err != nil {
			return "", err
		}
	}
	return b.String(), nil
}

// sourceFile matches a Go source file's name in prose.
var sourceFile = regexp.MustCompile(`\b[\w-]+\.go\b`)

// DocsNamingFiles returns, for the package in dir, each piece of godoc
// text (the package comment, the comment of an exported declaration, of
// an exported field or interface method) that names a source file, as
// "Name: file.go". Godoc is read by users who never see the files.
func DocsNamingFiles(dir string) ([]string, error) {
	p, _, err := load(dir, true)
	if err != nil {
		return nil, err
	}
	var found []string
	check := func(name, text string) {
		for _, m := range sourceFile.FindAllString(text, -1) {
			found = append(found, name+": "+m)
		}
	}
	fields := func(name string, n ast.Node) {
		ast.Inspect(n, func(n ast.Node) bool {
			if f, ok := n.(*ast.Field); ok {
				fname := name
				if len(f.Names) > 0 {
					fname += "." + f.Names[0].Name
				}
				for _, g := range []*ast.CommentGroup{f.Doc, f.Comment} {
					if g != nil {
						check(fname, g.Text())
					}
				}
			}
			return true
		})
	}
	check("package "+p.Name, p.Doc)
	values := func(vs []*doc.Value) {
		for _, v := range vs {
			check(strings.Join(v.Names, ","), v.Doc)
			for _, s := range v.Decl.Specs {
				if vs, ok := s.(*ast.ValueSpec); ok {
					for _, g := range []*ast.CommentGroup{vs.Doc, vs.Comment} {
						if g != nil {
							check(vs.Names[0].Name, g.Text())
						}
					}
				}
			}
		}
	}
	funcs := func(fs []*doc.Func) {
		for _, f := range fs {
			name := f.Name
			if f.Recv != "" {
				name = f.Recv + "." + f.Name
			}
			check(name, f.Doc)
		}
	}
	values(p.Consts)
	values(p.Vars)
	funcs(p.Funcs)
	for _, t := range p.Types {
		check(t.Name, t.Doc)
		fields(t.Name, t.Decl)
		values(t.Consts)
		values(t.Vars)
		funcs(t.Funcs)
		funcs(t.Methods)
	}
	return found, nil
}
