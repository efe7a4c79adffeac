package mcp

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestRunAnswersRequestsReadBeforeEOF pipes a whole conversation and closes
// the input at once, as `printf ... | mcpkit serve` does: every request
// read before EOF is still answered before Run returns.
func TestRunAnswersRequestsReadBeforeEOF(t *testing.T) {
	s := NewServer(Implementation{Name: "eof", Version: "1"}, nil)
	type in struct {
		Text string `json:"text"`
	}
	if err := AddTool(s, &Tool{Name: "echo"}, func(_ context.Context, _ *Request, a in) (string, error) { return a.Text, nil }); err != nil {
		t.Fatal(err)
	}
	input := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"b"}}}`,
	}, "\n") + "\n"
	var out bytes.Buffer
	if err := s.Run(context.Background(), &StdioTransport{In: strings.NewReader(input), Out: &out}); err != nil {
		t.Fatalf("Run: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("got %d lines, want 3:\n%s", len(lines), out.String())
	}
	want := map[string]bool{
		`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"a"}]}}`: true,
		`{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"b"}]}}`: true,
	}
	for _, l := range lines[1:] {
		if !want[l] {
			t.Errorf("unexpected line %s", l)
		}
		delete(want, l)
	}
}
