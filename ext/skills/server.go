package skills

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
)

// Options configure a skills Server. The zero value is useful: each
// field's default is given.
type Options struct {
	// PageSize is the most entries a page of skills/list, and the most
	// children a page of resources/directory/read, holds. Default 100.
	PageSize int
	// MaxSkillFiles is the most files a served skill may have; a skill
	// with more is refused. Default MaxResources (512), the spec's limit.
	MaxSkillFiles int
	// MaxSkillSize is the most bytes a served skill's files may sum to; a
	// skill with more is refused. Default MaxTotalSize (16 MiB), the
	// spec's limit. A resources/read never reads more of a file.
	MaxSkillSize int64
	// MaxFrontmatterSize is the most bytes of a SKILL.md read to find its
	// frontmatter; a skill whose frontmatter does not close within them is
	// refused. Default 64 KiB.
	MaxFrontmatterSize int
	// MaxFrontmatterNodes is the most YAML nodes a frontmatter may have
	// once its aliases are expanded; a skill with more (an alias bomb) is
	// refused. Default 10000.
	MaxFrontmatterNodes int
	// MaxEntries is the most files and directories a scan walks; a scan
	// of a larger FS fails. Default 100000.
	MaxEntries int
	// MaxURILength is the longest uri and cursor a request may carry;
	// longer ones are refused with -32602. Default 4096.
	MaxURILength int
	// OnRescan, if set, is called with the outcome of each rescan Watch
	// makes: nil, a *RefusedError or the scan's error.
	OnRescan func(error)
}

func (o *Options) withDefaults() Options {
	var c Options
	if o != nil {
		c = *o
	}
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&c.PageSize, 100)
	def(&c.MaxSkillFiles, MaxResources)
	def(&c.MaxFrontmatterSize, 64<<10)
	def(&c.MaxFrontmatterNodes, 10000)
	def(&c.MaxEntries, 100000)
	def(&c.MaxURILength, 4096)
	if c.MaxSkillSize <= 0 {
		c.MaxSkillSize = MaxTotalSize
	}
	return c
}

// Server serves the skills of an fs.FS on an mcp.Server: skills/list,
// skills/get and resources/directory/read, and every skill file as a
// skill:// resource. It is safe for concurrent use.
type Server struct {
	srv  *mcp.Server
	fsys fs.FS
	opts Options

	cat atomic.Pointer[catalog]

	mu         sync.Mutex               // serializes rescans
	registered map[string]*mcp.Resource // the resources added to srv
}

// Serve adds the Skills extension to srv, serving every skill under fsys
// (https://github.com/modelcontextprotocol/ext-skills/blob/main/specification/stable/skills.mdx):
// each directory holding a SKILL.md is a skill, at
// skill://<its path in fsys>/SKILL.md, its files are resources and
// directories directory resources, and skills/list, skills/get and
// resources/directory/read answer for them, in both protocol eras.
// Digests and sizes are computed here, once, and again by Rescan.
//
// fsys should not follow symbolic links out of itself: os.DirFS does,
// and (*os.Root).FS does not. A symbolic link within a skill refuses
// the skill.
//
// A skill that breaks the Agent Skills rules or a limit of opts is not
// served: Serve then returns the Server, serving the others, and a
// *RefusedError listing each refused skill. Any other error means
// nothing was added.
func Serve(srv *mcp.Server, fsys fs.FS, opts *Options) (*Server, error) {
	s := &Server{srv: srv, fsys: fsys, opts: opts.withDefaults(), registered: map[string]*mcp.Resource{}}
	cat, refused, err := s.scan()
	if err != nil {
		return nil, err
	}
	err = srv.AddExtension(mcp.Extension{
		ID:       ID,
		Settings: Settings{DirectoryRead: true},
		Methods: map[string]mcp.MethodHandler{
			"skills/list":              s.list,
			"skills/get":               s.get,
			"resources/directory/read": s.readDirectory,
		},
		Cacheable: []string{"skills/list", "skills/get"},
	})
	if err != nil {
		return nil, fmt.Errorf("skills: %w", err)
	}
	if len(cat.files) == 0 {
		// A server declaring the extension declares resources (the
		// spec's "Capability Negotiation"); with no file to add, a
		// template over skill:// makes it. Its reads are not found until
		// a rescan adds files.
		err = srv.AddResourceTemplate(&mcp.ResourceTemplate{
			URITemplate: "skill://{+path}",
			Name:        "skills",
			Description: "The files of the skills this server serves (skills/list).",
		}, s.read)
		if err != nil {
			return nil, fmt.Errorf("skills: %w", err)
		}
	}
	s.install(cat)
	if refused != nil {
		return s, refused
	}
	return s, nil
}

