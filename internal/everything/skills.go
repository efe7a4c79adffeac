package everything

import (
	"embed"
	"io/fs"

	"github.com/mcpkit/mcpkit/ext/skills"
	"github.com/mcpkit/mcpkit/mcp"
)

// skillFiles are the reference server's skills: code-review, with the
// skill security nested in it, and release-notes, with a script.
//
//go:embed skills
var skillFiles embed.FS

// addSkills serves skillFiles with the Skills extension
// (https://github.com/modelcontextprotocol/ext-skills/blob/main/specification/stable/skills.mdx):
// the conformance suite's sep-2640-skills-* scenarios read them.
func addSkills(s *mcp.Server) {
	sub, err := fs.Sub(skillFiles, "skills")
	if err != nil {
		panic(err) // the embedded directory exists
	}
	if _, err := skills.Serve(s, sub, nil); err != nil {
		panic("everything: the embedded skills: " + err.Error())
	}
}
