package skills_test

import (
	"bytes"
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/mcpkit/mcpkit/ext/skills"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
	"go.uber.org/goleak"
)

// TestBigFileHTTP reads a 10 MiB skill file (as a base64 blob, and as
// text) over Streamable HTTP on 127.0.0.1 in both eras. With the
// transport's default MaxMessageBytes (4 MiB) ReadFile and Pull fail
// with an error naming the option and skills.MessageBytes, wrapping
// *mcp.FrameTooLargeError, Pull writes nothing, and the session goes on;
// with MaxMessageBytes set to skills.MessageBytes Pull writes the exact
// bytes.
func TestBigFileHTTP(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
	bin := bytes.Repeat([]byte{0xff, 1, 2, 3}, 10<<20/4)
	text := bytes.Repeat([]byte("abc\n"), 10<<20/4)
	fsys := skillsFS()
	fsys["release-notes/big.bin"] = &fstest.MapFile{Data: bin}
	fsys["code-review/big.md"] = &fstest.MapFile{Data: text}
	srv, _ := newServer(t, fsys, nil)
	h := mcphttp.NewHandler(srv, nil)
	defer h.Close()
	hs := httptest.NewServer(h)
	defer hs.Close()
	defer hs.Client().CloseIdleConnections()
	files := []struct {
		skill, uri, rel string
		want            []byte
	}{
		{"skill://release-notes/SKILL.md", "skill://release-notes/big.bin", "big.bin", bin},
		{"skill://code-review/SKILL.md", "skill://code-review/big.md", "big.md", text},
	}
	for _, era := range []mcp.ProtocolEra{mcp.EraSession, mcp.EraStateless} {
		for _, limit := range []int{0, skills.MessageBytes} {
			cs, err := mcp.NewClient(mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{ProtocolEra: era}).
				Connect(t.Context(), &mcphttp.ClientTransport{URL: hs.URL, HTTPClient: hs.Client(), MaxMessageBytes: limit})
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range files {
				s, err := skills.Get(t.Context(), cs, f.skill)
				if err != nil {
					t.Fatalf("%v: %v", era, err)
				}
				dir := t.TempDir()
				p, pullErr := skills.Pull(t.Context(), cs, "srv", s, dir)
				if limit != 0 {
					// Pull reads each file as ReadFile does (readContent).
					if got, rerr := os.ReadFile(filepath.Join(p, f.rel)); pullErr != nil || rerr != nil || !bytes.Equal(got, f.want) {
						t.Errorf("%v, MaxMessageBytes %d: Pull: %v; %s: %d bytes, %v", era, limit, pullErr, f.rel, len(got), rerr)
					}
					continue
				}
				b, err := skills.ReadFile(t.Context(), cs, s, f.uri)
				want := "skills: resources/read " + f.uri + " (10485760 bytes): the answer is over the client transport's limit of 4194304 bytes; " +
					"raise its MaxMessageBytes (mcphttp.ClientTransport, mcpsse.ClientTransport, mcp.CommandTransport, mcp.StdioTransport), " +
					"to skills.MessageBytes (25165824) for any file of a skill: " +
					"mcp: resources/read: mcp: message exceeds the limit of 4194304 bytes"
				for what, err := range map[string]error{"ReadFile": err, "Pull": pullErr} {
					var tooLarge *mcp.FrameTooLargeError
					if err == nil || err.Error() != want || !errors.As(err, &tooLarge) || tooLarge.Limit != 4<<20 {
						t.Errorf("%v: %s %s:\n got %v\nwant %s", era, what, f.uri, err, want)
					}
				}
				if b != nil || p != "" {
					t.Errorf("%v: %d bytes read, pulled to %q", era, len(b), p)
				}
				if entries, _ := os.ReadDir(dir); len(entries) != 0 {
					t.Errorf("%v: Pull wrote %v", era, entries)
				}
			}
			// The session goes on.
			if _, err := skills.Get(t.Context(), cs, "skill://code-review/SKILL.md"); err != nil {
				t.Errorf("%v: skills/get after the failures: %v", era, err)
			}
			cs.Close()
		}
	}
}
