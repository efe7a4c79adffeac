package skills_test

import (
	"io"
	"io/fs"
	"runtime"
	"testing"
	"testing/fstest"
	"time"

	"github.com/mcpkit/mcpkit/ext/skills"
	"github.com/mcpkit/mcpkit/mcp"
)

// gigaFS is fstest.MapFS plus files of a given size whose bytes are made
// as they are read: a 1 GiB file costs no memory to offer.
type gigaFS struct {
	fstest.MapFS
	giant map[string]int64
}

func (g gigaFS) Open(name string) (fs.File, error) {
	if n, ok := g.giant[name]; ok {
		return &giantFile{name: name, size: n}, nil
	}
	return g.MapFS.Open(name)
}

func (g gigaFS) Stat(name string) (fs.FileInfo, error) {
	if n, ok := g.giant[name]; ok {
		return giantInfo{name: name, size: n}, nil
	}
	return fs.Stat(g.MapFS, name)
}

func (g gigaFS) ReadDir(name string) ([]fs.DirEntry, error) {
	entries, err := g.MapFS.ReadDir(name)
	for path, n := range g.giant {
		if dir, base := splitPath(path); dir == name {
			entries = append(entries, fs.FileInfoToDirEntry(giantInfo{name: base, size: n}))
		}
	}
	return entries, err
}

func splitPath(p string) (dir, base string) {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' {
			return p[:i], p[i+1:]
		}
	}
	return ".", p
}

type giantFile struct {
	name string
	size int64
	off  int64
}

func (f *giantFile) Stat() (fs.FileInfo, error) { return giantInfo{name: f.name, size: f.size}, nil }
func (f *giantFile) Close() error               { return nil }
func (f *giantFile) Read(b []byte) (int, error) {
	if f.off >= f.size {
		return 0, io.EOF
	}
	n := int64(len(b))
	if f.size-f.off < n {
		n = f.size - f.off
	}
	for i := range b[:n] {
		b[i] = 'y' // a frontmatter line that never ends
	}
	f.off += n
	return int(n), nil
}

type giantInfo struct {
	name string
	size int64
}

func (i giantInfo) Name() string       { _, b := splitPath(i.name); return b }
func (i giantInfo) Size() int64        { return i.size }
func (i giantInfo) Mode() fs.FileMode  { return 0o644 }
func (i giantInfo) ModTime() time.Time { return time.Time{} }
func (i giantInfo) IsDir() bool        { return false }
func (i giantInfo) Sys() any           { return nil }

// TestGiantFiles: a 1 GiB SKILL.md and a 1 GiB supporting file are
// refused by the size limit, checked before a file is read or hashed, and
// serving them allocates a few MiB, not the files. (A SKILL.md under the
// limit whose frontmatter never closes: TestFrontmatterBombs.)
func TestGiantFiles(t *testing.T) {
	fsys := gigaFS{
		MapFS: fstest.MapFS{
			"blob/SKILL.md": {Data: []byte("---\nname: blob\ndescription: d\n---\n")},
			"ok/SKILL.md":   {Data: []byte("---\nname: ok\ndescription: d\n---\n")},
		},
		giant: map[string]int64{"giant/SKILL.md": 1 << 30, "blob/data.bin": 1 << 30},
	}
	// The fake's own directory entries for "giant".
	fsys.MapFS["giant"] = &fstest.MapFile{Mode: fs.ModeDir | 0o755}

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	srv := mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"}, nil)
	sk, err := skills.Serve(srv, fsys, nil)
	runtime.ReadMemStats(&after)

	want := "skills: 2 skill(s) refused, not served:\n" +
		"  blob: 1073741858 bytes, more than the 16777216 a skill may have (Options.MaxSkillSize)\n" +
		"  giant: 1073741824 bytes, more than the 16777216 a skill may have (Options.MaxSkillSize)"
	if err == nil || err.Error() != want {
		t.Errorf("Serve: %v\nwant %s", err, want)
	}
	if got := sk.Skills(); len(got) != 1 || got[0].URI != "skill://ok/SKILL.md" {
		t.Errorf("served %+v, want ok alone", got)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
		t.Errorf("Serve allocated %d bytes for two 1 GiB files, want under 16 MiB", alloc)
	}
}
