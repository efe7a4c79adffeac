package skills

// The client (host) side of the Skills extension: listing and getting
// entries, reading a skill's files with verification, reading directories,
// and pulling a skill into a directory. Built on mcp.ClientSession's
// exported calls only.
//
// Client-side MUSTs of the spec and the tests that check them
// (specification/stable/skills.mdx; ext/skills/client_test.go unless
// said otherwise):
//
//	| MUST (section)                                                                                   | test                                                        |
//	|--------------------------------------------------------------------------------------------------|-------------------------------------------------------------|
//	| calls skills/list and skills/get only after observing the declaration (Capability Negotiation)     | TestClientRequiresDeclaration                                |
//	| no resources/directory/read without directoryRead: true (Capability Negotiation)                  | TestClientRequiresDeclaration, TestReadDirectory             |
//	| no DNS or network resolution of the skill:// authority (Resource Mapping)                          | by construction: URIs are only compared and mapped to paths  |
//	| an entry with no resources, or neither an array nor "dynamic", is not loaded (Resources)          | TestListInvalidEntry                                         |
//	| a read whose length differs from the entry's size is a verification failure (Resources)           | TestReadFileVerifies/size, conformance sep-2640-client-verify-size |
//	| a host supports skills up to 512 resources and 16 MiB (Limits); larger ones refused, said why      | TestCheckEntry, TestPullLimits                               |
//	| a partial listing is not proof of absence; a skill loads given only its URI (Listing Skills)      | TestGetUnlisted                                              |
//	| verify every retrieved file against digest and size; never use unverified content (Verification) | TestReadFileVerifies, TestPullRefusesTampered, conformance sep-2640-client-verify-digest |
//	| reads only of URIs listed in the held entry; an unlisted one is a verification failure            | TestReadFileVerifies/unlisted                                |
//	| parse the SKILL.md frontmatter, compare field by field, do not load on a discrepancy              | TestFrontmatterCompare, TestReadFileVerifies/frontmatter, conformance sep-2640-client-verify-frontmatter |
//	| no retrieval ahead of need: not on connection, listing or approval (Lazy Retrieval)               | TestListDoesNotRead, conformance sep-2640-client-no-prefetch |
//	| a directory result never extends the manifest (Directory Reads and the Held Entry)                | TestReadFileVerifies/unlisted (ReadFile answers from the entry only) |
//	| the materialized path encodes server identity and URI; server recoverable (Skill URIs)            | TestPathOrigin, TestPullTwoServers                           |
//	| identity never keyed on the uri alone; host-assigned label, not serverInfo.name (Security)       | TestPullTwoServers (Pull takes the host's label)             |
//	| a disk cache: never modified in place (Cache integrity)                                          | TestPullReplaces (a pull writes a new tree, then swaps it in) |
//	| no implicit local execution: scripts are written without execute permission (Security)           | TestPullWritesFiles                                          |
//	| both eras / stdio: List, Get, ReadFile, Pull of a nested skill of mcpkit serve, digests checked  | cmd/mcpkit TestSkillsStdio                                  |
//
// Requirements on what a host does with loaded content (approval, origin
// tags in model context, allowed-tools) are the application's; the
// package gives it the server label in every path and refuses what it
// cannot verify.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"iter"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/mcpkit/mcpkit/internal/exactjson"
	"github.com/mcpkit/mcpkit/mcp"
	"go.yaml.in/yaml/v3"
)

var (
	// ErrNotDeclared is wrapped by the error of every call against a
	// server that did not declare the extension, or not directoryRead for
	// ReadDirectory (the spec's "Capability Negotiation"); nothing was
	// sent.
	ErrNotDeclared = errors.New("skills: not declared by the server")
	// ErrVerification is wrapped by the error of a read whose content does
	// not match the held entry: a size or digest mismatch, a SKILL.md
	// whose frontmatter differs from the entry's, or a file the entry does
	// not list (the spec's "Integrity and Verification"). The content is
	// not returned.
	ErrVerification = errors.New("skills: verification failed")
	// ErrInvalidEntry is wrapped by the error for an entry a host must not
	// load: one that does not decode, a uri that is not a SKILL.md, a
	// frontmatter whose name is not the skill path's last segment, a
	// resource outside the skill or listed twice, a malformed digest.
	ErrInvalidEntry = errors.New("skills: invalid skill entry")
	// ErrOverLimit is wrapped by the error for a skill over MaxResources
	// entries or MaxTotalSize bytes (the spec's "Limits"), found from the
	// entry before any file is read, or, for a dynamic skill, while it is
	// read.
	ErrOverLimit = errors.New("skills: over the per-skill limits")
	// ErrTooManyPages is wrapped by the error List yields when the
	// listing has more than MaxListPages pages, or repeats a cursor.
	ErrTooManyPages = errors.New("skills: too many pages")
)

// MaxListPages is the most pages one List iteration asks for.
const MaxListPages = 10000

