package mcphttp

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestLayering: dependencies point one way, jsonrpc <- mcp <- mcphttp <-
// auth (DESIGN.md). Neither mcphttp nor any module package it imports,
// directly or not, imports package auth.
func TestLayering(t *testing.T) {
	const module = "github.com/mcpkit/mcpkit/"
	forbidden := module + "auth"
	seen := map[string]bool{module + "mcphttp": true}
	queue := []string{module + "mcphttp"}
	for len(queue) > 0 {
		pkg := queue[0]
		queue = queue[1:]
		dir := filepath.Join("..", filepath.FromSlash(strings.TrimPrefix(pkg, module)))
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			name := e.Name()
			if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, name), nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range f.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				if path == forbidden || strings.HasPrefix(path, forbidden+"/") {
					t.Errorf("%s (%s) imports %s", pkg, name, path)
				}
				if !seen[path] && strings.HasPrefix(path, module) {
					seen[path] = true
					queue = append(queue, path)
				}
			}
		}
	}
}
