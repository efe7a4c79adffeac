package skills_test

import (
	"fmt"
	"testing/fstest"

	"github.com/mcpkit/mcpkit/ext/skills"
	"github.com/mcpkit/mcpkit/mcp"
)

// A server with one skill: its SKILL.md and a script, served as skill://
// resources and listed by skills/list. A directory on disk works the same
// through (*os.Root).FS().
func Example() {
	fsys := fstest.MapFS{
		"release-notes/SKILL.md":           {Data: []byte("---\nname: release-notes\ndescription: Write release notes from merged changes.\n---\nRun scripts/collect.sh, then group the changes.\n")},
		"release-notes/scripts/collect.sh": {Data: []byte("#!/bin/sh\ngit log --oneline \"$1..HEAD\"\n")},
	}
	s := mcp.NewServer(mcp.Implementation{Name: "notes", Version: "1.0.0"}, nil)
	sk, err := skills.Serve(s, fsys, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, skill := range sk.Skills() {
		fmt.Println(skill.URI, len(skill.Resources), "files")
	}
	// Output: skill://release-notes/SKILL.md 2 files
}