// maxFrontmatterNodes bounds the YAML nodes a frontmatter may expand to,
// aliases counted each time they are used; maxFrontmatterDepth bounds its
// nesting.
const (
	maxFrontmatterNodes = 100000
	maxFrontmatterDepth = 100
)

// Declared returns the extension's settings as the server of cs declared
// them, or an error wrapping ErrNotDeclared.
func Declared(cs *mcp.ClientSession) (Settings, error) {
	caps := cs.ServerCapabilities()
	if caps == nil {
		return Settings{}, fmt.Errorf("%w: the server declared no capabilities", ErrNotDeclared)
	}
	raw, ok := caps.Extensions[ID]
	if !ok {
		return Settings{}, fmt.Errorf("%w: the server's capabilities have no extensions[%q]", ErrNotDeclared, ID)
	}
	var s Settings
	if err := exactjson.Unmarshal(raw, &s); err != nil {
		return Settings{}, fmt.Errorf("%w: extensions[%q] is %.60s: %w", ErrNotDeclared, ID, raw, err)
	}
	return s, nil
}

// List iterates over the server's skills, page after page of skills/list
// (the spec's "Listing Skills"), reading no file. An entry that does not
// decode is yielded as an error wrapping ErrInvalidEntry and the listing
// goes on; any other error ends it. An empty or partial listing is not
// proof that a skill does not exist: Get loads one by URI.
func List(ctx context.Context, cs *mcp.ClientSession) iter.Seq2[Skill, error] {
	return func(yield func(Skill, error) bool) {
		if _, err := Declared(cs); err != nil {
			yield(Skill{}, err)
			return
		}
		fetch := func(cursor string) ([]json.RawMessage, string, error) {
			var res struct {
				Skills     []json.RawMessage `json:"skills"`
				NextCursor string            `json:"nextCursor"`
			}
			err := cs.Call(ctx, "skills/list", ListParams{Cursor: cursor}, &res)
			return res.Skills, res.NextCursor, err
		}
		for raw, err := range pages("skills/list", true, fetch) {
			if err != nil {
				yield(Skill{}, err)
				return
			}
			var s Skill
			if err := exactjson.Unmarshal(raw, &s); err != nil {
				if !yield(Skill{}, fmt.Errorf("%w: skills/list: %.80s: %w", ErrInvalidEntry, raw, err)) {
					return
				}
				continue
			}
			if !yield(s, nil) {
				return
			}
		}
	}
}

// Get returns the entry of the skill whose SKILL.md is at uri, by
// skills/get (the spec's "Getting a Skill"): whether or not the server
// lists it. A server that serves no such skill answers -32602, returned
// as a *jsonrpc.Error.
func Get(ctx context.Context, cs *mcp.ClientSession, uri string) (Skill, error) {
	if _, err := Declared(cs); err != nil {
		return Skill{}, err
	}
	if !strings.HasSuffix(uri, "/SKILL.md") {
		return Skill{}, fmt.Errorf("skills: %q is not the URI of a SKILL.md", uri)
	}
	var res GetResult
	if err := cs.Call(ctx, "skills/get", GetParams{URI: uri}, &res); err != nil {
		return Skill{}, fmt.Errorf("skills/get %s: %w", uri, err)
	}
	if res.Skill.URI != uri {
		return Skill{}, fmt.Errorf("%w: skills/get %s answered the entry of %q", ErrInvalidEntry, uri, res.Skill.URI)
	}
	return res.Skill, nil
}

// ReadDirectory iterates over the direct children of the directory
// resource at uri, page after page of resources/directory/read (the spec's
// "Reading Directories"). It sends nothing, and yields an error wrapping
// ErrNotDeclared, unless the server declared directoryRead: true. A
// directory read never adds files to a held entry: ReadFile answers from
// the entry alone.
func ReadDirectory(ctx context.Context, cs *mcp.ClientSession, uri string) iter.Seq2[*mcp.Resource, error] {
	return func(yield func(*mcp.Resource, error) bool) {
		s, err := Declared(cs)
		if err == nil && !s.DirectoryRead {
			err = fmt.Errorf("%w: the server did not declare directoryRead, so resources/directory/read is not called", ErrNotDeclared)
		}
		if err != nil {
			yield(nil, err)
			return
		}
		fetch := func(cursor string) ([]*mcp.Resource, string, error) {
			params := struct {
				URI    string `json:"uri"`
				Cursor string `json:"cursor,omitempty"`
			}{uri, cursor}
			var res struct {
				Resources  []*mcp.Resource `json:"resources"`
				NextCursor string          `json:"nextCursor"`
			}
			err := cs.Call(ctx, "resources/directory/read", params, &res)
			return res.Resources, res.NextCursor, err
		}
		for r, err := range pages("resources/directory/read "+uri, false, fetch) {
			if err != nil {
				yield(nil, err)
				return
			}
			if r != nil && !yield(r, nil) {
				return
			}
		}
	}
}

