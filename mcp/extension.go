package mcp

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mcpkit/mcpkit/internal/jsonenc"
)

// An Extension is a protocol extension a Server offers
// (https://modelcontextprotocol.io/extensions/overview#negotiation): its
// identifier and settings are declared under capabilities.extensions in
// both eras, and its methods are served beside the built-in ones. Its
// tools, resources and prompts are added with the Server's usual calls,
// and its _meta keys ride in the Meta fields of what it returns.
// Server.AddExtension adds one.
type Extension struct {
	// ID is the extension identifier, "{vendor-prefix}/{name}", for
	// example "io.modelcontextprotocol/skills".
	ID string
	// Settings is declared as capabilities.extensions[ID]. It must encode
	// to a JSON object; nil declares {}.
	Settings any
	// Methods are the requests the extension adds, by method name, served
	// in both eras through the server's middleware like built-in methods.
	Methods map[string]MethodHandler
	// Cacheable names those of Methods whose results are cacheable in
	// the 2026-07-28 era: their complete results carry ttlMs and
	// cacheScope, from ServerOptions.CacheHint, as the list methods' do
	// (https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/caching).
	Cacheable []string

	settings json.RawMessage
}

// methodTables are the method tables of the two eras, and the methods
// extensions declared cacheable.
type methodTables struct {
	session, stateless map[string]MethodHandler
	cacheable          map[string]bool
}

// AddExtension adds ext to the server: sessions initialized and
// server/discover answers from then on declare it, and its methods are
// served. It may be called while the server serves. It fails, changing
// nothing, when ID is not an extension identifier or was added already,
// when Settings does not encode to a JSON object, or when a method is
// served already (by mcp or another extension), or when Cacheable names
// a method not in Methods.
//
// When ServerOptions.Capabilities is set, the server declares exactly
// those capabilities, and extensions are declared there by hand.
func (s *Server) AddExtension(ext Extension) error {
	if err := checkExtensionID(ext.ID); err != nil {
		return err
	}
	settings, err := encodeSettings("mcp: extension "+ext.ID, ext.Settings)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.extensions {
		if e.ID == ext.ID {
			return fmt.Errorf("mcp: extension %s was added already", ext.ID)
		}
	}
	old := s.tables.Load()
	for method, h := range ext.Methods {
		if method == "" || h == nil {
			return fmt.Errorf("mcp: extension %s: method %q has no name or no handler", ext.ID, method)
		}
		_, inSession := old.session[method]
		_, inStateless := old.stateless[method]
		if inSession || inStateless {
			return fmt.Errorf("mcp: extension %s: method %s is served already", ext.ID, method)
		}
	}
	for _, method := range ext.Cacheable {
		if ext.Methods[method] == nil {
			return fmt.Errorf("mcp: extension %s: cacheable method %s is not one of its methods", ext.ID, method)
		}
	}
	tables := &methodTables{session: maps.Clone(old.session), stateless: maps.Clone(old.stateless), cacheable: maps.Clone(old.cacheable)}
	for method, h := range ext.Methods {
		tables.session[method], tables.stateless[method] = h, h
	}
	for _, method := range ext.Cacheable {
		if tables.cacheable == nil {
			tables.cacheable = make(map[string]bool)
		}
		tables.cacheable[method] = true
	}
	ext.Methods = maps.Clone(ext.Methods)
	ext.Cacheable = slices.Clone(ext.Cacheable)
	ext.settings = settings
	s.extensions = append(s.extensions, &ext)
	s.tables.Store(tables)
	return nil
}

// extensionsCapability is capabilities.extensions for the extensions
// added, or nil. It is called with s.mu read-locked.
func (s *Server) extensionsCapability() map[string]json.RawMessage {
	if len(s.extensions) == 0 {
		return nil
	}
	m := make(map[string]json.RawMessage, len(s.extensions))
	for _, e := range s.extensions {
		m[e.ID] = e.settings
	}
	return m
}

// checkExtensionID checks an extension identifier: a vendor prefix of
// dot-separated labels (each starting with a letter and ending with a
// letter or digit, hyphens inside), a slash, and a name that starts and
// ends with a letter or digit, with '-', '_' and '.' inside
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/index#meta).
func checkExtensionID(id string) error {
	prefix, name, ok := strings.Cut(id, "/")
	if !ok || prefix == "" || name == "" || strings.Contains(name, "/") {
		return fmt.Errorf("mcp: extension identifier %q is not {vendor-prefix}/{name}", id)
	}
	for label := range strings.SplitSeq(prefix, ".") {
		if label == "" || !isASCIILetter(label[0]) || !isAlnum(label[len(label)-1]) || strings.IndexFunc(label, func(r rune) bool {
			return r > 0x7f || !(isAlnum(byte(r)) || r == '-')
		}) >= 0 {
			return fmt.Errorf("mcp: extension identifier %q: the vendor prefix %q is not dot-separated labels", id, prefix)
		}
	}
	if !isAlnum(name[0]) || !isAlnum(name[len(name)-1]) || strings.IndexFunc(name, func(r rune) bool {
		return r > 0x7f || !(isAlnum(byte(r)) || r == '-' || r == '_' || r == '.')
	}) >= 0 {
		return fmt.Errorf("mcp: extension identifier %q: the name %q is not letters, digits, '-', '_' and '.'", id, name)
	}
	return nil
}

func isASCIILetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

func isAlnum(c byte) bool { return isASCIILetter(c) || c >= '0' && c <= '9' }

// encodeSettings encodes an extension's settings, which must be a JSON
// object ({} for nil). Its errors start with what and are mcpkit's own
// texts on every Go release; the encoder's error is kept for errors.As.
func encodeSettings(what string, v any) (json.RawMessage, error) {
	if v == nil {
		return json.RawMessage(emptyObject), nil
	}
	if raw, ok := v.(json.RawMessage); ok && !json.Valid(raw) {
		return nil, fmt.Errorf("%s: its settings are not valid JSON", what)
	}
	b, err := jsonenc.Marshal(v)
	if err != nil {
		return nil, &settingsError{msg: fmt.Sprintf("%s: its settings (%T) cannot be encoded as JSON", what, v), err: err}
	}
	if len(b) == 0 || b[0] != '{' {
		return nil, fmt.Errorf("%s: its settings encode to %.40s, not a JSON object", what, b)
	}
	return b, nil
}

// settingsError is an encoding failure of extension settings: mcpkit's
// text, with the encoder's error beneath.
type settingsError struct {
	msg string
	err error
}

func (e *settingsError) Error() string { return e.msg }
func (e *settingsError) Unwrap() error { return e.err }
