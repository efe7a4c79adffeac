package mcp

// This file holds the protocol's data types for the methods the core serves:
// the lifecycle, ping, tools and content. They follow the 2025-11-25 schema
// (https://modelcontextprotocol.io/specification/2025-11-25/schema) and carry
// the fields older versions need. Every optional field is omitted when zero,
// so that what goes on the wire is what the schema allows.

import (
	"encoding/json"
	"slices"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

// Protocol versions mcpkit serves. Versions lists every one, older
// session-era versions included.
const (
	// Version20251125 is the newest version negotiated through initialize
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#version-negotiation).
	Version20251125 = "2025-11-25"

	// LatestVersion is what a server answers when the client asks for a
	// version it does not support, and what a Client requests.
	LatestVersion = Version20251125

	// Version20260728 is the first version of the stateless era: no
	// initialize, every request carries its version and the client's
	// capabilities in _meta
	// (https://modelcontextprotocol.io/specification/2026-07-28/basic#_meta).
	// It is never negotiated through initialize.
	Version20260728 = "2026-07-28"
)

// The older session-era versions, which only Versions names.
const (
	version20250618 = "2025-06-18"
	version20250326 = "2025-03-26"
	version20241105 = "2024-11-05"
)

// The version lists are kept unexported and handed out as copies, so
// that no importer can change which versions mcpkit negotiates for every
// other user of the package.
var (
	statelessVersions = []string{Version20260728}
	servedVersions    = []string{Version20260728, Version20251125, version20250618, version20250326, version20241105}
	sessionVersions   = []string{Version20251125, version20250618, version20250326, version20241105}
)

// Versions returns the protocol versions mcpkit serves in era, newest
// first: for EraSession those initialize negotiates
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#version-negotiation),
// for EraStateless those a request names in _meta
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning),
// for EraAuto both, as server/discover lists them. The slice is a fresh
// copy.
func Versions(era ProtocolEra) []string {
	switch era {
	case EraSession:
		return slices.Clone(sessionVersions)
	case EraStateless:
		return slices.Clone(statelessVersions)
	}
	return slices.Clone(servedVersions)
}

// isSessionVersion reports whether v is a session-era version mcpkit
// serves.
func isSessionVersion(v string) bool { return slices.Contains(sessionVersions, v) }

// negotiateVersion returns the version a server answers to a client that
// asked for requested: the same version when it is supported, otherwise
// LatestVersion.
func negotiateVersion(requested string) string {
	if isSessionVersion(requested) {
		return requested
	}
	return LatestVersion
}

// Meta is the "_meta" member that requests, results and notifications may
// carry (https://modelcontextprotocol.io/specification/2025-11-25/basic#meta).
// Keys are kept raw so that unknown ones pass through untouched.
type Meta map[string]json.RawMessage

// ProgressToken names the request a progress notification belongs to. It is
// a string or an integer, like a request id.
type ProgressToken = jsonrpc.ID

// RequestMeta is the "_meta" of a request's params. Only the progress token
// is read; other keys are ignored.
type RequestMeta struct {
	ProgressToken ProgressToken `json:"progressToken,omitzero"`
}

// Icon is an image a client may show for a server, tool, resource or prompt.
type Icon struct {
	Src      string   `json:"src"`
	MIMEType string   `json:"mimeType,omitempty"`
	Sizes    []string `json:"sizes,omitempty"`
	// Theme is "light" or "dark", or empty for any background.
	Theme string `json:"theme,omitempty"`
}

// Implementation names a client or server program and its version.
type Implementation struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Version     string `json:"version"`
	Description string `json:"description,omitempty"`
	WebsiteURL  string `json:"websiteUrl,omitempty"`
	Icons       []Icon `json:"icons,omitempty"`
}

// ClientCapabilities is what a client declares it can do in initialize
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#capability-negotiation).
// A nil field means the capability is absent.
type ClientCapabilities struct {
	Experimental map[string]json.RawMessage `json:"experimental,omitempty"`
	Roots        *RootsCapability           `json:"roots,omitempty"`
	Sampling     *SamplingCapability        `json:"sampling,omitempty"`
	Elicitation  *ElicitationCapability     `json:"elicitation,omitempty"`
	Tasks        json.RawMessage            `json:"tasks,omitempty"`
	// Extensions names the protocol extensions the client supports, keyed
	// by extension id, such as "io.modelcontextprotocol/tasks"
	// (https://modelcontextprotocol.io/specification/2026-07-28/schema#clientcapabilities).
	Extensions map[string]json.RawMessage `json:"extensions,omitempty"`
}

// RootsCapability says the client can list roots.
type RootsCapability struct {
	ListChanged bool `json:"listChanged,omitempty"`
}

// SamplingCapability says the client can sample an LLM for the server.
type SamplingCapability struct {
	// Context, if set, lets the server ask to include context.
	Context *struct{} `json:"context,omitempty"`
	// Tools, if set, lets the server pass tools and toolChoice.
	Tools *struct{} `json:"tools,omitempty"`
}

// ElicitationCapability says the client can ask its user for input. An
// empty object means form mode, as in versions before 2025-11-25.
type ElicitationCapability struct {
	Form *struct{} `json:"form,omitempty"`
	URL  *struct{} `json:"url,omitempty"`
}