// pages iterates over the items of a paged call (List's skills/list,
// ReadDirectory's resources/directory/read), asking fetch for the page
// after each cursor until one names no next cursor. It ends with an error
// wrapping ErrTooManyPages after MaxListPages pages or at a cursor it was
// given before, and with fetch's error wrapped. what names the call in
// those errors; namePage adds the page to the repeated cursor's.
func pages[T any](what string, namePage bool, fetch func(cursor string) ([]T, string, error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		seed := maphash.MakeSeed()
		seen := map[uint64]bool{}
		cursor := ""
		for page := 1; ; page++ {
			if page > MaxListPages {
				yield(zero, fmt.Errorf("%w: %s has more than %d pages (skills.MaxListPages)", ErrTooManyPages, what, MaxListPages))
				return
			}
			items, next, err := fetch(cursor)
			if err != nil {
				yield(zero, fmt.Errorf("%s: %w", what, err))
				return
			}
			for _, it := range items {
				if !yield(it, nil) {
					return
				}
			}
			if next == "" {
				return
			}
			h := maphash.String(seed, next)
			if seen[h] {
				at := ""
				if namePage {
					at = fmt.Sprintf(" on page %d", page)
				}
				yield(zero, fmt.Errorf("%w: %s repeated the cursor %.64q%s", ErrTooManyPages, what, next, at))
				return
			}
			seen[h] = true
			cursor = next
		}
	}
}

// An entryFile is one entry of a checked skill: its URI and its path relative
// to the skill's root, as /-separated decoded segments.
type entryFile struct {
	res Resource
	rel []string
}

// checked is an entry that passed Check: its root URI (the SKILL.md URI
// without "/SKILL.md") and its files, SKILL.md first.
type checked struct {
	root  string
	files []entryFile
}

// Check checks an entry as a host must before loading it, from the entry
// alone: its uri names a SKILL.md, its frontmatter is an object whose
// name is the skill path's last segment, and (unless it is dynamic) its
// resources list SKILL.md and files within the skill, each once, with
// well-formed digests, within MaxResources and MaxTotalSize. Errors wrap
// ErrInvalidEntry or ErrOverLimit.
func Check(s Skill) error {
	_, err := check(s)
	return err
}

func check(s Skill) (*checked, error) {
	root, ok := strings.CutSuffix(s.URI, "/SKILL.md")
	if !ok {
		return nil, fmt.Errorf("%w: uri %q does not end in /SKILL.md", ErrInvalidEntry, s.URI)
	}
	_, rest, ok := strings.Cut(root, "://")
	if !ok || rest == "" || strings.ContainsAny(root, "?#") {
		return nil, fmt.Errorf("%w: uri %q is not scheme://skill-path/SKILL.md", ErrInvalidEntry, s.URI)
	}
	var fm map[string]json.RawMessage
	if err := exactjson.Unmarshal(s.Frontmatter, &fm); err != nil || fm == nil {
		return nil, fmt.Errorf("%w: %s: the frontmatter is not a JSON object", ErrInvalidEntry, s.URI)
	}
	var name, desc string
	if err := exactjson.Unmarshal(fm["name"], &name); err != nil || name == "" {
		return nil, fmt.Errorf("%w: %s: the frontmatter has no name", ErrInvalidEntry, s.URI)
	}
	if err := exactjson.Unmarshal(fm["description"], &desc); err != nil {
		return nil, fmt.Errorf("%w: %s: the frontmatter has no description", ErrInvalidEntry, s.URI)
	}
	if last := root[strings.LastIndexAny(root, "/")+1:]; last != name {
		return nil, fmt.Errorf("%w: %s: the skill path ends in %q, not in the frontmatter's name %q", ErrInvalidEntry, s.URI, last, name)
	}
	c := &checked{root: root}
	if s.Dynamic {
		c.files = []entryFile{{res: Resource{URI: s.URI}, rel: []string{"SKILL.md"}}}
		return c, nil
	}
	if len(s.Resources) > MaxResources {
		return nil, fmt.Errorf("%w: %s lists %d resources, more than the %d a host must accept", ErrOverLimit, s.URI, len(s.Resources), MaxResources)
	}
	var total int64
	seen := make(map[string]bool, len(s.Resources))
	folded := make(map[string]string, len(s.Resources))
	for _, r := range s.Resources {
		if seen[r.URI] {
			return nil, fmt.Errorf("%w: %s lists %q twice", ErrInvalidEntry, s.URI, r.URI)
		}
		seen[r.URI] = true
		if !validDigest(r.Digest) {
			return nil, fmt.Errorf("%w: %s: the digest of %q is %.80q, not sha256: and 64 lowercase hex digits", ErrInvalidEntry, s.URI, r.URI, r.Digest)
		}
		if r.Size < 0 {
			return nil, fmt.Errorf("%w: %s: the size of %q is negative", ErrInvalidEntry, s.URI, r.URI)
		}
		total += r.Size
		if total > MaxTotalSize {
			return nil, fmt.Errorf("%w: %s: its files sum to more than the %d bytes a host must accept", ErrOverLimit, s.URI, MaxTotalSize)
		}
		relURI, ok := strings.CutPrefix(r.URI, root+"/")
		if !ok {
			return nil, fmt.Errorf("%w: %s lists %q, which is not within the skill", ErrInvalidEntry, s.URI, r.URI)
		}
		rel, err := relSegments(relURI)
		if err != nil {
			return nil, fmt.Errorf("%w: %s lists %q: %w", ErrInvalidEntry, s.URI, r.URI, err)
		}
		// Two files that a case-insensitive file system would put at
		// one path.
		key := strings.ToLower(strings.Join(rel, "/"))
		if other, ok := folded[key]; ok {
			return nil, fmt.Errorf("%w: %s lists %q and %q, which differ only in case", ErrInvalidEntry, s.URI, other, r.URI)
		}
		folded[key] = r.URI
		f := entryFile{res: r, rel: rel}
		if r.URI == s.URI {
			c.files = append([]entryFile{f}, c.files...)
		} else {
			c.files = append(c.files, f)
		}
	}
	if !seen[s.URI] {
		return nil, fmt.Errorf("%w: %s: its resources do not list the SKILL.md itself", ErrInvalidEntry, s.URI)
	}
	return c, nil
}

