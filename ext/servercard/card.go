package servercard

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/mcpkit/mcpkit/internal/jsonenc"
	"github.com/mcpkit/mcpkit/mcp"
)

// Names the Server Card draft fixes
// (https://github.com/modelcontextprotocol/experimental-ext-server-card,
// schema.ts and docs/discovery.md).
const (
	// SchemaURL is the only $schema a Server Card may name.
	SchemaURL = "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json"
	// MediaType is the Server Card media type, served as the card's
	// Content-Type and named by every catalog entry's type.
	MediaType = "application/mcp-server-card+json"
	// CardSuffix is appended to the streamable-HTTP endpoint's path to
	// make the card's reserved location (discovery.md, "Server Card
	// Location").
	CardSuffix = "/server-card"
	// CatalogPath is the well-known location of the domain's MCP Catalog
	// (discovery.md, "Well-Known URI").
	CatalogPath = "/.well-known/mcp/catalog.json"
	// CatalogSpecVersion is the catalog format's specVersion.
	CatalogSpecVersion = "draft"
)

// Card is an MCP Server Card: a static description of a remote server
// that a client reads before it connects (schema.ts, ServerCard).
// Experimental: it follows a draft (SEP-2127) and may change with it.
//
// Capabilities, Tools, Prompts and Resources are the members SEP-2127's
// text describes for static primitives; the draft schema in the
// experimental repository leaves them out ("Server Cards intentionally
// omit primitive listings"), so they are set only when asked for
// (Info.Primitives).
type Card struct {
	Schema      string      `json:"$schema"`
	Name        string      `json:"name"`
	Version     string      `json:"version"`
	Description string      `json:"description"`
	Title       string      `json:"title,omitempty"`
	WebsiteURL  string      `json:"websiteUrl,omitempty"`
	Repository  *Repository `json:"repository,omitempty"`
	Icons       []mcp.Icon  `json:"icons,omitempty"`
	Remotes     []Remote    `json:"remotes,omitempty"`

	Capabilities *mcp.ServerCapabilities `json:"capabilities,omitempty"`
	Tools        []*mcp.Tool             `json:"tools,omitempty"`
	Prompts      []*mcp.Prompt           `json:"prompts,omitempty"`
	Resources    []*mcp.Resource         `json:"resources,omitempty"`

	Meta mcp.Meta `json:"_meta,omitempty"`
}

// Repository says where the server's source is (schema.ts, Repository).
type Repository struct {
	URL       string `json:"url"`
	Source    string `json:"source"`
	Subfolder string `json:"subfolder,omitempty"`
	ID        string `json:"id,omitempty"`
}

// Remote is an HTTP endpoint of the server (schema.ts, Remote). Type is
// "streamable-http" or "sse".
type Remote struct {
	Type                      string           `json:"type"`
	URL                       string           `json:"url"`
	Headers                   []KeyValueInput  `json:"headers,omitempty"`
	Variables                 map[string]Input `json:"variables,omitempty"`
	SupportedProtocolVersions []string         `json:"supportedProtocolVersions,omitempty"`
}

// Input is a value a client supplies or is given for a remote's URL
// variable or header (schema.ts, Input).
type Input struct {
	Description string   `json:"description,omitempty"`
	IsRequired  bool     `json:"isRequired,omitempty"`
	IsSecret    bool     `json:"isSecret,omitempty"`
	Format      string   `json:"format,omitempty"`
	Default     string   `json:"default,omitempty"`
	Placeholder string   `json:"placeholder,omitempty"`
	Value       string   `json:"value,omitempty"`
	Choices     []string `json:"choices,omitempty"`
}

// KeyValueInput is a named Input, a header (schema.ts, KeyValueInput).
type KeyValueInput struct {
	Name string `json:"name"`
	Input
	Variables map[string]Input `json:"variables,omitempty"`
}

// Catalog is an MCP Catalog, the document at CatalogPath listing a
// domain's server cards (discovery.md, "Catalog Format").
type Catalog struct {
	SpecVersion string         `json:"specVersion"`
	Entries     []CatalogEntry `json:"entries"`
}

// CatalogEntry points at one server card (discovery.md, "Catalog
// Entry"). Type must be MediaType.
type CatalogEntry struct {
	Identifier  string `json:"identifier"`
	DisplayName string `json:"displayName"`
	Type        string `json:"type"`
	URL         string `json:"url"`
}

