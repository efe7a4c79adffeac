package auth

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"golang.org/x/oauth2"
)

// FileStore round-trips credentials in a 0600 file per server, and
// deletes it on nil.
func TestFileStore(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tokens")
	s := &FileStore{Dir: dir}
	ctx := context.Background()
	if c, err := s.Load(ctx, "https://a.example/mcp"); c != nil || err != nil {
		t.Fatalf("empty store: %v, %v", c, err)
	}
	want := &Credentials{Issuer: "https://as.example", ClientID: "id", AuthMethod: "none", Scope: "a b",
		Token: &oauth2.Token{AccessToken: "at", TokenType: "Bearer", RefreshToken: "rt"}}
	if err := s.Save(ctx, "https://a.example/mcp", want); err != nil {
		t.Fatal(err)
	}
	got, err := s.Load(ctx, "https://a.example/mcp")
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("Load = %+v, %v; want %+v", got, err, want)
	}
	if c, _ := s.Load(ctx, "https://b.example/mcp"); c != nil {
		t.Fatalf("another server's credentials: %+v", c)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("%d files", len(entries))
	}
	fi, _ := entries[0].Info()
	di, _ := os.Stat(dir)
	if fi.Mode().Perm() != 0o600 || di.Mode().Perm() != 0o700 {
		t.Fatalf("modes %v %v", fi.Mode(), di.Mode())
	}
	if err := s.Save(ctx, "https://a.example/mcp", nil); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("%d files after delete", len(entries))
	}
	if _, err := (&FileStore{}).Load(ctx, "x"); err == nil {
		t.Fatal("no error without Dir")
	}
}
