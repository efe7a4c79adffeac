package skills_test

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/fstest"

	"github.com/mcpkit/mcpkit/ext/skills"
	"github.com/mcpkit/mcpkit/mcp"
	"go.uber.org/goleak"
)

// TestBigFileStdio: over stdio with the transport's default
// MaxMessageBytes, a 10 MiB skill file fails ReadFile at once (the
// transport finds the response's id in the line it discards) with the
// error naming the option, and the session goes on; with
// skills.MessageBytes the file is read whole.
func TestBigFileStdio(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
	bin := bytes.Repeat([]byte{0xff, 1, 2, 3}, 10<<20/4)
	fsys := skillsFS()
	fsys["release-notes/big.bin"] = &fstest.MapFile{Data: bin}
	srv, _ := newServer(t, fsys, nil)
	for _, limit := range []int{0, skills.MessageBytes} {
		toClientR, toClientW := io.Pipe()
		toServerR, toServerW := io.Pipe()
		ss, err := srv.Connect(t.Context(), &mcp.StdioTransport{In: toServerR, Out: toClientW})
		if err != nil {
			t.Fatal(err)
		}
		cs, err := mcp.NewClient(mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{ProtocolEra: mcp.EraSession}).
			Connect(t.Context(), &mcp.StdioTransport{In: toClientR, Out: toServerW, MaxMessageBytes: limit})
		if err != nil {
			t.Fatal(err)
		}
		s, err := skills.Get(t.Context(), cs, "skill://release-notes/SKILL.md")
		if err != nil {
			t.Fatal(err)
		}
		b, err := skills.ReadFile(t.Context(), cs, s, "skill://release-notes/big.bin")
		if limit == 0 {
			want := "skills: resources/read skill://release-notes/big.bin (10485760 bytes): the answer is over the client transport's limit of 4194304 bytes; " +
				"raise its MaxMessageBytes (mcphttp.ClientTransport, mcpsse.ClientTransport, mcp.CommandTransport, mcp.StdioTransport), " +
				"to skills.MessageBytes (25165824) for any file of a skill: " +
				"mcp: resources/read: mcp: message exceeds the limit of 4194304 bytes"
			var tooLarge *mcp.FrameTooLargeError
			if err == nil || err.Error() != want || !errors.As(err, &tooLarge) || tooLarge.Limit != 4<<20 || b != nil {
				t.Errorf("ReadFile: %d bytes,\n got %v\nwant %s", len(b), err, want)
			}
			// The session goes on.
			if _, err := skills.Get(t.Context(), cs, "skill://code-review/SKILL.md"); err != nil {
				t.Errorf("skills/get after the failure: %v", err)
			}
		} else if err != nil || !bytes.Equal(b, bin) {
			t.Errorf("MaxMessageBytes %d: ReadFile: %d bytes, %v", limit, len(b), err)
		}
		cs.Close()
		ss.Wait()
	}
}