// ServerCapabilities is what a server declares in its initialize result.
type ServerCapabilities struct {
	Experimental map[string]json.RawMessage `json:"experimental,omitempty"`
	Logging      *struct{}                  `json:"logging,omitempty"`
	Completions  *struct{}                  `json:"completions,omitempty"`
	Prompts      *ListChangedCapability     `json:"prompts,omitempty"`
	Resources    *ResourcesCapability       `json:"resources,omitempty"`
	Tools        *ListChangedCapability     `json:"tools,omitempty"`
	Tasks        json.RawMessage            `json:"tasks,omitempty"`
	// Extensions names the protocol extensions the server offers, keyed by
	// extension id (2026-07-28 and later; for example the tasks extension,
	// https://modelcontextprotocol.io/specification/2026-07-28/schema#servercapabilities).
	Extensions map[string]json.RawMessage `json:"extensions,omitempty"`
}

// ListChangedCapability declares a feature and whether the server sends
// list_changed notifications for it.
type ListChangedCapability struct {
	ListChanged bool `json:"listChanged,omitempty"`
}

// ResourcesCapability declares resources, subscriptions and list_changed.
type ResourcesCapability struct {
	Subscribe   bool `json:"subscribe,omitempty"`
	ListChanged bool `json:"listChanged,omitempty"`
}

// initializeParams opens a session
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#initialization).
type initializeParams struct {
	Meta            *RequestMeta        `json:"_meta,omitempty"`
	ProtocolVersion string              `json:"protocolVersion"`
	Capabilities    *ClientCapabilities `json:"capabilities"`
	ClientInfo      *Implementation     `json:"clientInfo"`
}

// InitializeResult answers initialize.
type InitializeResult struct {
	Meta            Meta               `json:"_meta,omitempty"`
	ProtocolVersion string             `json:"protocolVersion"`
	Capabilities    ServerCapabilities `json:"capabilities"`
	ServerInfo      Implementation     `json:"serverInfo"`
	Instructions    string             `json:"instructions,omitempty"`
}

// PaginatedParams is the params of every list method: tools/list,
// prompts/list, resources/list, resources/templates/list and tasks/list
// (https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/pagination).
type PaginatedParams struct {
	Meta   *RequestMeta `json:"_meta,omitempty"`
	Cursor string       `json:"cursor,omitempty"`
}

// ListToolsResult is one page of tools.
type ListToolsResult struct {
	Meta       Meta    `json:"_meta,omitempty"`
	Tools      []*Tool `json:"tools"`
	NextCursor string  `json:"nextCursor,omitempty"`

	page *listPage[*Tool] // the cached page it was made from
}

// Tool describes a tool a client may call
// (https://modelcontextprotocol.io/specification/2025-11-25/server/tools#tool).
type Tool struct {
	Meta        Meta   `json:"_meta,omitempty"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	// InputSchema is the JSON Schema of the arguments; its type is "object".
	// It is sent verbatim. AddTool infers it when left nil.
	InputSchema json.RawMessage `json:"inputSchema"`
	// OutputSchema, when set, describes structuredContent.
	OutputSchema json.RawMessage  `json:"outputSchema,omitempty"`
	Annotations  *ToolAnnotations `json:"annotations,omitempty"`
	Execution    *ToolExecution   `json:"execution,omitempty"`
	Icons        []Icon           `json:"icons,omitempty"`
	// RequiredScopes lists the OAuth scopes a caller's token must grant to
	// call the tool; a server that authorizes requests (package auth)
	// answers a tools/call without them 403 insufficient_scope
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#scope-challenge-handling).
	// It is server-side policy and never sent; nil requires nothing beyond
	// what the server requires of every request.
	RequiredScopes []string `json:"-"`
	// InputBeforeTask, for a tool that may run as a task
	// (Execution.TaskSupport optional or required), lets its handler
	// gather input before the task exists, as SEP-2663 advises ("Task
	// Creation": resolve multi round-trip requests synchronously before
	// answering with a CreateTaskResult). In the 2026-07-28 era, when the
	// client declares the tasks extension, the handler first runs as a
	// plain request: Request.Input is answered by input_required results
	// and the client's retries
	// (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr)
	// until the handler calls Request.BeginTask; the task is created then,
	// and the handler runs again as its work, Request.Input returning the
	// answers gathered before. It is server-side policy and never sent;
	// false creates the task at once.
	InputBeforeTask bool `json:"-"`
}

// ToolAnnotations are hints about a tool's behaviour. Clients must not trust
// them from untrusted servers.
type ToolAnnotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// ToolExecution says how a tool may be run; TaskSupport is "forbidden"
// (the default), "optional" or "required".
type ToolExecution struct {
	TaskSupport string `json:"taskSupport,omitempty"`
}

// CallToolParams is the params of tools/call.
type CallToolParams struct {
	Meta      *RequestMeta    `json:"_meta,omitempty"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// Task, if set, asks for the call to run as a task (experimental):
	// the answer is then a CreateTaskResult; see
	// ClientSession.CallToolAsTask.
	Task *TaskMetadata `json:"task,omitempty"`
}

// CallToolResult is what a tool returns. A tool's own failure is a result
// with IsError set, so that the model can see it and correct itself; only a
// failure to find or run the tool is a protocol error
// (https://modelcontextprotocol.io/specification/2025-11-25/server/tools#error-handling).
type CallToolResult struct {
	Meta              Meta            `json:"_meta,omitempty"`
	Content           []Content       `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`

	// encoded is the JSON a typed tool's outEncoder wrote, as the text of
	// the result's one text content; see ownEncoding.
	encoded string
}

// cancelledParams is the params of notifications/cancelled
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/cancellation).
type cancelledParams struct {
	RequestID jsonrpc.ID `json:"requestId"`
	Reason    string     `json:"reason,omitempty"`
}

// ProgressParams is the params of notifications/progress
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/progress).
type ProgressParams struct {
	ProgressToken ProgressToken `json:"progressToken"`
	Progress      float64       `json:"progress"`
	Total         float64       `json:"total,omitempty"`
	Message       string        `json:"message,omitempty"`
}
