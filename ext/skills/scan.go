package skills

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mcpkit/mcpkit/mcp"
)

// A catalog is one scan of the skills' FS: what the server serves until
// the next Rescan. It is never modified once built.
type catalog struct {
	skills []*skill          // by URI
	byURI  map[string]*skill // by the SKILL.md URI
	files  map[string]*file  // every served file, by URI
	dirs   map[string][]*mcp.Resource
}

type skill struct {
	entry Skill
	dir   string // in the FS
}

type file struct {
	path     string // in the FS
	size     int64
	digest   string
	mime     string
	resource *mcp.Resource
}

// A Refusal is a skill that is not served, and why.
type Refusal struct {
	// Dir is the skill's directory in the FS.
	Dir string
	Err error
}

// RefusedError lists the skills a scan found and does not serve: their
// name breaks the Agent Skills naming rules, their SKILL.md has no valid
// frontmatter, they hold a symbolic link or they exceed a limit. The
// other skills are served.
type RefusedError struct {
	Refused []Refusal
}

func (e *RefusedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "skills: %d skill(s) refused, not served:", len(e.Refused))
	for _, r := range e.Refused {
		fmt.Fprintf(&b, "\n  %s: %v", r.Dir, r.Err)
	}
	return b.String()
}

type entryInfo struct {
	path string
	dir  bool
	mode fs.FileMode
	size int64
}

// scan walks the FS and builds a catalog of the skills it can serve.
// It fails only when the FS cannot be walked or holds more than
// MaxEntries entries; refused skills are returned in a *RefusedError
// beside the catalog.
func (s *Server) scan() (*catalog, *RefusedError, error) {
	var entries []entryInfo
	err := fs.WalkDir(s.fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if len(entries) >= s.opts.MaxEntries {
			return fmt.Errorf("more than %d files and directories (Options.MaxEntries)", s.opts.MaxEntries)
		}
		e := entryInfo{path: p, dir: d.IsDir(), mode: d.Type()}
		if d.Type().IsRegular() {
			info, err := d.Info()
			if err != nil {
				return err
			}
			e.size = info.Size()
		}
		entries = append(entries, e)
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("skills: scanning: %w", err)
	}
	// WalkDir visits in lexical order, so a directory's entries follow it.
	var skillDirs []string
	for _, e := range entries {
		if e.mode.IsRegular() && path.Base(e.path) == "SKILL.md" {
			skillDirs = append(skillDirs, path.Dir(e.path))
		}
	}
	cat := &catalog{byURI: map[string]*skill{}, files: map[string]*file{}, dirs: map[string][]*mcp.Resource{}}
	var refused []Refusal
	digests := map[string]*file{} // by FS path: a nested skill's files are hashed once
	type served struct {
		sk   *skill
		dirs []string
	}
	var ok []served
	for _, dir := range skillDirs {
		sk, dirs, err := s.loadSkill(dir, entries, digests)
		if err != nil {
			refused = append(refused, Refusal{Dir: dir, Err: err})
			continue
		}
		ok = append(ok, served{sk, dirs})
		cat.byURI[sk.entry.URI] = sk
		cat.skills = append(cat.skills, sk)
	}
	// Resource metadata: a SKILL.md of a served skill is named and
	// described by its frontmatter.
	for _, sv := range ok {
		for _, r := range sv.sk.entry.Resources {
			f := digests[fsPath(sv.sk, r.URI)]
			if cat.files[r.URI] != nil {
				continue
			}
			res := &mcp.Resource{URI: r.URI, Name: path.Base(f.path), MIMEType: f.mime, Size: &f.size}
			if sk := cat.byURI[r.URI]; sk != nil {
				res.Name, res.Description = frontmatterNameDescription(sk.entry.Frontmatter)
				res.MIMEType = "text/markdown"
			}
			f.resource = res
			cat.files[r.URI] = f
		}
	}
	// Directories: every directory within a served skill, with its direct
	// children.
	for _, sv := range ok {
		for _, d := range sv.dirs {
			u := s.uriOf(d)
			if _, done := cat.dirs[u]; done {
				continue
			}
			children := []*mcp.Resource{}
			prefix := d + "/"
			for _, e := range entries {
				rest, found := strings.CutPrefix(e.path, prefix)
				if !found || rest == "" || strings.Contains(rest, "/") {
					continue
				}
				cu := s.uriOf(e.path)
				if e.dir {
					children = append(children, &mcp.Resource{URI: cu, Name: rest, MIMEType: DirectoryMIMEType})
				} else if f := cat.files[cu]; f != nil {
					children = append(children, f.resource)
				}
			}
			slices.SortFunc(children, func(a, b *mcp.Resource) int { return strings.Compare(a.URI, b.URI) })
			cat.dirs[u] = children
		}
	}
	slices.SortFunc(cat.skills, func(a, b *skill) int { return strings.Compare(a.entry.URI, b.entry.URI) })
	if len(refused) > 0 {
		return cat, &RefusedError{Refused: refused}, nil
	}
	return cat, nil, nil
}