// Rescan walks the FS again, recomputing every digest and size, and
// serves what it finds from then on: resources added, changed and
// removed accordingly. It returns a *RefusedError when some skills are
// refused (the others are served), and any other error when the FS
// cannot be scanned, the skills served before staying served.
func (s *Server) Rescan() error {
	cat, refused, err := s.scan()
	if err != nil {
		return err
	}
	s.install(cat)
	if refused != nil {
		return refused
	}
	return nil
}

// MaxWatchBackoff is how many intervals apart Watch's polls grow, at
// most, while the FS cannot be read.
const MaxWatchBackoff = 32

// Watch polls the FS every interval and rescans it when a file or
// directory was added, removed or changed in size, time or mode, until
// ctx is done; it then returns ctx's cause. It starts no goroutine: run
// it in one. Each rescan's outcome goes to Options.OnRescan. While the FS
// cannot be walked or scanned (a rescan fails with an error other than a
// *RefusedError), the wait before the next poll doubles, up to
// MaxWatchBackoff intervals; the first poll that succeeds brings it back
// to interval.
func (s *Server) Watch(ctx context.Context, interval time.Duration) error {
	last, _ := s.fingerprint()
	wait := interval
	t := time.NewTimer(wait)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-t.C:
		}
		fp, fpErr := s.fingerprint()
		failed := fpErr != nil
		if fpErr != nil || fp != last {
			last = fp
			err := s.Rescan()
			if s.opts.OnRescan != nil {
				s.opts.OnRescan(err)
			}
			var refused *RefusedError
			failed = failed || err != nil && !errors.As(err, &refused)
		}
		switch {
		case !failed:
			wait = interval
		case wait < MaxWatchBackoff*interval:
			wait = min(2*wait, MaxWatchBackoff*interval)
		}
		t.Reset(wait)
	}
}

// fingerprint hashes every entry's path, size, mode and modification
// time.
func (s *Server) fingerprint() ([32]byte, error) {
	h := sha256.New()
	n := 0
	err := fs.WalkDir(s.fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if n++; n > s.opts.MaxEntries {
			return fmt.Errorf("more than %d files and directories (Options.MaxEntries)", s.opts.MaxEntries)
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%q %d %v %d\n", p, info.Size(), info.Mode(), info.ModTime().UnixNano())
		return nil
	})
	var sum [32]byte
	h.Sum(sum[:0])
	return sum, err
}

// install serves cat: it replaces the catalog, then adds the resources
// that are new or changed and removes those gone.
func (s *Server) install(cat *catalog) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cat.Store(cat)
	uris := make([]string, 0, len(cat.files))
	for u := range cat.files {
		uris = append(uris, u)
	}
	slices.Sort(uris)
	for _, u := range uris {
		r := cat.files[u].resource
		if old := s.registered[u]; old != nil && reflect.DeepEqual(old, r) {
			continue
		}
		if err := s.srv.AddResource(r, s.read); err != nil {
			continue // a URI uriOf made is absolute and the name never empty
		}
		s.registered[u] = r
	}
	var gone []string
	for u := range s.registered {
		if cat.files[u] == nil {
			gone = append(gone, u)
			delete(s.registered, u)
		}
	}
	if len(gone) > 0 {
		slices.Sort(gone)
		s.srv.RemoveResources(gone...)
	}
}

// Skills returns the entries of the skills served now, by URI.
func (s *Server) Skills() []Skill {
	cat := s.cat.Load()
	out := make([]Skill, len(cat.skills))
	for i, sk := range cat.skills {
		out[i] = sk.entry
	}
	return out
}

func invalidParams(format string, args ...any) *jsonrpc.Error {
	return jsonrpc.NewError(jsonrpc.CodeInvalidParams, fmt.Sprintf(format, args...), nil)
}

// decodeParams decodes a request's params into v; absent params are
// empty ones.
func decodeParams(r *mcp.Request, v any) error {
	if len(r.Params) == 0 || string(r.Params) == "null" {
		return nil
	}
	if err := json.Unmarshal(r.Params, v); err != nil {
		return invalidParams("%s: invalid params: %v", r.Method, err)
	}
	return nil
}

// Cursors are the last URI of the page before, base64url-encoded: a
// page starts after it, so a cursor stays meaningful across rescans
// and is the same on every replica.
func encodeCursor(last string) string { return base64.RawURLEncoding.EncodeToString([]byte(last)) }

func (s *Server) decodeCursor(method, c string) (string, error) {
	if c == "" {
		return "", nil
	}
	if len(c) > base64.RawURLEncoding.EncodedLen(s.opts.MaxURILength) {
		return "", invalidParams("%s: the cursor is longer than %d bytes", method, base64.RawURLEncoding.EncodedLen(s.opts.MaxURILength))
	}
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil || !utf8.Valid(b) {
		return "", invalidParams("%s: invalid cursor %q", method, c)
	}
	return string(b), nil
}

