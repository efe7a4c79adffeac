package everything

import (
	"context"
	"encoding/json"

	"github.com/mcpkit/mcpkit/mcp"
)

// The conformance suite's resources (@modelcontextprotocol/conformance,
// pinned in conformance/package.json): URIs, names, MIME types and
// contents are the ones the suite's resources-* scenarios read.
const (
	StaticTextURI   = "test://static-text"
	StaticBinaryURI = "test://static-binary"
	WatchedURI      = "test://watched-resource"
	// TemplateURI is the template of test://template/123/data and friends.
	TemplateURI = "test://template/{id}/data"

	staticText  = "This is the content of the static text resource."
	watchedText = "Watched resource content"
)

// addResources registers the conformance resources and template. The
// watched resource is the one the suite subscribes to; a server embedding
// the reference server announces changes to it with
// s.ResourceUpdated(ctx, WatchedURI).
func addResources(s *mcp.Server) {
	text := func(text string) mcp.ResourceHandler {
		return func(context.Context, *mcp.Request, *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{Text: text}}}, nil
		}
	}
	must(s.AddResource(&mcp.Resource{
		URI: StaticTextURI, Name: "static-text", Title: "Static text",
		Description: "A static text resource (conformance fixture).", MIMEType: "text/plain",
	}, text(staticText)))
	must(s.AddResource(&mcp.Resource{
		URI: StaticBinaryURI, Name: "static-binary", Title: "Static binary",
		Description: "A static binary resource, a 1x1 PNG image (conformance fixture).", MIMEType: "image/png",
	}, func(context.Context, *mcp.Request, *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{Blob: PNG}}}, nil
	}))
	must(s.AddResource(&mcp.Resource{
		URI: WatchedURI, Name: "watched-resource", Title: "Watched resource",
		Description: "A resource clients may subscribe to (conformance fixture).", MIMEType: "text/plain",
	}, text(watchedText)))
	must(s.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: TemplateURI, Name: "template", Title: "Data by id",
		Description: "JSON data for any id (conformance fixture).", MIMEType: "application/json",
	}, func(_ context.Context, _ *mcp.Request, p *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
		id := p.Variables["id"]
		// A struct keeps the members in the order the suite's reference
		// server writes them, and escapes the id.
		data, err := json.Marshal(struct {
			ID           string `json:"id"`
			TemplateTest bool   `json:"templateTest"`
			Data         string `json:"data"`
		}{id, true, "Data for ID: " + id})
		if err != nil {
			return nil, err
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{Text: string(data)}}}, nil
	}))
}