// fsPath is the FS path of a URI of sk's.
func fsPath(sk *skill, uri string) string {
	rel := strings.TrimPrefix(uri, sk.entry.URI[:len(sk.entry.URI)-len("SKILL.md")])
	p, _ := url.PathUnescape(rel)
	return path.Join(sk.dir, p)
}

// DirectoryMIMEType is the mime type of a directory resource (the
// spec's "Directory Resources").
const DirectoryMIMEType = "inode/directory"

// uriOf is the skill:// URI of an FS path: each segment escaped as a URI
// path segment.
func (s *Server) uriOf(p string) string {
	segs := strings.Split(p, "/")
	for i, seg := range segs {
		segs[i] = url.PathEscape(seg)
	}
	return "skill://" + strings.Join(segs, "/")
}

// loadSkill checks and hashes the skill in dir: its entry and the
// directories within it.
func (s *Server) loadSkill(dir string, entries []entryInfo, digests map[string]*file) (*skill, []string, error) {
	if dir == "." {
		return nil, nil, errors.New("SKILL.md is at the root of the FS: a skill is a directory, named as the skill")
	}
	segs := strings.Split(dir, "/")
	for i, seg := range segs {
		if !validSegment(seg) {
			where := "a prefix segment"
			if i == 0 {
				where = "the first segment (the URI's authority)"
			}
			return nil, nil, fmt.Errorf("%s %q has characters outside RFC 3986's reg-name (letters, digits, -._~!$&'()*+,;=)", where, seg)
		}
	}
	name := segs[len(segs)-1]
	if err := checkName(name); err != nil {
		return nil, nil, err
	}
	prefix := dir + "/"
	var files []entryInfo
	dirs := []string{dir}
	var total int64
	for _, e := range entries {
		if !strings.HasPrefix(e.path, prefix) {
			continue
		}
		switch {
		case e.dir:
			dirs = append(dirs, e.path)
		case e.mode.IsRegular():
			files = append(files, e)
			total += e.size
		default:
			return nil, nil, fmt.Errorf("%s is not a regular file or a directory (%v): only those are served", e.path, e.mode.Type())
		}
	}
	if len(files) > s.opts.MaxSkillFiles {
		return nil, nil, fmt.Errorf("%d files, more than the %d a skill may have (Options.MaxSkillFiles)", len(files), s.opts.MaxSkillFiles)
	}
	if total > s.opts.MaxSkillSize {
		return nil, nil, fmt.Errorf("%d bytes, more than the %d a skill may have (Options.MaxSkillSize)", total, s.opts.MaxSkillSize)
	}
	fm, err := s.readFrontmatter(prefix + "SKILL.md")
	if err != nil {
		return nil, nil, err
	}
	fmName, err := checkFrontmatter(fm)
	if err != nil {
		return nil, nil, err
	}
	if fmName != name {
		return nil, nil, fmt.Errorf("frontmatter name %q is not the directory's name %q", fmName, name)
	}
	skillURI := s.uriOf(prefix + "SKILL.md")
	sk := &skill{dir: dir, entry: Skill{URI: skillURI, Frontmatter: fm}}
	// SKILL.md first, then the other files by path.
	slices.SortStableFunc(files, func(a, b entryInfo) int {
		am, bm := a.path == prefix+"SKILL.md", b.path == prefix+"SKILL.md"
		switch {
		case am && !bm:
			return -1
		case bm && !am:
			return 1
		}
		return strings.Compare(a.path, b.path)
	})
	total = 0
	for _, e := range files {
		f := digests[e.path]
		if f == nil {
			var err error
			if f, err = s.hashFile(e.path, s.opts.MaxSkillSize-total); err != nil {
				return nil, nil, err
			}
			digests[e.path] = f
		}
		if total += f.size; total > s.opts.MaxSkillSize {
			return nil, nil, fmt.Errorf("more than the %d bytes a skill may have (Options.MaxSkillSize)", s.opts.MaxSkillSize)
		}
		sk.entry.Resources = append(sk.entry.Resources, Resource{URI: s.uriOf(e.path), Digest: f.digest, Size: f.size})
	}
	return sk, dirs, nil
}

// hashFile returns the size, digest and mime type of the file at p,
// reading at most limit bytes.
func (s *Server) hashFile(p string, limit int64) (*file, error) {
	f, err := s.fsys.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h := sha256.New()
	var head sniffer
	n, err := io.Copy(io.MultiWriter(h, &head), io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", p, err)
	}
	if n > limit {
		return nil, fmt.Errorf("%s: more than the %d bytes a skill may have (Options.MaxSkillSize)", p, s.opts.MaxSkillSize)
	}
	m := mimeType(p)
	if m == "" {
		m = "application/octet-stream"
		if head.text(n) {
			m = "text/plain"
		}
	}
	return &file{path: p, size: n, digest: "sha256:" + hex.EncodeToString(h.Sum(nil)), mime: m}, nil
}

// A sniffer keeps a file's first bytes, to tell text from binary.
type sniffer struct{ b []byte }

