package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Servers lists the server URLs s holds credentials for, sorted. A
// missing Dir holds none; a file that is not one of s's is skipped.
func (s *FileStore) Servers(_ context.Context) ([]string, error) {
	if s.Dir == "" {
		return nil, errors.New("auth: FileStore.Dir is empty")
	}
	entries, err := os.ReadDir(s.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("auth: %w", err)
	}
	var servers []string
	for _, de := range entries {
		name := de.Name()
		if !de.Type().IsRegular() || strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ".json") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(s.Dir, name))
		if err != nil {
			return nil, fmt.Errorf("auth: %w", err)
		}
		var e fileEntry
		if json.Unmarshal(data, &e) != nil || e.Server == "" {
			continue
		}
		if p, err := s.path(e.Server); err != nil || filepath.Base(p) != name {
			continue
		}
		servers = append(servers, e.Server)
	}
	slices.Sort(servers)
	return servers, nil
}