// validDigest reports whether d is "sha256:" and 64 lowercase hex digits.
func validDigest(d string) bool {
	hexPart, ok := strings.CutPrefix(d, "sha256:")
	if !ok || len(hexPart) != 64 {
		return false
	}
	for i := range len(hexPart) {
		if c := hexPart[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// relSegments splits a file's URI path relative to its skill's root into
// percent-decoded segments, refusing an empty, "." or ".." segment, one
// holding a slash, a backslash or NUL once decoded, and a query or
// fragment.
func relSegments(rel string) ([]string, error) {
	if strings.ContainsAny(rel, "?#") {
		return nil, errors.New("a query or fragment in a skill file's URI")
	}
	var out []string
	for seg := range strings.SplitSeq(rel, "/") {
		d, err := unescapeSegment(seg)
		if err != nil {
			return nil, err
		}
		switch {
		case d == "" || d == "." || d == "..":
			return nil, fmt.Errorf("the path segment %q would leave the skill's directory", seg)
		case strings.ContainsAny(d, "/\\\x00"):
			return nil, fmt.Errorf("the path segment %q holds a slash, a backslash or NUL", seg)
		}
		out = append(out, d)
	}
	return out, nil
}

// unescapeSegment percent-decodes one URI path segment.
func unescapeSegment(seg string) (string, error) {
	if !strings.Contains(seg, "%") {
		return seg, nil
	}
	var b strings.Builder
	for i := 0; i < len(seg); i++ {
		if seg[i] != '%' {
			b.WriteByte(seg[i])
			continue
		}
		if i+2 >= len(seg) {
			return "", fmt.Errorf("the path segment %q has a malformed percent-escape", seg)
		}
		v, err := strconv.ParseUint(seg[i+1:i+3], 16, 8)
		if err != nil {
			return "", fmt.Errorf("the path segment %q has a malformed percent-escape", seg)
		}
		b.WriteByte(byte(v))
		i += 2
	}
	return b.String(), nil
}

// ReadFile reads the file at uri of skill s by resources/read and returns
// its bytes once verified against the held entry s (the spec's
// "Verification on Read" and "The Acting Window and the Held Entry"): uri
// must be listed in s.Resources, and the content must have the listed size
// and digest; when uri is the SKILL.md, its YAML frontmatter must equal
// s.Frontmatter field by field. A failure wraps ErrVerification and
// returns no content: refresh the entry with Get and start again. For a
// dynamic skill only the frontmatter can be verified, uri must be within
// the skill, and the content may be at most MaxTotalSize bytes.
func ReadFile(ctx context.Context, cs *mcp.ClientSession, s Skill, uri string) ([]byte, error) {
	c, err := check(s)
	if err != nil {
		return nil, err
	}
	if _, err := Declared(cs); err != nil {
		return nil, err
	}
	want := Resource{URI: uri, Size: -1}
	if s.Dynamic {
		if uri != s.URI {
			rel, ok := strings.CutPrefix(uri, c.root+"/")
			if !ok {
				return nil, fmt.Errorf("%w: %s is not within the skill %s", ErrVerification, uri, s.URI)
			}
			if _, err := relSegments(rel); err != nil {
				return nil, fmt.Errorf("%w: %s: %w", ErrVerification, uri, err)
			}
		}
	} else {
		found := false
		for _, f := range c.files {
			if f.res.URI == uri {
				want, found = f.res, true
				break
			}
		}
		if !found {
			return nil, fmt.Errorf("%w: %s is not listed in the entry of %s (refresh it with skills/get)", ErrVerification, uri, s.URI)
		}
	}
	b, err := readContent(ctx, cs, want)
	if err != nil {
		return nil, err
	}
	if uri == s.URI {
		if err := compareFrontmatter(b, s.Frontmatter); err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrVerification, uri, err)
		}
	}
	return b, nil
}

// readContent reads want.URI and checks its size and digest (a negative
// Size: an unverifiable file of a dynamic skill, bounded by MaxTotalSize).
func readContent(ctx context.Context, cs *mcp.ClientSession, want Resource) ([]byte, error) {
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: want.URI})
	if tooLarge, ok := errors.AsType[*mcp.FrameTooLargeError](err); ok {
		size := ""
		if want.Size >= 0 {
			size = fmt.Sprintf(" (%d bytes)", want.Size)
		}
		return nil, fmt.Errorf("skills: resources/read %s%s: the answer is over the client transport's limit of %d bytes; "+
			"raise its MaxMessageBytes (mcphttp.ClientTransport, mcpsse.ClientTransport, mcp.CommandTransport, mcp.StdioTransport), "+
			"to skills.MessageBytes (%d) for any file of a skill: %w",
			want.URI, size, tooLarge.Limit, MessageBytes, err)
	}
	if err != nil {
		return nil, fmt.Errorf("resources/read %s: %w", want.URI, err)
	}
	var content *mcp.ResourceContents
	for _, rc := range res.Contents {
		if rc == nil || rc.URI != want.URI {
			continue
		}
		if content != nil {
			return nil, fmt.Errorf("%w: resources/read %s answered two contents for it", ErrVerification, want.URI)
		}
		content = rc
	}
	if content == nil {
		return nil, fmt.Errorf("%w: resources/read %s answered no contents for it", ErrVerification, want.URI)
	}
	limit := want.Size
	if limit < 0 {
		limit = MaxTotalSize
	}
	var b []byte
	if content.Blob != "" {
		// The size is known before decoding: a blob far too large is
		// refused without a copy of it.
		n := int64(len(content.Blob)) / 4 * 3
		n -= int64(len(content.Blob) - len(strings.TrimRight(content.Blob, "=")))
		if n > limit && len(content.Blob)%4 == 0 {
			if want.Size < 0 {
				return nil, fmt.Errorf("%w: %s is %d bytes, more than the %d of a whole skill", ErrOverLimit, want.URI, n, MaxTotalSize)
			}
			return nil, sizeMismatch(want, n)
		}
		b, err = base64.StdEncoding.DecodeString(content.Blob)
		if err != nil {
			return nil, fmt.Errorf("%w: resources/read %s: the blob is not base64: %w", ErrVerification, want.URI, err)
		}
	} else {
		b = []byte(content.Text)
	}
	switch {
	case want.Size < 0 && int64(len(b)) > MaxTotalSize:
		return nil, fmt.Errorf("%w: %s is %d bytes, more than the %d of a whole skill", ErrOverLimit, want.URI, len(b), MaxTotalSize)
	case want.Size < 0:
		return b, nil
	case int64(len(b)) != want.Size:
		return nil, sizeMismatch(want, int64(len(b)))
	}
	sum := sha256.Sum256(b)
	if got := "sha256:" + hex.EncodeToString(sum[:]); got != want.Digest {
		return nil, fmt.Errorf("%w: %s has digest %s, the entry says %s", ErrVerification, want.URI, got, want.Digest)
	}
	return b, nil
}