const sniffLen = 8 << 10

func (w *sniffer) Write(p []byte) (int, error) {
	if room := sniffLen - len(w.b); room > 0 {
		w.b = append(w.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

// text reports whether a file of size n starting with the kept bytes is
// UTF-8 text without NULs (a rune cut at the end of what was kept is
// allowed).
func (w *sniffer) text(n int64) bool {
	b := w.b
	if int64(len(b)) < n {
		for i := 0; i < utf8.UTFMax && len(b) > 0 && !utf8.Valid(b); i++ {
			b = b[:len(b)-1]
		}
	}
	return utf8.Valid(b) && !bytes.ContainsRune(b, 0)
}

// readFrontmatter reads at most MaxFrontmatterSize bytes of the SKILL.md
// at p and renders its frontmatter as JSON.
func (s *Server) readFrontmatter(p string) ([]byte, error) {
	f, err := s.fsys.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	limit := s.opts.MaxFrontmatterSize
	head, err := io.ReadAll(io.LimitReader(f, int64(limit)+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", p, err)
	}
	complete := len(head) <= limit
	if !complete {
		head = head[:limit]
	}
	src, err := splitFrontmatter(head, complete, limit)
	if err != nil {
		return nil, err
	}
	return frontmatterJSON(src, s.opts.MaxFrontmatterNodes)
}

// checkFrontmatter returns the frontmatter's name and description,
// failing when either is missing or not a non-empty string, or the
// description is longer than the Agent Skills specification's 1024
// characters.
func checkFrontmatter(fm []byte) (name string, err error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(fm, &m); err != nil {
		return "", err
	}
	var desc string
	if json.Unmarshal(m["name"], &name) != nil || name == "" {
		return "", errors.New("frontmatter has no name (a non-empty string)")
	}
	if json.Unmarshal(m["description"], &desc) != nil || desc == "" {
		return "", errors.New("frontmatter has no description (a non-empty string)")
	}
	if n := utf8.RuneCountInString(desc); n > 1024 {
		return "", fmt.Errorf("frontmatter description has %d characters, more than 1024", n)
	}
	return name, nil
}

// frontmatterNameDescription returns the name and description of
// frontmatter checkFrontmatter accepted.
func frontmatterNameDescription(fm []byte) (name, desc string) {
	var v struct {
		Name        string `json:"name"`
		Description string `json:"description"`
	}
	_ = json.Unmarshal(fm, &v)
	return v.Name, v.Description
}

// checkName checks a skill name against the Agent Skills naming rules
// (https://agentskills.io/specification#name-field): 1 to 64 characters,
// lowercase letters, digits and hyphens, neither starting nor ending
// with a hyphen, no two hyphens in a row.
func checkName(name string) error {
	switch {
	case name == "" || len(name) > 64:
		return fmt.Errorf("name %q is not 1 to 64 characters", name)
	case strings.IndexFunc(name, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') }) >= 0:
		return fmt.Errorf("name %q has characters other than lowercase letters, digits and hyphens", name)
	case name[0] == '-' || name[len(name)-1] == '-':
		return fmt.Errorf("name %q starts or ends with a hyphen", name)
	case strings.Contains(name, "--"):
		return fmt.Errorf("name %q has two hyphens in a row", name)
	}
	return nil
}

// validSegment reports whether a skill path segment is made of RFC
// 3986's reg-name characters, without percent-encoding.
func validSegment(seg string) bool {
	return seg != "" && strings.IndexFunc(seg, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-._~!$&'()*+,;=", r))
	}) < 0
}

// mimeTypes are the types of the files a skill usually holds, by
// extension; others are text/plain when UTF-8, else
// application/octet-stream (hashFile).
var mimeTypes = map[string]string{
	".md": "text/markdown", ".markdown": "text/markdown", ".txt": "text/plain",
	".py": "text/x-python", ".sh": "text/x-shellscript", ".bash": "text/x-shellscript",
	".js": "text/javascript", ".mjs": "text/javascript", ".ts": "text/x-typescript",
	".go": "text/x-go", ".rb": "text/x-ruby", ".json": "application/json",
	".yaml": "application/yaml", ".yml": "application/yaml", ".toml": "application/toml",
	".html": "text/html", ".htm": "text/html", ".css": "text/css", ".csv": "text/csv",
	".xml": "application/xml", ".svg": "image/svg+xml", ".png": "image/png",
	".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp",
	".pdf": "application/pdf", ".zip": "application/zip",
}

// mimeType is the mime type of a skill file by its name ("" when the
// extension is not known: hashFile decides by content).
func mimeType(p string) string {
	if path.Base(p) == "SKILL.md" {
		return "text/markdown"
	}
	return mimeTypes[strings.ToLower(path.Ext(p))]
}

// isText reports whether contents of mime type m are sent as text.
func isText(m string) bool {
	return strings.HasPrefix(m, "text/") || m == "application/json" || m == "application/yaml" ||
		m == "application/toml" || m == "application/xml" || m == "image/svg+xml"
}
