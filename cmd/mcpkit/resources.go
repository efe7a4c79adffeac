package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/mcpkit/mcpkit/mcp"
)

// resourcesList implements `mcpkit resources list`: every resource of the
// server, then every resource template, all pages. People get one line
// each: URI (or URI template), MIME type and description; --json gives
// {"resources":[...],"resourceTemplates":[...]} with the items as the
// server sent them. A server that did not declare the resources
// capability, or answers a list method with -32601, simply has none.
func resourcesList(ctx context.Context, e *env, args []string) error {
	cs, f, err := connectForList(ctx, e, "resources list", args)
	if err != nil {
		return err
	}
	defer closeSession(e, cs)

	caps := cs.ServerCapabilities()
	declared := caps == nil || caps.Resources != nil
	resources, err := listOffered(ctx, cs, declared, "resources/list", "resources")
	if err != nil {
		return err
	}
	templates, err := listOffered(ctx, cs, declared, "resources/templates/list", "resourceTemplates")
	if err != nil {
		return err
	}
	if f.json {
		return printJSON(e.stdout, map[string]any{"resources": resources, "resourceTemplates": templates})
	}
	if len(resources)+len(templates) == 0 {
		return sayNone(e.stdout, "resources or resource templates")
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 8, 2, ' ', 0)
	for _, raw := range resources {
		var r mcp.Resource
		if err := json.Unmarshal(raw, &r); err != nil {
			return fmt.Errorf("resources/list: undecodable resource %s: %w", raw, err)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", r.URI, r.MIMEType, firstLine(r.Description))
	}
	for _, raw := range templates {
		var rt mcp.ResourceTemplate
		if err := json.Unmarshal(raw, &rt); err != nil {
			return fmt.Errorf("resources/templates/list: undecodable template %s: %w", raw, err)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", rt.URITemplate, rt.MIMEType, firstLine(rt.Description))
	}
	return tw.Flush()
}

// sayNone tells a person that a list is empty, rather than print
// nothing: "none (the server offers no WHAT)".
func sayNone(w io.Writer, what string) error {
	_, err := fmt.Fprintf(w, "none (the server offers no %s)\n", what)
	return err
}

// listAll reads every page of a list method and returns its items (the
// result member named member) raw, so that --json shows them as sent.
func listAll(ctx context.Context, cs *mcp.ClientSession, method, member string) ([]json.RawMessage, error) {
	items := []json.RawMessage{}
	cursor := ""
	for {
		var page map[string]json.RawMessage
		if err := cs.Call(ctx, method, &mcp.PaginatedParams{Cursor: cursor}, &page); err != nil {
			return nil, callFailed(method, method, err)
		}
		var some []json.RawMessage
		if raw, ok := page[member]; ok {
			if err := json.Unmarshal(raw, &some); err != nil {
				return nil, fmt.Errorf("%s: %s is not a list: %w", method, member, err)
			}
		}
		items = append(items, some...)
		var next string
		if raw, ok := page["nextCursor"]; ok {
			_ = json.Unmarshal(raw, &next)
		}
		if next == "" || next == cursor {
			return items, nil
		}
		cursor = next
	}
}

// resourcesRead implements `mcpkit resources read URI`. People get text
// contents as they are and a one-line summary of each blob; --json prints
// the result exactly as the server sent it.
func resourcesRead(ctx context.Context, e *env, args []string) error {
	own, command := splitCommand(args)
	var f clientFlags
	fs := newFlagSet("resources read")
	f.register(fs)
	positional, err := parseFlags(fs, own)
	if err != nil {
		return err
	}
	if len(positional) != 1 {
		return usagef("resources read: want exactly one URI before --, got %d arguments", len(positional))
	}
	uri := positional[0]
	cs, err := f.connect(ctx, e, command)
	if err != nil {
		return err
	}
	defer closeSession(e, cs)

	var raw json.RawMessage
	if err := cs.Call(ctx, "resources/read", &mcp.ReadResourceParams{URI: uri}, &raw); err != nil {
		return callFailed("resources/read "+uri, "resources/read", err)
	}
	if f.json {
		return printJSON(e.stdout, raw)
	}
	var res mcp.ReadResourceResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return fmt.Errorf("resources/read %s: undecodable result %s: %w", uri, raw, err)
	}
	var out strings.Builder
	for _, c := range res.Contents {
		if c == nil {
			continue
		}
		if c.Blob != "" {
			fmt.Fprintf(&out, "[blob %s", c.URI)
			if c.MIMEType != "" {
				fmt.Fprintf(&out, ", %s", c.MIMEType)
			}
			fmt.Fprintf(&out, ", %s]", decodedSize(c.Blob))
		} else {
			out.WriteString(c.Text)
		}
		if out.Len() > 0 && !strings.HasSuffix(out.String(), "\n") {
			out.WriteString("\n")
		}
	}
	_, err = io.WriteString(e.stdout, out.String())
	return err
}
