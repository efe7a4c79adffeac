package main

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
)

// helpRequest is a request for help: --help, -h or -help on a command,
// or `mcpkit help COMMAND`. run prints the help of topic (a key of
// helpTopics, "" for the whole tool) on stdout and exits 0. fs, when set,
// is the command's flag set, whose flags the help lists.
type helpRequest struct {
	topic string
	fs    *flag.FlagSet
}

func (h *helpRequest) Error() string { return "help requested" }

// helpTopic is what `mcpkit help COMMAND` says about one command.
type helpTopic struct {
	// usage is the synopsis, after "mcpkit ".
	usage string
	// summary is one line for the list of a group's subcommands.
	summary string
	// text is the description, paragraphs separated by blank lines.
	text string
}

// serverUsage is how a client verb names its server.
const serverUsage = "(--url URL [--header NAME:VALUE]... | -- COMMAND [ARG...])"

// helpTopics are the commands and command groups with their help. The
// groups' subcommands are the topics that start with the group's name and
// a space.
var helpTopics = map[string]helpTopic{
	"help": {
		usage:   "help [COMMAND [SUBCOMMAND]]",
		summary: "show the help of a command",
		text:    "Show the help of a command, as COMMAND --help does; with no command, the help of mcpkit.",
	},
	"version": {
		usage:   "version",
		summary: "print mcpkit's version and the Go version it was built with",
		text:    "Print mcpkit's module version (\"(devel)\" when built from a source tree without version information) and the Go version and platform it was built for.",
	},
	"serve": {
		usage:   "serve [--log-level LEVEL] [--http ADDR [layout and limit flags] [--redis URL | --redis-cluster ADDRS]]",
		summary: "run the reference server on stdio, or over Streamable HTTP with --http",
		text: "Run the reference server (every feature of mcpkit and every fixture of the MCP conformance suite) on stdin and stdout, " +
			"or with --http over Streamable HTTP at http://ADDR/mcp " +
			"(https://modelcontextprotocol.io/specification/2025-11-25/basic/transports). " +
			"Logs go to stderr. SIGINT or SIGTERM stops it; over HTTP, requests in flight get --shutdown-timeout to finish. " +
			"With --redis URL (or --redis-cluster ADDRS), sessions, their SSE events, tasks and the messages between replicas live in Redis, " +
			"so that several `mcpkit serve --http --redis` replicas behind any load balancer, sticky or not, serve every session; " +
			"it exits at once if Redis does not answer PING within --redis-timeout, and --max-sessions and --idle-timeout then hold across the replicas. " +
			"A request answered within 5ms, having sent nothing before its response, then gets one JSON body, which Redis need not keep; a slower one gets a resumable SSE stream. " +
			"The HTTP+SSE transport of --sse-path keeps its sessions in the memory of the replica that holds the stream.",
	},
	"card": {
		usage:   "card [--json] [--header NAME:VALUE]... [--timeout D] URL",
		summary: "print the Server Card of an MCP endpoint",
		text: "GET the Server Card of the Streamable HTTP endpoint URL, at URL/server-card (URL itself if it ends in /server-card), " +
			"with Accept: application/mcp-server-card+json, and print it indented, or as the server sent it with --json " +
			"(SEP-2127, a draft: https://github.com/modelcontextprotocol/experimental-ext-server-card). " +
			"A card larger than 1 MiB, an answer other than 200 or a body that is not a JSON object fail (exit status 1); " +
			"a card that breaks the draft schema is printed, then reported (exit status 1).",
	},
	"tools": {
		usage:   "tools list|call ...",
		summary: "list or call the tools of a server",
		text:    "List or call the tools of an MCP server (https://modelcontextprotocol.io/specification/2025-11-25/server/tools).",
	},
	"tools list": {
		usage:   "tools list [--json] " + serverUsage,
		summary: "list the tools, each with its arguments",
		text: "List every tool of the server, all pages: a line with the tool's name and description, then a line for each argument of its input schema: " +
			"its name, its type, \"required\" when the tool requires it, and its description. --json prints {\"tools\":[...]} with the tools as the server sent them.",
	},
	"tools call": {
		usage:   "tools call NAME [--args JSON] [--json] " + serverUsage,
		summary: "call a tool with the JSON object --args as arguments",
		text: "Call tool NAME with the JSON object --args as its arguments and print its result: text as it is, other contents summarised, one a line. " +
			"The tool's progress is shown on stderr. A result with isError goes to stderr with exit status 1. " +
			"--args that is not JSON is a syntax error on the command line (exit status 2); arguments that do not fit the tool's input schema are refused by the server (exit status 1).",
	},
	"resources": {
		usage:   "resources list|read ...",
		summary: "list or read the resources of a server",
		text:    "List or read the resources of an MCP server (https://modelcontextprotocol.io/specification/2025-11-25/server/resources).",
	},
	"resources list": {
		usage:   "resources list [--json] " + serverUsage,
		summary: "list the resources and resource templates",
		text: "List every resource of the server, then every resource template, all pages: URI (or URI template), MIME type and description. " +
			"A server without the resources capability has none. --json prints {\"resources\":[...],\"resourceTemplates\":[...]} as the server sent them.",
	},
	"resources read": {
		usage:   "resources read URI [--json] " + serverUsage,
		summary: "read the resource at URI",
		text:    "Read the resource at URI and print its text contents as they are and a one-line summary of each blob.",
	},
	"prompts": {
		usage:   "prompts list|get ...",
		summary: "list or get the prompts of a server",
		text:    "List or get the prompts of an MCP server (https://modelcontextprotocol.io/specification/2025-11-25/server/prompts).",
	},
	"prompts list": {
		usage:   "prompts list [--json] " + serverUsage,
		summary: "list the prompts with their arguments",
		text:    "List every prompt of the server, all pages: name, arguments (optional ones in brackets) and description. A server without the prompts capability has none.",
	},
	"prompts get": {
		usage:   "prompts get NAME [--args JSON] [--json] " + serverUsage,
		summary: "get a prompt with the JSON object of strings --args as arguments",
		text:    "Get prompt NAME with the JSON object of strings --args as its arguments and print each message as \"role: content\".",
	},
	"skills": {
		usage:   "skills list|get|pull ...",
		summary: "list, describe or pull the skills of a server",
		text: "List, describe or pull the skills a server serves with the Skills extension " +
			"(io.modelcontextprotocol/skills, https://github.com/modelcontextprotocol/ext-skills). " +
			"A server whose capabilities do not declare the extension offers none: the verbs say so, with exit status 1, and send nothing else.",
	},
	"skills list": {
		usage:   "skills list [--json] " + serverUsage,
		summary: "list the skills, reading none of their files",
		text: "List every skill of the server, all pages of skills/list, reading no file: the SKILL.md URI, the number of files and their bytes (or \"dynamic\"), and the description. " +
			"--json prints {\"skills\":[...]}. An entry a host must not load (no resources, for one) is reported on stderr, the others are listed, and the exit status is 1.",
	},
	"skills get": {
		usage:   "skills get URI [--json] " + serverUsage,
		summary: "print the entry of the skill whose SKILL.md is at URI",
		text: "Get the entry of the skill whose SKILL.md is at URI by skills/get, whether or not the server lists it, and print its frontmatter and each file with its size and digest. " +
			"--json prints the entry. A server that serves no such skill answers -32602 (exit status 1).",
	},
	"skills pull": {
		usage:   "skills pull URI [--dir DIR] [--label LABEL] " + serverUsage,
		summary: "load a skill, verifying every file, into a directory",
		text: "Load the skill whose SKILL.md is at URI: its entry by skills/get, then each file by resources/read, SKILL.md first, each checked against the entry's size and SHA-256 digest, and the SKILL.md's YAML frontmatter against the entry's. " +
			"Any mismatch, a file outside the skill, or a skill over 512 files or 16 MiB is refused (exit status 1) and nothing is written. " +
			"The skill is written to DIR/LABEL/SCHEME/SKILL-PATH (each segment escaped), which names the server as well as the URI, replacing an earlier pull whole, files without execute permission; the path is printed.",
	},
	"auth": {
		usage:   "auth login|logout|status ...",
		summary: "manage the OAuth credentials mcpkit keeps for servers",
		text: "Manage the OAuth 2.1 credentials mcpkit keeps per server under the user's config directory (mcpkit/auth, files of mode 0600) " +
			"(https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization). " +
			"A client verb with --url logs in by itself when the server answers 401, unless --header gives an Authorization header.",
	},
	"auth login": {
		usage:   "auth login --url URL [--device] [--client-id ID [--client-secret S]] [--auth-auto-approve]",
		summary: "authorize mcpkit with the authorization server of the server at URL",
		text: "Authorize mcpkit with the OAuth authorization server of the MCP server at URL, anew, and keep the tokens. " +
			"The authorization URL is printed on stderr (and opened in a browser when there is a display); the browser comes back to a listener on 127.0.0.1, " +
			"for which mcpkit waits up to --timeout (here 5m by default). " +
			"On a machine without a browser, --device uses the device authorization grant (RFC 8628) when the authorization server offers it: " +
			"mcpkit prints a code and a URI where to enter it on any other device, and waits for the approval.",
	},
	"auth logout": {
		usage:   "auth logout --url URL",
		summary: "forget the tokens and client registration kept for the server at URL",
		text:    "Forget the tokens and the client registration kept for the MCP server at URL.",
	},
	"auth status": {
		usage:   "auth status",
		summary: "list the servers mcpkit keeps OAuth credentials for",
		text:    "List the servers mcpkit keeps OAuth credentials for: the authorization server, the scope and the state of the token.",
	},
	"dev-auth-server": {
		usage:   "dev-auth-server [--addr 127.0.0.1:0] [--subject dev-user] [--key FILE] [--device-interval 5s]",
		summary: "run a development OAuth authorization server (NOT FOR PRODUCTION)",
		text: "Run a development OAuth authorization server that approves every request at once, until SIGINT or SIGTERM; print its issuer URL on stdout. " +
			"NOT FOR PRODUCTION. Use it with mcpkit serve --auth-issuer and the client verbs' --auth-auto-approve. " +
			"It also serves the device authorization grant (auth login --device): the user code is approved or denied on the page at ISSUER/device.",
	},
}

