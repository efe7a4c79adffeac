// Command skills-server serves the Agent Skills under a directory (the
// current one, or its argument) over stdio, with the Skills extension.
// Try it with the reference server's skills:
//
//	mcpkit skills list -- go run ./examples/skills-server internal/everything/skills
package main

import (
	"context"
	"log"
	"os"

	"github.com/mcpkit/mcpkit/ext/skills"
	"github.com/mcpkit/mcpkit/mcp"
)

func main() {
	dir := "."
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	root, err := os.OpenRoot(dir) // (*os.Root).FS does not follow links out of dir
	if err != nil {
		log.Fatal(err)
	}
	s := mcp.NewServer(mcp.Implementation{Name: "skills-server", Version: "1.0.0"}, nil)
	if _, err := skills.Serve(s, root.FS(), nil); err != nil {
		log.Fatal(err) // a *skills.RefusedError names each skill that breaks the rules
	}
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