func sizeMismatch(want Resource, got int64) error {
	return fmt.Errorf("%w: %s is %d bytes, the entry says %d", ErrVerification, want.URI, got, want.Size)
}

// frontmatterOf returns the YAML between a SKILL.md's opening "---" line
// and the next "---" line.
func frontmatterOf(md []byte) ([]byte, error) {
	line, rest, ok := bytes.Cut(md, []byte("\n"))
	if !ok || string(bytes.TrimSuffix(line, []byte("\r"))) != "---" {
		return nil, errors.New("the SKILL.md does not begin with a --- line of YAML frontmatter")
	}
	start := len(md) - len(rest)
	for off := start; off < len(md); {
		end := bytes.IndexByte(md[off:], '\n')
		next := len(md)
		if end >= 0 {
			next = off + end + 1
		}
		l := bytes.TrimRight(md[off:next], "\r\n")
		if string(l) == "---" {
			return md[start:off], nil
		}
		off = next
	}
	return nil, errors.New("the SKILL.md's frontmatter has no closing --- line")
}

// compareFrontmatter parses md's YAML frontmatter and compares it field by
// field with the entry's frontmatter (the spec's "Frontmatter
// Verification").
func compareFrontmatter(md []byte, entry json.RawMessage) error {
	y, err := frontmatterOf(md)
	if err != nil {
		return err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(y, &doc); err != nil {
		return fmt.Errorf("the SKILL.md's frontmatter is not YAML: %w", err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return errors.New("the SKILL.md's frontmatter is not a YAML mapping")
	}
	budget := maxFrontmatterNodes
	got, err := fromYAML(doc.Content[0], &budget, 0)
	if err != nil {
		return fmt.Errorf("the SKILL.md's frontmatter: %w", err)
	}
	d := json.NewDecoder(bytes.NewReader(entry))
	d.UseNumber()
	var want any
	if err := d.Decode(&want); err != nil {
		return fmt.Errorf("the entry's frontmatter: %w", err)
	}
	return sameValue(got, want, "")
}

// yamlTime is a YAML timestamp, with the text it was written as.
type yamlTime struct {
	raw string
	t   time.Time
}

// fromYAML converts a YAML node to nil, bool, string, a number (int,
// int64, uint64, float64), yamlTime, []any or map[string]any, expanding
// aliases within budget nodes and depth levels: a frontmatter whose
// aliases expand past them (a "billion laughs") is refused.
func fromYAML(n *yaml.Node, budget *int, depth int) (any, error) {
	*budget--
	if *budget < 0 {
		return nil, fmt.Errorf("it expands to more than %d YAML nodes", maxFrontmatterNodes)
	}
	if depth > maxFrontmatterDepth {
		return nil, fmt.Errorf("it nests deeper than %d levels", maxFrontmatterDepth)
	}
	switch n.Kind {
	case yaml.AliasNode:
		if n.Alias == nil {
			return nil, errors.New("an alias to nothing")
		}
		return fromYAML(n.Alias, budget, depth+1)
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			for k.Kind == yaml.AliasNode && k.Alias != nil {
				k = k.Alias
			}
			if k.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("a mapping key at line %d is not a scalar", k.Line)
			}
			if _, dup := m[k.Value]; dup {
				return nil, fmt.Errorf("the key %q appears twice (line %d)", k.Value, k.Line)
			}
			v, err := fromYAML(n.Content[i+1], budget, depth+1)
			if err != nil {
				return nil, err
			}
			m[k.Value] = v
		}
		return m, nil
	case yaml.SequenceNode:
		s := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := fromYAML(c, budget, depth+1)
			if err != nil {
				return nil, err
			}
			s = append(s, v)
		}
		return s, nil
	case yaml.ScalarNode:
		var v any
		if err := n.Decode(&v); err != nil {
			return nil, fmt.Errorf("line %d: %w", n.Line, err)
		}
		if t, ok := v.(time.Time); ok {
			return yamlTime{raw: n.Value, t: t}, nil
		}
		return v, nil
	}
	return nil, fmt.Errorf("an unexpected YAML node at line %d", n.Line)
}

