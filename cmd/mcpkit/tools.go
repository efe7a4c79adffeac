package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/mcpkit/mcpkit/internal/jsonenc"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
)

// toolsList implements `mcpkit tools list`: every tool of the server, all
// pages. People get one line per tool, name and description; --json gives
// {"tools":[...]} with the tools as the server sent them.
func toolsList(ctx context.Context, e *env, args []string) error {
	cs, f, err := connectForList(ctx, e, "tools list", args)
	if err != nil {
		return err
	}
	defer closeSession(e, cs)

	// Pages are read raw, so that --json shows each tool exactly as sent.
	tools, err := listAll(ctx, cs, "tools/list", "tools")
	if err != nil {
		return err
	}
	decoded := make([]mcp.Tool, len(tools))
	for i, raw := range tools {
		if err := json.Unmarshal(raw, &decoded[i]); err != nil {
			return fmt.Errorf("tools/list: undecodable tool %s: %w", raw, err)
		}
	}
	if f.json {
		return printJSON(e.stdout, map[string]any{"tools": tools})
	}
	if len(decoded) == 0 {
		return sayNone(e.stdout, "tools")
	}
	// A line per tool, then one per argument, indented: name (type,
	// required), and the descriptions in one column.
	var b bytes.Buffer
	tw := tabwriter.NewWriter(&b, 0, 8, 2, ' ', 0)
	for _, t := range decoded {
		fmt.Fprintf(tw, "%s\t%s\n", t.Name, firstLine(t.Description))
		for _, a := range toolArguments(t.InputSchema) {
			attrs := a.typ
			if a.required {
				attrs += ", required"
			}
			fmt.Fprintf(tw, "  %s (%s)\t%s\n", a.name, attrs, a.description)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	// An argument without a description leaves the column's padding.
	var out strings.Builder
	for line := range strings.Lines(b.String()) {
		out.WriteString(strings.TrimRight(line, " \n"))
		out.WriteString("\n")
	}
	_, err = io.WriteString(e.stdout, out.String())
	return err
}

// toolsCall implements `mcpkit tools call NAME`. People get the text
// contents as they are and a one-line summary of every other content; a
// result with isError goes to stderr with exit status 1. --json prints the
// result exactly as the server sent it (and still exits 1 on isError).
func toolsCall(ctx context.Context, e *env, args []string) error {
	own, command := splitCommand(args)
	var f clientFlags
	var argsJSON string
	fs := newFlagSet("tools call")
	f.register(fs)
	fs.StringVar(&argsJSON, "args", "", "the tool's arguments, a JSON `OBJECT`; if empty, none are sent")
	positional, err := parseFlags(fs, own)
	if err != nil {
		return err
	}
	if len(positional) != 1 {
		if len(command) > 0 {
			return usagef("tools call: want exactly one tool name before --, got %d arguments", len(positional))
		}
		return usagef("tools call: want exactly one tool name, got %d arguments\nusage: mcpkit %s", len(positional), helpTopics["tools call"].usage)
	}
	name := positional[0]
	var arguments json.RawMessage
	if argsJSON != "" {
		if arguments, err = parseArgs("tools call", argsJSON); err != nil {
			return err
		}
	}
	cs, err := f.connect(ctx, e, command)
	if err != nil {
		return err
	}
	defer closeSession(e, cs)

	// The progress token lets a long tool report progress, which
	// restarts --timeout (up to --max-timeout).
	params := &mcp.CallToolParams{Name: name, Arguments: arguments, Meta: &mcp.RequestMeta{ProgressToken: jsonrpc.StringID("mcpkit-call")}}
	var raw json.RawMessage
	err = cs.Call(ctx, "tools/call", params, &raw)
	e.status.clear() // the result goes where the progress was shown
	if err != nil {
		if isUnknownTool(err) {
			err = &explainedError{msg: fmt.Sprintf("%v; see `mcpkit tools list %s` for the tools it offers", err, f.serverArgs(command)), err: err}
		}
		return callFailed("tools/call "+name, "tools/call", err)
	}
	var res mcp.CallToolResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return fmt.Errorf("tools/call %s: undecodable result %s: %w", name, raw, err)
	}

	if f.json {
		if err := printJSON(e.stdout, raw); err != nil {
			return err
		}
		if res.IsError {
			return &exitCodeError{code: exitError, msg: fmt.Sprintf("tool %s reported an error", name)}
		}
		return nil
	}
	if res.IsError {
		var msg strings.Builder
		writeContents(&msg, &res)
		return &exitCodeError{code: exitError, msg: fmt.Sprintf("tool %s reported an error: %s", name, strings.TrimRight(msg.String(), "\n"))}
	}
	var out strings.Builder
	writeContents(&out, &res)
	_, err = io.WriteString(e.stdout, out.String())
	return err
}

// writeContents writes a result for people: text as it is, other contents
// summarised, one per line. A result with structured content only shows
// that.
func writeContents(w *strings.Builder, res *mcp.CallToolResult) {
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			w.WriteString(c.Text)
		case *mcp.ImageContent:
			fmt.Fprintf(w, "[image %s, %s]", c.MIMEType, decodedSize(c.Data))
		case *mcp.AudioContent:
			fmt.Fprintf(w, "[audio %s, %s]", c.MIMEType, decodedSize(c.Data))
		case *mcp.ResourceLink:
			fmt.Fprintf(w, "[resource link %s", c.URI)
			if c.Name != "" {
				fmt.Fprintf(w, " %q", c.Name)
			}
			if c.MIMEType != "" {
				fmt.Fprintf(w, ", %s", c.MIMEType)
			}
			w.WriteString("]")
		case *mcp.EmbeddedResource:
			r := c.Resource
			if r == nil {
				w.WriteString("[resource]")
				break
			}
			fmt.Fprintf(w, "[resource %s", r.URI)
			if r.MIMEType != "" {
				fmt.Fprintf(w, ", %s", r.MIMEType)
			}
			if r.Blob != "" {
				fmt.Fprintf(w, ", %s]", decodedSize(r.Blob))
			} else {
				fmt.Fprintf(w, ", %d bytes of text]", len(r.Text))
			}
		}
		if w.Len() > 0 && !strings.HasSuffix(w.String(), "\n") {
			w.WriteString("\n")
		}
	}
	if len(res.Content) == 0 && len(res.StructuredContent) > 0 {
		w.Write(res.StructuredContent)
		w.WriteString("\n")
	}
}

// decodedSize describes the size of base64 data.
func decodedSize(data string) string {
	b, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return "invalid base64"
	}
	return fmt.Sprintf("%d bytes", len(b))
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// printJSON writes v as one line of JSON, as mcpkit writes it on the wire
// (jsonenc.Marshal: the same bytes on every Go release).
func printJSON(w io.Writer, v any) error {
	b, err := jsonenc.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// isUnknownTool reports whether err is a server's refusal of a tool name
// it does not know: -32602 (the spec's "Unknown tool" error,
// https://modelcontextprotocol.io/specification/2025-11-25/server/tools#error-handling),
// with a message or data that says so.
func isUnknownTool(err error) bool {
	rpcErr, ok := errors.AsType[*jsonrpc.Error](err)
	if !ok || rpcErr.Code != jsonrpc.CodeInvalidParams {
		return false
	}
	text := strings.ToLower(rpcErr.Error())
	return strings.Contains(text, "unknown tool") || strings.Contains(text, "tool not found")
}
