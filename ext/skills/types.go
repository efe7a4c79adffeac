// Package skills implements the Skills extension of MCP
// (io.modelcontextprotocol/skills,
// https://github.com/modelcontextprotocol/ext-skills/blob/main/specification/stable/skills.mdx):
// a server serves Agent Skills (https://agentskills.io/specification) as
// resources, listed by skills/list and described by skills/get, and a
// client lists, verifies and pulls them. It is built on mcp's exported
// API only (mcp.Server.AddExtension and the resource calls).
//
// # Server MUSTs and their tests
//
// Serve serves the skills of an fs.FS. Each MUST of the spec on a server,
// and the test (server_test.go) that checks it:
//
//	A declaring server implements skills/list and skills/get  TestList, TestGet
//	directoryRead: true implements resources/directory/read  TestCapability, TestServerReadDirectory
//	A declaring server declares the resources capability      TestCapability (with no skill too)
//	A skill conforms to Agent Skills: SKILL.md at its root,
//	  frontmatter with name and description                    TestRefused
//	The final skill-path segment equals the frontmatter name  TestRefused ("other")
//	The name satisfies the Agent Skills naming rules          TestRefused (-a, Bad_Name, a--b, 65 x)
//	frontmatter identical in content to SKILL.md's            TestList (key order, nested maps)
//	uri's final segment equals frontmatter.name               TestList, TestRefused
//	resources complete, each once, SKILL.md's own included    TestList (nested files in the enclosing skill)
//	each resource uri is SKILL.md or within the skill         TestList
//	each resource carries size (the digest's bytes)           TestList, TestRescan
//	"dynamic" when digests cannot be stable                   not applicable: an FS's files are hashed
//	skills/list: resultType "complete", ttlMs, cacheScope      TestList (stateless era)
//	skills/get: params.uri a SKILL.md; -32602 otherwise        TestGet
//	skills/get answers for every served skill (nested too)    TestGet
//	skills/get: resultType "complete", ttlMs, cacheScope       TestGet (stateless era)
//	directory/read: resultType "complete"                      TestServerReadDirectory (stateless era)
//	directory/read: -32602 for a file or an unknown URI       TestServerReadDirectory
//	directory/read: every direct child, subdirectories
//	  as inode/directory, empty directory empty, pages        TestServerReadDirectory
//	directory/read on every directory of a served skill       TestServerReadDirectory (root, empty, scripts)
//	resources/read of an unserved skill file: not found       TestRead (-32002 session era, -32602 stateless)
//	Internal errors are -32603                                mcp (a non-jsonrpc error of a handler)
//	Served in both eras / stdio and HTTP                      TestHTTP (skills/get, Streamable HTTP);
//	                                                          cmd/mcpkit TestSkillsStdio (mcpkit serve
//	                                                          over stdio: list, get, read, pull)
//
// The 512-file and 16 MiB limits (SHOULD NOT serve beyond): TestLimits.
// Digests and sizes refreshed when the files change: TestRescan (a
// Rescan call), TestWatch (Watch, in a synctest bubble), TestWatchBackoff
// (its polls back off while the FS fails).
// Bounds on what a FS or a client can make the server hold:
// TestGiantFiles, TestFrontmatterBombs, TestListPagination, TestGet
// (docs/limits.md).
package skills

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpkit/mcpkit/internal/exactjson"
	"github.com/mcpkit/mcpkit/internal/jsonenc"
	"github.com/mcpkit/mcpkit/mcp"
)

// ID is the extension's identifier, declared under
// capabilities.extensions.
const ID = "io.modelcontextprotocol/skills"

// Settings is what a server declares under capabilities.extensions[ID]
// (the spec's "Capability Negotiation").
type Settings struct {
	// DirectoryRead is true when the server implements
	// resources/directory/read.
	DirectoryRead bool `json:"directoryRead,omitempty"`
}

// A Skill is one skill's entry, as skills/list and skills/get return it
// (the spec's "Skill Entries").
type Skill struct {
	// URI is the resource URI of the skill's SKILL.md.
	URI string `json:"uri"`
	// Frontmatter is the SKILL.md YAML frontmatter rendered verbatim as a
	// JSON object; name and description are always present.
	Frontmatter json.RawMessage `json:"frontmatter"`
	// Resources lists every file of the skill with its digest and size,
	// SKILL.md included; nil with Dynamic set when the content is
	// generated and has no stable digests.
	Resources []Resource `json:"-"`
	// Dynamic is true when the entry's resources is the string "dynamic".
	Dynamic bool `json:"-"`
}