// sameValue compares a frontmatter value parsed from YAML with the entry's
// (JSON, numbers as json.Number) and names the first field that differs.
func sameValue(got, want any, path string) error {
	field := path
	if field == "" {
		field = "the frontmatter"
	} else {
		field = "frontmatter field " + field
	}
	differs := func() error {
		return fmt.Errorf("%s is %s in the SKILL.md but %s in the entry", field, show(got), show(want))
	}
	switch g := got.(type) {
	case map[string]any:
		w, ok := want.(map[string]any)
		if !ok {
			return differs()
		}
		for k, gv := range g {
			wv, ok := w[k]
			if !ok {
				return fmt.Errorf("frontmatter field %s is in the SKILL.md but not in the entry", join(path, k))
			}
			if err := sameValue(gv, wv, join(path, k)); err != nil {
				return err
			}
		}
		for k := range w {
			if _, ok := g[k]; !ok {
				return fmt.Errorf("frontmatter field %s is in the entry but not in the SKILL.md", join(path, k))
			}
		}
		return nil
	case []any:
		w, ok := want.([]any)
		if !ok || len(w) != len(g) {
			return differs()
		}
		for i := range g {
			if err := sameValue(g[i], w[i], path+"["+strconv.Itoa(i)+"]"); err != nil {
				return err
			}
		}
		return nil
	case yamlTime:
		w, ok := want.(string)
		if !ok {
			return differs()
		}
		if w == g.raw {
			return nil
		}
		if t, err := time.Parse(time.RFC3339Nano, w); err == nil && t.Equal(g.t) {
			return nil
		}
		return differs()
	case nil, bool, string:
		if got != want {
			return differs()
		}
		return nil
	}
	// A number.
	w, ok := want.(json.Number)
	if !ok {
		return differs()
	}
	wi, ierr := strconv.ParseInt(string(w), 10, 64)
	wf, ferr := strconv.ParseFloat(string(w), 64)
	switch g := got.(type) {
	case int:
		if (ierr == nil && wi == int64(g)) || (ierr != nil && ferr == nil && wf == float64(g)) {
			return nil
		}
	case int64:
		if (ierr == nil && wi == g) || (ierr != nil && ferr == nil && wf == float64(g)) {
			return nil
		}
	case uint64:
		if wu, err := strconv.ParseUint(string(w), 10, 64); err == nil && wu == g {
			return nil
		}
	case float64:
		if ferr == nil && wf == g {
			return nil
		}
	}
	return differs()
}

func join(path, key string) string {
	if path == "" {
		return strconv.Quote(key)
	}
	return path + "." + strconv.Quote(key)
}