// topLevel are the commands in the order the help lists them.
var topLevel = []string{"serve", "tools", "resources", "prompts", "skills", "card", "auth", "dev-auth-server", "version", "help"}

// flagSections group the flags of a command's help; flags in none of
// them are listed first, under "Flags:".
var flagSections = []struct {
	title string
	names []string
}{
	{"Server", []string{"url", "header", "era", "timeout", "max-timeout"}},
	{"OAuth, with --url", []string{"device", "client-id", "client-secret", "auth-auto-approve"}},
	{"Output", []string{"json"}},
	{"Layout, with --http", []string{"http", "path", "stateless", "json-response", "allowed-origin"}},
	{"Limits, with --http", []string{"max-sessions", "max-sessions-per-principal", "max-sessions-per-address", "trusted-proxy", "max-conns", "idle-timeout", "conn-idle-timeout", "read-header-timeout", "max-header-bytes", "shutdown-timeout"}},
	{"OAuth resource server, with --http", []string{"auth-issuer", "auth-audience", "auth-scopes", "auth-jwks-url"}},
	{"Replicas on Redis, with --http", []string{"redis", "redis-cluster", "redis-prefix", "redis-timeout"}},
}

// subcommands returns the subcommands of group, in a fixed order.
func subcommands(group string) []string {
	var subs []string
	for name := range helpTopics {
		if sub, ok := strings.CutPrefix(name, group+" "); ok {
			subs = append(subs, sub)
		}
	}
	slices.Sort(subs)
	return subs
}