var (
	namePattern   = regexp.MustCompile(`^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$`)
	remotePattern = regexp.MustCompile(`^(https?://[^\s]+|\{[a-zA-Z_][a-zA-Z0-9_]*\}[^\s]*)$`)
)

// Validate checks c against the draft schema's constraints: $schema is
// SchemaURL; name is namespace/name in [a-zA-Z0-9.-]/[a-zA-Z0-9._-], 3
// to 200 characters; version at most 255 characters and not a range;
// description 1 to 100 characters, title (if set) too; each remote of
// type streamable-http or sse with a URL that starts with http://,
// https:// or a {variable}.
func (c *Card) Validate() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if c.Schema != SchemaURL {
		bad("$schema is %q, want %q", c.Schema, SchemaURL)
	}
	if n := utf8.RuneCountInString(c.Name); n < 3 || n > 200 || !namePattern.MatchString(c.Name) {
		bad("name %q is not a reverse-DNS namespace/name (such as com.example/weather) of 3 to 200 characters", c.Name)
	}
	switch {
	case c.Version == "":
		bad("version is empty")
	case utf8.RuneCountInString(c.Version) > 255:
		bad("version is longer than 255 characters")
	case strings.ContainsAny(c.Version, "^~<>=*") || strings.HasSuffix(c.Version, ".x"):
		bad("version %q is a range, not a version", c.Version)
	}
	if n := utf8.RuneCountInString(c.Description); n < 1 || n > 100 {
		bad("description has %d characters, want 1 to 100", n)
	}
	if n := utf8.RuneCountInString(c.Title); c.Title != "" && n > 100 {
		bad("title has %d characters, want at most 100", n)
	}
	for i, r := range c.Remotes {
		if r.Type != "streamable-http" && r.Type != "sse" {
			bad("remotes[%d].type is %q, want streamable-http or sse", i, r.Type)
		}
		if !remotePattern.MatchString(r.URL) {
			bad("remotes[%d].url %q does not start with http://, https:// or a {variable}", i, r.URL)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("servercard: invalid card: %w", errors.Join(errs...))
	}
	return nil
}

// Info is what a generated card takes from outside the Server: what
// Implementation does not say, and where the server is.
type Info struct {
	// Name overrides Implementation.Name, which often is not the
	// reverse-DNS namespace/name a card needs.
	Name string
	// Description overrides Implementation.Description; the card
	// requires one (1 to 100 characters).
	Description string
	// URL is the public URL of the streamable-HTTP endpoint, such as
	// https://example.com/mcp: the card's remote, the base of its
	// reserved location, and the catalog entry's url. If empty, the card
	// has no remotes and no catalog is served for it.
	URL string
	// Versions are the remote's supportedProtocolVersions; if nil,
	// mcp.Versions(mcp.EraAuto), every version mcpkit serves.
	Versions []string
	// Repository, when set, is the card's repository.
	Repository *Repository
	// Primitives adds capabilities, tools, prompts and resources as
	// SEP-2127's text describes them. Off by default: the draft schema
	// leaves them out and rejects a card that has them.
	Primitives bool
	// Meta is the card's _meta.
	Meta mcp.Meta
}

// Source gives the card a Handler serves. FromServer and Static make
// one.
type Source interface {
	// encoded returns the card, encoded, and its ETag.
	encoded() (*encodedCard, error)
}

type encodedCard struct {
	card *Card
	body []byte
	etag string
}

func encode(c *Card) (*encodedCard, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	body, err := jsonenc.Marshal(c)
	if err != nil {
		return nil, fmt.Errorf("servercard: encoding the card: %w", err)
	}
	return &encodedCard{card: c, body: body, etag: etagOf(body)}, nil
}

// etagOf is a strong entity tag (RFC 9110 §8.8.3) of body: the first 128
// bits of its SHA-256, so that every replica serving the same bytes
// gives the same tag.
func etagOf(body []byte) string {
	sum := sha256.Sum256(body)
	return `"` + hex.EncodeToString(sum[:16]) + `"`
}

// Static returns a Source that serves c as it is now (c must not be
// changed afterwards). Handler reports a card that does not validate.
func Static(c *Card) Source {
	e, err := encode(c)
	return staticSource{e, err}
}

type staticSource struct {
	e   *encodedCard
	err error
}

func (s staticSource) encoded() (*encodedCard, error) { return s.e, s.err }