// A Resource is one file of a skill (the spec's SkillResource).
type Resource struct {
	// URI is the file's resource URI.
	URI string `json:"uri"`
	// Digest is "sha256:" and the 64 lowercase hex digits of the SHA-256
	// of the file's raw bytes.
	Digest string `json:"digest"`
	// Size is the length in bytes of the file's raw content.
	Size int64 `json:"size"`
}

// Limits of one skill every conforming host accepts (the spec's
// "Limits").
const (
	// MaxResources is the most entries a skill's resources may have.
	MaxResources = 512
	// MaxTotalSize is the most bytes a skill's files may sum to.
	MaxTotalSize = 16 << 20
)

// MessageBytes is the MaxMessageBytes a client transport
// (mcphttp.ClientTransport, mcpsse.ClientTransport, mcp.CommandTransport, mcp.StdioTransport)
// needs for ReadFile and Pull to read any file within MaxTotalSize: the
// resources/read answer holds the file as a base64 blob (4/3 of its
// size) in JSON. A text file dense in characters JSON escapes may need
// more. The transports' default, 4 MiB, holds files up to about 3 MiB; a
// larger file fails with an error naming the option.
const MessageBytes = 24 << 20

// MarshalJSON encodes the entry with resources as an array, or as the
// string "dynamic" when Dynamic is set.
func (s Skill) MarshalJSON() ([]byte, error) {
	var resources any = "dynamic"
	if !s.Dynamic {
		r := s.Resources
		if r == nil {
			r = []Resource{}
		}
		resources = r
	}
	return jsonenc.Marshal(struct {
		URI         string          `json:"uri"`
		Frontmatter json.RawMessage `json:"frontmatter"`
		Resources   any             `json:"resources"`
	}{s.URI, s.Frontmatter, resources})
}

// UnmarshalJSON decodes an entry, member names exactly. An entry whose
// resources is missing, or neither an array nor "dynamic", is refused, as
// hosts must not load it (the spec's "Resources").
func (s *Skill) UnmarshalJSON(b []byte) error {
	var w struct {
		URI         string          `json:"uri"`
		Frontmatter json.RawMessage `json:"frontmatter"`
		Resources   json.RawMessage `json:"resources"`
	}
	if err := exactjson.Unmarshal(b, &w); err != nil {
		return err
	}
	out := Skill{URI: w.URI, Frontmatter: w.Frontmatter}
	switch {
	case len(w.Resources) == 0 || string(w.Resources) == "null":
		return errors.New("skills: an entry has no resources")
	case w.Resources[0] == '"':
		if string(w.Resources) != `"dynamic"` {
			return fmt.Errorf("skills: an entry's resources is %s, not an array or \"dynamic\"", w.Resources)
		}
		out.Dynamic = true
	case w.Resources[0] == '[':
		if err := exactjson.Unmarshal(w.Resources, &out.Resources); err != nil {
			return fmt.Errorf("skills: an entry's resources: %w", err)
		}
	default:
		return fmt.Errorf("skills: an entry's resources is %.40s, not an array or \"dynamic\"", w.Resources)
	}
	*s = out
	return nil
}

// ListParams are skills/list's params (the spec's "Listing Skills").
type ListParams struct {
	Meta   mcp.Meta `json:"_meta,omitempty"`
	Cursor string   `json:"cursor,omitempty"`
}

// ListResult is skills/list's result: a page of entries.
type ListResult struct {
	Meta       mcp.Meta `json:"_meta,omitempty"`
	Skills     []Skill  `json:"skills"`
	NextCursor string   `json:"nextCursor,omitempty"`
}

// GetParams are skills/get's params (the spec's "Getting a Skill").
type GetParams struct {
	Meta mcp.Meta `json:"_meta,omitempty"`
	// URI is the URI of the skill's SKILL.md.
	URI string `json:"uri"`
}

// GetResult is skills/get's result.
type GetResult struct {
	Meta  mcp.Meta `json:"_meta,omitempty"`
	Skill Skill    `json:"skill"`
}

// ReadDirectoryParams are resources/directory/read's params (the spec's
// "Reading Directories").
type ReadDirectoryParams struct {
	Meta mcp.Meta `json:"_meta,omitempty"`
	// URI is the directory resource's URI, without a trailing slash.
	URI    string `json:"uri"`
	Cursor string `json:"cursor,omitempty"`
}

// ReadDirectoryResult is resources/directory/read's result: a page of the
// directory's direct children, subdirectories with mime type
// DirectoryMIMEType.
type ReadDirectoryResult struct {
	Meta       mcp.Meta        `json:"_meta,omitempty"`
	Resources  []*mcp.Resource `json:"resources"`
	NextCursor string          `json:"nextCursor,omitempty"`
}