// helpCommand implements `mcpkit help [COMMAND [SUBCOMMAND]]`: the help
// of the command, as COMMAND --help gives it.
func helpCommand(args []string) ([]string, error) {
	if len(args) == 0 {
		return nil, &helpRequest{}
	}
	if slices.Contains([]string{"-h", "-help", "--help"}, args[0]) {
		return nil, &helpRequest{topic: "help"}
	}
	topic := strings.Join(args, " ")
	if _, ok := helpTopics[topic]; !ok || len(args) > 2 {
		return nil, usagef("help: no command %q: the commands are %s", topic, strings.Join(topLevel, ", "))
	}
	// The command's own --help, so that its flags are listed.
	return append(slices.Clone(args), "--help"), nil
}

// helpTopicOf returns " COMMAND" or " COMMAND SUBCOMMAND" for the help
// topic of a command line, or "" when it names none (or help itself).
func helpTopicOf(args []string) string {
	for n := min(len(args), 2); n > 0; n-- {
		topic := strings.Join(args[:n], " ")
		if _, ok := helpTopics[topic]; ok && topic != "help" {
			return " " + topic
		}
	}
	return ""
}

// isHelpFlag reports whether arg asks for help.
func isHelpFlag(arg string) bool {
	return arg == "-h" || arg == "-help" || arg == "--help"
}

