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

// promptsList implements `mcpkit prompts list`: every prompt of the
// server, all pages. People get one line per prompt: name, arguments
// (optional ones in brackets) and description; --json gives
// {"prompts":[...]} with the prompts as the server sent them. A server
// that did not declare the prompts capability, or answers -32601, simply
// has none.
func promptsList(ctx context.Context, e *env, args []string) error {
	cs, f, err := connectForList(ctx, e, "prompts list", args)
	if err != nil {
		return err
	}
	defer closeSession(e, cs)

	caps := cs.ServerCapabilities()
	prompts, err := listOffered(ctx, cs, caps == nil || caps.Prompts != nil, "prompts/list", "prompts")
	if err != nil {
		return err
	}
	if f.json {
		return printJSON(e.stdout, map[string]any{"prompts": prompts})
	}
	if len(prompts) == 0 {
		return sayNone(e.stdout, "prompts")
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 8, 2, ' ', 0)
	for _, raw := range prompts {
		var p mcp.Prompt
		if err := json.Unmarshal(raw, &p); err != nil {
			return fmt.Errorf("prompts/list: undecodable prompt %s: %w", raw, err)
		}
		var names []string
		for _, a := range p.Arguments {
			if a == nil {
				continue
			}
			if a.Required {
				names = append(names, a.Name)
			} else {
				names = append(names, "["+a.Name+"]")
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", p.Name, strings.Join(names, " "), firstLine(p.Description))
	}
	return tw.Flush()
}

// promptsGet implements `mcpkit prompts get NAME`. People get each
// message as "role: content", text as it is and other contents
// summarised; --json prints the result exactly as the server sent it.
func promptsGet(ctx context.Context, e *env, args []string) error {
	own, command := splitCommand(args)
	var f clientFlags
	var argsJSON string
	fs := newFlagSet("prompts get")
	f.register(fs)
	fs.StringVar(&argsJSON, "args", "", "the prompt's arguments, a JSON `OBJECT` of strings; if empty, none are sent")
	positional, err := parseFlags(fs, own)
	if err != nil {
		return err
	}
	if len(positional) != 1 {
		return usagef("prompts get: want exactly one prompt name before --, got %d arguments", len(positional))
	}
	name := positional[0]
	var arguments map[string]string
	if argsJSON != "" {
		raw, err := parseArgs("prompts get", argsJSON)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(raw, &arguments); err != nil {
			return usagef("prompts get: --args must be a JSON object of strings (prompt arguments are strings), not %s", raw)
		}
	}
	cs, err := f.connect(ctx, e, command)
	if err != nil {
		return err
	}
	defer closeSession(e, cs)

	var raw json.RawMessage
	if err := cs.Call(ctx, "prompts/get", &mcp.GetPromptParams{Name: name, Arguments: arguments}, &raw); err != nil {
		return callFailed("prompts/get "+name, "prompts/get", err)
	}
	if f.json {
		return printJSON(e.stdout, raw)
	}
	var res mcp.GetPromptResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return fmt.Errorf("prompts/get %s: undecodable result %s: %w", name, raw, err)
	}
	var out strings.Builder
	for _, m := range res.Messages {
		if m == nil {
			continue
		}
		var content strings.Builder
		if m.Content != nil {
			writeContents(&content, &mcp.CallToolResult{Content: []mcp.Content{m.Content}})
		}
		fmt.Fprintf(&out, "%s: %s", m.Role, content.String())
		if !strings.HasSuffix(out.String(), "\n") {
			out.WriteString("\n")
		}
	}
	_, err = io.WriteString(e.stdout, out.String())
	return err
}