// show renders a compared value for an error message, cut short.
func show(v any) string {
	switch x := v.(type) {
	case yamlTime:
		return strconv.Quote(x.raw)
	case json.Number:
		return string(x)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	if len(b) > 80 {
		return string(b[:80]) + "..."
	}
	return string(b)
}

// Path returns the directory at which Pull materializes the skill whose
// SKILL.md is at uri, served by the server the host labels server, under
// dir: dir/SERVER/SCHEME/SKILL-PATH..., each segment escaped so that it
// is a safe file name (see Origin). Same-URI skills of two servers land at
// two paths, and the server's label and the skill's URI are recoverable
// from the path (the spec's "Skill URIs"). server is the host's own label
// for the server, not the server's self-reported name (the spec's
// "Security Considerations").
func Path(dir, server, uri string) (string, error) {
	if server == "" {
		return "", errors.New("skills: a server label is required to materialize a skill")
	}
	root, ok := strings.CutSuffix(uri, "/SKILL.md")
	if !ok {
		return "", fmt.Errorf("skills: %q is not the URI of a SKILL.md", uri)
	}
	scheme, rest, ok := strings.Cut(root, "://")
	if !ok || scheme == "" || rest == "" {
		return "", fmt.Errorf("skills: %q is not scheme://skill-path/SKILL.md", uri)
	}
	segs, err := relSegments(rest)
	if err != nil {
		return "", fmt.Errorf("skills: %s: %w", uri, err)
	}
	parts := []string{dir, escapeName(server), escapeName(scheme)}
	for _, s := range segs {
		parts = append(parts, escapeName(s))
	}
	for _, p := range parts[1:] {
		if len(p) > 255 {
			return "", fmt.Errorf("skills: %s: the path segment %.40s... is %d bytes escaped, more than a file name may be", uri, p, len(p))
		}
	}
	return filepath.Join(parts...), nil
}

// Origin is the inverse of Path: for a path at or below a skill
// materialized under dir, the server label and the skill URI it came from
// (the SKILL.md URI of the skill whose directory path is; for a path
// within a skill, that of the directory holding it as if it were a
// skill's root).
func Origin(dir, path string) (server, uri string, err error) {
	rel, err := filepath.Rel(dir, path)
	if err != nil {
		return "", "", fmt.Errorf("skills: %s is not under %s: %w", path, dir, err)
	}
	parts := strings.Split(filepath.ToSlash(rel), "/")
	if len(parts) < 3 || parts[0] == ".." {
		return "", "", fmt.Errorf("skills: %s is not a skill directory under %s", path, dir)
	}
	dec := make([]string, len(parts))
	for i, p := range parts {
		d, err := unescapeSegment(p)
		if err != nil {
			return "", "", fmt.Errorf("skills: %s: %w", path, err)
		}
		dec[i] = d
	}
	var b strings.Builder
	b.WriteString(dec[1] + "://")
	for i, s := range dec[2:] {
		if i > 0 {
			b.WriteByte('/')
		}
		b.WriteString(escapeURISegment(s))
	}
	b.WriteString("/SKILL.md")
	return dec[0], b.String(), nil
}

// escapeName makes s one file name: every byte but ASCII letters, digits
// and "-_~" (and "." other than first) becomes %XX, so that names are
// the same on every file system (no case of Unicode normalization, no
// separator, no reserved character, no hidden or "." or ".." name) and
// unescapeSegment gives s back.
func escapeName(s string) string {
	return percentEscape(s, func(c byte, i int) bool {
		return alnum(c) || c == '-' || c == '_' || c == '~' || c == '.' && i > 0
	})
}

// escapeURISegment escapes s as a URI path segment.
func escapeURISegment(s string) string {
	return percentEscape(s, func(c byte, _ int) bool {
		return alnum(c) || strings.IndexByte("-._~!$&'()*+,;=:@", c) >= 0
	})
}

// alnum reports whether c is an ASCII letter or digit.
func alnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// percentEscape writes s with every byte keep refuses (given the byte
// and its index) as %XX, upper-case hex.
func percentEscape(s string, keep func(c byte, i int) bool) string {
	const hexDigits = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if keep(c, i) {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hexDigits[c>>4])
		b.WriteByte(hexDigits[c&15])
	}
	return b.String()
}

