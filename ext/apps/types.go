package apps

import (
	"encoding/json"

	"github.com/mcpkit/mcpkit/mcp"
)

// ID is the extension's identifier, declared under
// capabilities.extensions (the spec's "Extension Identifier").
const ID = "io.modelcontextprotocol/ui"

// MIMEType is the mime type of an HTML app, the only one the spec defines
// (the spec's "UI Resource Format").
const MIMEType = "text/html;profile=mcp-app"

// Scheme is the URI scheme every UI resource uses, with its "://".
const Scheme = "ui://"

// DeprecatedResourceURIKey is the flat _meta key older servers set on a
// tool instead of _meta.ui.resourceUri (the spec's "Resource Discovery"
// deprecation notice). Hosts read it when _meta.ui.resourceUri is absent;
// servers never write it.
const DeprecatedResourceURIKey = "ui/resourceUri"

// Settings is what a host declares under capabilities.extensions[ID] (the
// spec's "Client (Host) Capabilities"): the content types it renders.
type Settings struct {
	// MIMETypes lists the UI content types the host supports; it is
	// required and lists MIMEType for HTML apps.
	MIMETypes []string `json:"mimeTypes"`
}

// Visibility values of ToolMeta.Visibility (the spec's "Visibility").
const (
	// VisibilityModel: the tool is visible to and callable by the agent.
	VisibilityModel = "model"
	// VisibilityApp: the tool is callable by an app of the same server.
	VisibilityApp = "app"
)

// ToolMeta is a tool's _meta.ui (the spec's McpUiToolMeta): the UI
// resource that renders its results and who may call it.
type ToolMeta struct {
	// ResourceURI is the ui:// resource that renders the tool's results.
	ResourceURI string `json:"resourceUri,omitempty"`
	// Visibility lists who may use the tool, VisibilityModel and/or
	// VisibilityApp; nil means both.
	Visibility []string `json:"visibility,omitempty"`
}

// CSP is the Content Security Policy an app asks for (the spec's
// McpUiResourceCsp): the origins it needs, each mapped to CSP directives.
// An empty list allows nothing beyond the restrictive defaults.
type CSP struct {
	// ConnectDomains are origins for fetch, XHR and WebSocket (connect-src).
	ConnectDomains []string `json:"connectDomains,omitempty"`
	// ResourceDomains are origins for scripts, images, styles, fonts and
	// media (script-src, img-src, style-src, font-src, media-src).
	ResourceDomains []string `json:"resourceDomains,omitempty"`
	// FrameDomains are origins for nested iframes (frame-src).
	FrameDomains []string `json:"frameDomains,omitempty"`
	// BaseURIDomains are the allowed base URIs (base-uri).
	BaseURIDomains []string `json:"baseUriDomains,omitempty"`
}

// Permissions are the browser features an app asks for (the spec's
// UIResourceMeta.permissions), each mapped to a Permission Policy
// feature of the iframe's allow attribute. A non-nil field asks for it.
type Permissions struct {
	Camera         *struct{} `json:"camera,omitempty"`
	Microphone     *struct{} `json:"microphone,omitempty"`
	Geolocation    *struct{} `json:"geolocation,omitempty"`
	ClipboardWrite *struct{} `json:"clipboardWrite,omitempty"`
}

// Granted is the value to set a Permissions field to.
var Granted = &struct{}{}

// ResourceMeta is a UI resource's _meta.ui (the spec's UIResourceMeta):
// its CSP, permissions, dedicated origin and border preference.
type ResourceMeta struct {
	// CSP, when nil, asks for the spec's restrictive default policy.
	CSP         *CSP         `json:"csp,omitempty"`
	Permissions *Permissions `json:"permissions,omitempty"`
	// Domain is a dedicated sandbox origin; its format is the host's.
	Domain string `json:"domain,omitempty"`
	// PrefersBorder asks for (true) or against (false) a visible border;
	// nil lets the host decide.
	PrefersBorder *bool `json:"prefersBorder,omitempty"`
}

// Methods between a View (the app's iframe) and its host (the spec's
// "MCP Apps Specific Messages" and "Lifecycle").
const (
	MethodInitialize           = "ui/initialize"
	MethodInitialized          = "ui/notifications/initialized"
	MethodToolInput            = "ui/notifications/tool-input"
	MethodToolInputPartial     = "ui/notifications/tool-input-partial"
	MethodToolResult           = "ui/notifications/tool-result"
	MethodToolCancelled        = "ui/notifications/tool-cancelled"
	MethodResourceTeardown     = "ui/resource-teardown"
	MethodRequestTeardown      = "ui/notifications/request-teardown"
	MethodSizeChanged          = "ui/notifications/size-changed"
	MethodHostContextChanged   = "ui/notifications/host-context-changed"
	MethodOpenLink             = "ui/open-link"
	MethodDownloadFile         = "ui/download-file"
	MethodMessage              = "ui/message"
	MethodRequestDisplayMode   = "ui/request-display-mode"
	MethodUpdateModelContext   = "ui/update-model-context"
	MethodSandboxProxyReady    = "ui/notifications/sandbox-proxy-ready"
	MethodSandboxResourceReady = "ui/notifications/sandbox-resource-ready"
	// SandboxMethodPrefix starts the methods a sandbox proxy keeps to
	// itself; it forwards every other message.
	SandboxMethodPrefix = "ui/notifications/sandbox-"
)

// UIProtocolVersion is the version of the View-host protocol the stable
// spec's ui/initialize carries.
const UIProtocolVersion = "2026-01-26"