func (s *Server) checkURI(method, uri string) error {
	if uri == "" {
		return invalidParams("%s: params.uri is required", method)
	}
	if len(uri) > s.opts.MaxURILength {
		return invalidParams("%s: params.uri is longer than %d bytes", method, s.opts.MaxURILength)
	}
	return nil
}

// list serves skills/list: a page of entries by URI (the spec's
// "Listing Skills").
func (s *Server) list(_ context.Context, r *mcp.Request) (any, error) {
	var p ListParams
	if err := decodeParams(r, &p); err != nil {
		return nil, err
	}
	after, err := s.decodeCursor(r.Method, p.Cursor)
	if err != nil {
		return nil, err
	}
	cat := s.cat.Load()
	i, _ := slices.BinarySearchFunc(cat.skills, after, func(sk *skill, u string) int { return strings.Compare(sk.entry.URI, u) })
	if after != "" && i < len(cat.skills) && cat.skills[i].entry.URI == after {
		i++
	}
	end := min(i+s.opts.PageSize, len(cat.skills))
	res := ListResult{Skills: make([]Skill, 0, end-i)}
	for _, sk := range cat.skills[i:end] {
		res.Skills = append(res.Skills, sk.entry)
	}
	if end < len(cat.skills) {
		res.NextCursor = encodeCursor(cat.skills[end-1].entry.URI)
	}
	return &res, nil
}

// get serves skills/get (the spec's "Getting a Skill").
func (s *Server) get(_ context.Context, r *mcp.Request) (any, error) {
	var p GetParams
	if err := decodeParams(r, &p); err != nil {
		return nil, err
	}
	if err := s.checkURI(r.Method, p.URI); err != nil {
		return nil, err
	}
	sk := s.cat.Load().byURI[p.URI]
	if sk == nil {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "No skill is served at "+p.URI, struct {
			URI string `json:"uri"`
		}{p.URI})
	}
	return &GetResult{Skill: sk.entry}, nil
}

// readDirectory serves resources/directory/read (the spec's "Reading
// Directories").
func (s *Server) readDirectory(_ context.Context, r *mcp.Request) (any, error) {
	var p ReadDirectoryParams
	if err := decodeParams(r, &p); err != nil {
		return nil, err
	}
	if err := s.checkURI(r.Method, p.URI); err != nil {
		return nil, err
	}
	after, err := s.decodeCursor(r.Method, p.Cursor)
	if err != nil {
		return nil, err
	}
	cat := s.cat.Load()
	children, ok := cat.dirs[p.URI]
	if !ok {
		data := struct {
			URI string `json:"uri"`
		}{p.URI}
		if cat.files[p.URI] != nil {
			return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, p.URI+" is not a directory resource", data)
		}
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "No directory resource is served at "+p.URI, data)
	}
	i, _ := slices.BinarySearchFunc(children, after, func(c *mcp.Resource, u string) int { return strings.Compare(c.URI, u) })
	if after != "" && i < len(children) && children[i].URI == after {
		i++
	}
	end := min(i+s.opts.PageSize, len(children))
	res := ReadDirectoryResult{Resources: children[i:end:end]}
	if end < len(children) {
		res.NextCursor = encodeCursor(children[end-1].URI)
	}
	return &res, nil
}

// read serves resources/read of a skill file: its bytes as they are
// now, as text when its mime type is textual and they are UTF-8, else
// as a blob.
func (s *Server) read(_ context.Context, _ *mcp.Request, p *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
	f := s.cat.Load().files[p.URI]
	if f == nil {
		return nil, mcp.ResourceNotFoundError(p.URI)
	}
	fh, err := s.fsys.Open(f.path)
	if err != nil {
		return nil, fmt.Errorf("skills: reading %s: %w", p.URI, err)
	}
	defer fh.Close()
	b, err := io.ReadAll(io.LimitReader(fh, s.opts.MaxSkillSize+1))
	if err != nil {
		return nil, fmt.Errorf("skills: reading %s: %w", p.URI, err)
	}
	if int64(len(b)) > s.opts.MaxSkillSize {
		return nil, fmt.Errorf("skills: %s has grown past %d bytes (Options.MaxSkillSize)", p.URI, s.opts.MaxSkillSize)
	}
	c := &mcp.ResourceContents{URI: p.URI, MIMEType: f.mime}
	if isText(f.mime) && utf8.Valid(b) {
		c.Text = string(b)
	} else {
		c.BlobData = b
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{c}}, nil
}