// Pull loads skill s of the server cs speaks to, which the host labels
// server, and materializes it under dir at Path(dir, server, s.URI),
// which it returns. It checks the entry (Check), reads the SKILL.md and
// verifies it (ReadFile: size, digest, frontmatter) before reading any
// other file, then reads and verifies each listed file in turn; any
// failure leaves dir as it was. The verified files are written to a new
// directory beside the skill's, which then replaces it whole: a
// materialized file is never modified in place, and a file the entry no
// longer lists does not survive. Files are written with mode 0644 and
// directories 0755: nothing a skill brings is executable.
//
// For a dynamic skill (resources "dynamic") the SKILL.md is verified
// against the frontmatter only; when the server declared directoryRead
// the other files are found by resources/directory/read, at most
// MaxResources of them and MaxTotalSize bytes in all, and otherwise only
// the SKILL.md is pulled.
//
// dir should be a location no filesystem-skill discovery looks at (the
// spec's "Cache integrity, cache isolation, and durable origin"). Two
// Pulls of one skill into one dir must not run at once.
func Pull(ctx context.Context, cs *mcp.ClientSession, server string, s Skill, dir string) (string, error) {
	c, err := check(s)
	if err != nil {
		return "", err
	}
	target, err := Path(dir, server, s.URI)
	if err != nil {
		return "", err
	}
	settings, err := Declared(cs)
	if err != nil {
		return "", err
	}
	// SKILL.md first: nothing else is read unless it verifies.
	md, err := ReadFile(ctx, cs, s, s.URI)
	if err != nil {
		return "", err
	}
	type got struct {
		rel  []string
		data []byte
	}
	files := []got{{rel: []string{"SKILL.md"}, data: md}}
	if !s.Dynamic {
		for _, f := range c.files[1:] {
			b, err := ReadFile(ctx, cs, s, f.res.URI)
			if err != nil {
				return "", err
			}
			files = append(files, got{f.rel, b})
		}
	} else if settings.DirectoryRead {
		found, err := walkDynamic(ctx, cs, s, c.root)
		if err != nil {
			return "", err
		}
		total := int64(len(md))
		for _, f := range found {
			b, err := ReadFile(ctx, cs, s, f.res.URI)
			if err != nil {
				return "", err
			}
			total += int64(len(b))
			if total > MaxTotalSize {
				return "", fmt.Errorf("%w: the dynamic skill %s holds more than %d bytes", ErrOverLimit, s.URI, MaxTotalSize)
			}
			files = append(files, got{f.rel, b})
		}
	}
	// Stage beside the target, then swap.
	parent := filepath.Dir(target)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", fmt.Errorf("skills: %w", err)
	}
	stage, err := os.MkdirTemp(parent, ".pull-")
	if err != nil {
		return "", fmt.Errorf("skills: %w", err)
	}
	defer os.RemoveAll(stage)
	if err := os.Chmod(stage, 0o755); err != nil {
		return "", fmt.Errorf("skills: %w", err)
	}
	root, err := os.OpenRoot(stage)
	if err != nil {
		return "", fmt.Errorf("skills: %w", err)
	}
	defer root.Close()
	for _, f := range files {
		name := make([]string, len(f.rel))
		for i, seg := range f.rel {
			name[i] = escapeName(seg)
		}
		p := filepath.Join(name...)
		if d := filepath.Dir(p); d != "." {
			if err := root.MkdirAll(d, 0o755); err != nil {
				return "", fmt.Errorf("skills: writing %s: %w", s.URI, err)
			}
		}
		if err := root.WriteFile(p, f.data, 0o644); err != nil {
			return "", fmt.Errorf("skills: writing %s: %w", s.URI, err)
		}
	}
	if err := os.RemoveAll(target); err != nil {
		return "", fmt.Errorf("skills: replacing %s: %w", target, err)
	}
	if err := os.Rename(stage, target); err != nil {
		return "", fmt.Errorf("skills: %w", err)
	}
	return target, nil
}

// walkDynamic finds the files of dynamic skill s below its root by
// resources/directory/read, breadth first, at most MaxResources entries
// (directories counted) in all.
func walkDynamic(ctx context.Context, cs *mcp.ClientSession, s Skill, root string) ([]entryFile, error) {
	var files []entryFile
	entries := 1 // SKILL.md
	queue := []string{root}
	for len(queue) > 0 {
		dirURI := queue[0]
		queue = queue[1:]
		for r, err := range ReadDirectory(ctx, cs, dirURI) {
			if err != nil {
				return nil, err
			}
			rel, ok := strings.CutPrefix(r.URI, root+"/")
			if !ok || r.URI == s.URI {
				continue // not below the skill, or SKILL.md itself
			}
			segs, err := relSegments(rel)
			if err != nil {
				return nil, fmt.Errorf("%w: resources/directory/read %s listed %q: %w", ErrVerification, dirURI, r.URI, err)
			}
			if !strings.HasPrefix(r.URI, dirURI+"/") || strings.Contains(r.URI[len(dirURI)+1:], "/") {
				return nil, fmt.Errorf("%w: resources/directory/read %s listed %q, not a child of it", ErrVerification, dirURI, r.URI)
			}
			entries++
			if entries > MaxResources {
				return nil, fmt.Errorf("%w: the dynamic skill %s has more than %d entries", ErrOverLimit, s.URI, MaxResources)
			}
			if r.MIMEType == "inode/directory" {
				queue = append(queue, r.URI)
				continue
			}
			files = append(files, entryFile{res: Resource{URI: r.URI, Size: -1}, rel: segs})
		}
	}
	return files, nil
}