// Display modes (the spec's McpUiDisplayMode).
const (
	DisplayInline     = "inline"
	DisplayFullscreen = "fullscreen"
	DisplayPIP        = "pip"
)

// ToolInputParams is the params of ui/notifications/tool-input and
// ui/notifications/tool-input-partial: the tool call's arguments.
type ToolInputParams struct {
	Arguments json.RawMessage `json:"arguments"`
}

// ToolCancelledParams is the params of ui/notifications/tool-cancelled.
type ToolCancelledParams struct {
	Reason string `json:"reason,omitempty"`
}

// ResourceTeardownParams is the params of ui/resource-teardown.
type ResourceTeardownParams struct {
	Reason string `json:"reason,omitempty"`
}

// SizeChangedParams is the params of ui/notifications/size-changed, in
// pixels.
type SizeChangedParams struct {
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
}

// OpenLinkParams is the params of ui/open-link.
type OpenLinkParams struct {
	URL string `json:"url"`
}

// MessageParams is the params of ui/message.
type MessageParams struct {
	Role    string           `json:"role"`
	Content *mcp.TextContent `json:"content"`
}

// DisplayModeParams is the params and the result of
// ui/request-display-mode.
type DisplayModeParams struct {
	Mode string `json:"mode"`
}

// UpdateModelContextParams is the params of ui/update-model-context.
type UpdateModelContextParams struct {
	Content           []mcp.Content   `json:"content,omitempty"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
}

// AppCapabilities is what a View declares in ui/initialize (the spec's
// McpUiAppCapabilities).
type AppCapabilities struct {
	Experimental          map[string]json.RawMessage `json:"experimental,omitempty"`
	Tools                 *ListChanged               `json:"tools,omitempty"`
	AvailableDisplayModes []string                   `json:"availableDisplayModes,omitempty"`
}

// ListChanged is a capability with an optional listChanged flag.
type ListChanged struct {
	ListChanged bool `json:"listChanged,omitempty"`
}

// InitializeParams is the params of ui/initialize.
type InitializeParams struct {
	AppInfo         mcp.Implementation `json:"appInfo"`
	AppCapabilities AppCapabilities    `json:"appCapabilities"`
	ProtocolVersion string             `json:"protocolVersion"`
}

// SandboxCapability is HostCapabilities.sandbox: what the host grants.
type SandboxCapability struct {
	Permissions *Permissions `json:"permissions,omitempty"`
	CSP         *CSP         `json:"csp,omitempty"`
}

// HostCapabilities is what a host answers in ui/initialize (the spec's
// HostCapabilities).
type HostCapabilities struct {
	Experimental    map[string]json.RawMessage `json:"experimental,omitempty"`
	OpenLinks       *struct{}                  `json:"openLinks,omitempty"`
	DownloadFile    *struct{}                  `json:"downloadFile,omitempty"`
	ServerTools     *ListChanged               `json:"serverTools,omitempty"`
	ServerResources *ListChanged               `json:"serverResources,omitempty"`
	Logging         *struct{}                  `json:"logging,omitempty"`
	Sandbox         *SandboxCapability         `json:"sandbox,omitempty"`
	// UpdateModelContext, Message and Sampling are the draft's.
	UpdateModelContext json.RawMessage `json:"updateModelContext,omitempty"`
	Message            json.RawMessage `json:"message,omitempty"`
	Sampling           json.RawMessage `json:"sampling,omitempty"`
}

// ToolInfo is HostContext.toolInfo: the call that made the View.
type ToolInfo struct {
	ID   *json.RawMessage `json:"id,omitempty"`
	Tool *mcp.Tool        `json:"tool"`
}

// HostContext is the host's UI context (the spec's HostContext), in the
// ui/initialize result and, partially, in
// ui/notifications/host-context-changed.
type HostContext struct {
	ToolInfo              *ToolInfo       `json:"toolInfo,omitempty"`
	Theme                 string          `json:"theme,omitempty"`
	Styles                json.RawMessage `json:"styles,omitempty"`
	DisplayMode           string          `json:"displayMode,omitempty"`
	AvailableDisplayModes []string        `json:"availableDisplayModes,omitempty"`
	ContainerDimensions   json.RawMessage `json:"containerDimensions,omitempty"`
	Locale                string          `json:"locale,omitempty"`
	TimeZone              string          `json:"timeZone,omitempty"`
	UserAgent             string          `json:"userAgent,omitempty"`
	Platform              string          `json:"platform,omitempty"`
	DeviceCapabilities    json.RawMessage `json:"deviceCapabilities,omitempty"`
	SafeAreaInsets        json.RawMessage `json:"safeAreaInsets,omitempty"`
}

// InitializeResult is the result of ui/initialize (the spec's
// McpUiInitializeResult).
type InitializeResult struct {
	ProtocolVersion  string             `json:"protocolVersion"`
	HostCapabilities HostCapabilities   `json:"hostCapabilities"`
	HostInfo         mcp.Implementation `json:"hostInfo"`
	HostContext      *HostContext       `json:"hostContext,omitempty"`
}

// SandboxResourceReadyParams is the params of
// ui/notifications/sandbox-resource-ready: the app's HTML and policy as
// the host hands them to its sandbox proxy.
type SandboxResourceReadyParams struct {
	HTML        string       `json:"html"`
	Sandbox     string       `json:"sandbox,omitempty"`
	CSP         *CSP         `json:"csp,omitempty"`
	Permissions *Permissions `json:"permissions,omitempty"`
}
