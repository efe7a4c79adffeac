package auth

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestFileStoreServers(t *testing.T) {
	ctx := context.Background()
	s := &FileStore{Dir: filepath.Join(t.TempDir(), "creds")}
	if got, err := s.Servers(ctx); err != nil || got != nil {
		t.Fatalf("Servers of a missing dir = %v, %v; want nil, nil", got, err)
	}
	for _, u := range []string{"https://b.example/mcp", "https://a.example/mcp"} {
		if err := s.Save(ctx, u, &Credentials{Issuer: "https://as.example"}); err != nil {
			t.Fatal(err)
		}
	}
	// Not a file of the store: a stray JSON file.
	if err := os.WriteFile(filepath.Join(s.Dir, "x.json"), []byte(`{"server":"https://c.example/mcp"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := s.Servers(ctx)
	if want := []string{"https://a.example/mcp", "https://b.example/mcp"}; err != nil || !slices.Equal(got, want) {
		t.Errorf("Servers = %v, %v; want %v", got, err, want)
	}
	if err := s.Save(ctx, "https://a.example/mcp", nil); err != nil {
		t.Fatal(err)
	}
	got, err = s.Servers(ctx)
	if want := []string{"https://b.example/mcp"}; err != nil || !slices.Equal(got, want) {
		t.Errorf("Servers after a delete = %v, %v; want %v", got, err, want)
	}
}