// writeHelp writes the help of h's topic.
func writeHelp(w io.Writer, h *helpRequest) {
	if h.topic == "" {
		io.WriteString(w, usage)
		return
	}
	t := helpTopics[h.topic]
	fmt.Fprintf(w, "Usage:\n  mcpkit %s\n\n", t.usage)
	writeWrapped(w, t.text, "")
	if subs := subcommands(h.topic); len(subs) > 0 {
		fmt.Fprintf(w, "\nSubcommands:\n")
		width := 0
		for _, s := range subs {
			width = max(width, len(s))
		}
		for _, s := range subs {
			fmt.Fprintf(w, "  %-*s  %s\n", width, s, helpTopics[h.topic+" "+s].summary)
		}
		fmt.Fprintf(w, "\nRun 'mcpkit help %s SUBCOMMAND' for the flags of each.\n", h.topic)
	}
	if h.fs == nil {
		return
	}
	sectioned := map[string]bool{}
	for _, s := range flagSections {
		for _, n := range s.names {
			sectioned[n] = true
		}
	}
	var own []*flag.Flag
	h.fs.VisitAll(func(f *flag.Flag) {
		if !sectioned[f.Name] {
			own = append(own, f)
		}
	})
	if len(own) > 0 {
		fmt.Fprintf(w, "\nFlags:\n")
		for _, f := range own {
			writeFlag(w, f)
		}
	}
	for _, s := range flagSections {
		var fl []*flag.Flag
		for _, n := range s.names {
			if f := h.fs.Lookup(n); f != nil {
				fl = append(fl, f)
			}
		}
		if len(fl) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s:\n", s.title)
		for _, f := range fl {
			writeFlag(w, f)
		}
	}
	if h.fs.Lookup("timeout") != nil {
		fmt.Fprintln(w)
		writeWrapped(w, "Exit status: 0 on success, 1 when the server, the tool or the connection failed (or did not answer within --timeout), 2 for a mistake on the command line, 128+N when signal N stopped mcpkit.", "")
	}
}

// writeFlag writes one flag: "--name VALUE", then its usage indented,
// then its default when it is not the zero value.
func writeFlag(w io.Writer, f *flag.Flag) {
	name, text := flag.UnquoteUsage(f)
	if v, ok := flagValueNames[f.Name]; ok {
		name = v
	}
	if name != "" {
		fmt.Fprintf(w, "  --%s %s\n", f.Name, name)
	} else {
		fmt.Fprintf(w, "  --%s\n", f.Name)
	}
	switch f.DefValue {
	case "", "0", "false", "0s", "[]":
	default:
		if strings.Contains(text, "\n") {
			text += "\n"
		} else {
			text += " "
		}
		text += fmt.Sprintf("(default %s)", f.DefValue)
	}
	for line := range strings.SplitSeq(text, "\n") {
		lead := len(line) - len(strings.TrimLeft(line, " "))
		writeWrapped(w, line, "        "+line[:lead])
	}
}

// flagValueNames name the values of flags whose usage cannot, in
// backquotes.
var flagValueNames = map[string]string{"era": "auto|session|stateless"}

// helpWidth is the width help text is wrapped to.
const helpWidth = 80

// writeWrapped writes text as lines of at most helpWidth columns (a word
// longer than that stays whole), each starting with indent.
func writeWrapped(w io.Writer, text, indent string) {
	line := indent
	for word := range strings.FieldsSeq(text) {
		if len(line) > len(indent) && len(line)+1+len(word) > helpWidth {
			fmt.Fprintln(w, line)
			line = indent
		}
		if len(line) > len(indent) {
			line += " "
		}
		line += word
	}
	fmt.Fprintln(w, line)
}