// Generate returns the card of s now: identity from s.Features().Implementation
// (overridden by info), one streamable-HTTP remote at info.URL, and,
// with info.Primitives, s.Features' capabilities, tools, prompts and
// resources. It depends on nothing but s's registrations and info, so
// replicas with the same registrations generate the same card, byte for
// byte.
func Generate(s *mcp.Server, info Info) *Card {
	impl := s.Features().Implementation
	c := &Card{
		Schema:      SchemaURL,
		Name:        cmp(info.Name, impl.Name),
		Version:     impl.Version,
		Description: cmp(info.Description, impl.Description),
		Title:       impl.Title,
		WebsiteURL:  impl.WebsiteURL,
		Repository:  info.Repository,
		Icons:       impl.Icons,
		Meta:        info.Meta,
	}
	if info.URL != "" {
		versions := info.Versions
		if versions == nil {
			versions = mcp.Versions(mcp.EraAuto)
		}
		c.Remotes = []Remote{{Type: "streamable-http", URL: info.URL, SupportedProtocolVersions: versions}}
	}
	if info.Primitives {
		f := s.Features()
		c.Capabilities = &f.Capabilities
		c.Tools, c.Prompts, c.Resources = f.Tools, f.Prompts, f.Resources
	}
	return c
}

func cmp(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// FromServer returns a Source that serves Generate(s, info). With
// info.Primitives the card is generated again when s's features change
// (mcp.Features.Version); otherwise once.
func FromServer(s *mcp.Server, info Info) Source {
	return &serverSource{s: s, info: info}
}

type serverSource struct {
	s    *mcp.Server
	info Info

	mu      sync.Mutex
	version uint64
	e       *encodedCard
	err     error
}

func (ss *serverSource) encoded() (*encodedCard, error) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.e != nil || ss.err != nil {
		if !ss.info.Primitives {
			return ss.e, ss.err
		}
		// A cheap look at the version: the card is only encoded again
		// when a feature changed.
		if v := ss.s.Features().Version; v == ss.version {
			return ss.e, ss.err
		}
	}
	c := Generate(ss.s, ss.info)
	ss.e, ss.err = encode(c)
	if ss.info.Primitives {
		ss.version = ss.s.Features().Version
	}
	return ss.e, ss.err
}

// catalogFor is the one-entry catalog of c: its identifier
// urn:air:{publisher}:{name} where publisher is the card's reverse-DNS
// namespace turned forward (com.example/weather is
// urn:air:example.com:weather), its display name the title or name, and
// its url the first streamable-HTTP remote plus CardSuffix. ok is false
// when c has no such remote with a plain http(s) URL.
func catalogFor(c *Card) (Catalog, bool) {
	for _, r := range c.Remotes {
		u, err := url.Parse(r.URL)
		if r.Type != "streamable-http" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || strings.Contains(r.URL, "{") {
			continue
		}
		ns, name, _ := strings.Cut(c.Name, "/")
		labels := strings.Split(ns, ".")
		for i, j := 0, len(labels)-1; i < j; i, j = i+1, j-1 {
			labels[i], labels[j] = labels[j], labels[i]
		}
		u.Path = strings.TrimSuffix(u.Path, "/") + CardSuffix
		u.RawQuery, u.Fragment = "", ""
		return Catalog{SpecVersion: CatalogSpecVersion, Entries: []CatalogEntry{{
			Identifier:  "urn:air:" + strings.Join(labels, ".") + ":" + name,
			DisplayName: cmp(c.Title, c.Name),
			Type:        MediaType,
			URL:         u.String(),
		}}}, true
	}
	return Catalog{}, false
}

// encodeCatalog encodes cat, checking every entry's type.
func encodeCatalog(cat *Catalog) ([]byte, error) {
	for i, e := range cat.Entries {
		if e.Type != MediaType {
			return nil, fmt.Errorf("servercard: catalog entry %d has type %q, want %q", i, e.Type, MediaType)
		}
		if e.Identifier == "" || e.DisplayName == "" || e.URL == "" {
			return nil, fmt.Errorf("servercard: catalog entry %d lacks an identifier, a displayName or a url", i)
		}
	}
	if cat.Entries == nil {
		c := *cat
		c.Entries = []CatalogEntry{}
		cat = &c
	}
	b, err := jsonenc.Marshal(cat)
	if err != nil {
		return nil, fmt.Errorf("servercard: encoding the catalog: %w", err)
	}
	return b, nil
}
