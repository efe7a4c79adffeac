package main

// `mcpkit skills list|get|pull`: the client side of the Skills extension
// (io.modelcontextprotocol/skills; ext/skills).

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/mcpkit/mcpkit/ext/skills"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
)

// skillsFailed is the error for a server that did not declare the
// extension: said once, in the CLI's words.
func skillsFailed(who string, err error) error {
	if errors.Is(err, skills.ErrNotDeclared) {
		return &explainedError{msg: who + ": the server does not offer skills (its capabilities do not declare " + skills.ID + ")", err: err}
	}
	return err
}

// skillsList implements `mcpkit skills list`: every skill of the server,
// all pages of skills/list, no file read. People get one line each: the
// SKILL.md URI, the number of files (or "dynamic") and the description;
// --json gives {"skills":[...]}. An entry a host must not load is
// reported on stderr and the listing goes on; the exit status is then 1.
func skillsList(ctx context.Context, e *env, args []string) error {
	cs, f, err := connectForList(ctx, e, "skills list", args)
	if err != nil {
		return err
	}
	defer closeSession(e, cs)
	list := []skills.Skill{}
	bad := 0
	for s, err := range skills.List(ctx, cs) {
		if errors.Is(err, skills.ErrInvalidEntry) {
			fmt.Fprintf(e.stderr, "mcpkit: %v\n", err)
			bad++
			continue
		}
		if err != nil {
			return skillsFailed("skills list", err)
		}
		list = append(list, s)
	}
	if f.json {
		if err := printJSON(e.stdout, map[string]any{"skills": list}); err != nil {
			return err
		}
	} else if len(list) == 0 && bad == 0 {
		return sayNone(e.stdout, "skills")
	} else {
		tw := tabwriter.NewWriter(e.stdout, 0, 8, 2, ' ', 0)
		for _, s := range list {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", s.URI, filesOf(s), firstLine(description(s)))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if bad > 0 {
		return &exitCodeError{code: exitError, msg: fmt.Sprintf("%d skill entries are invalid and were left out", bad)}
	}
	return nil
}

// filesOf says how many files an entry lists, or "dynamic".
func filesOf(s skills.Skill) string {
	if s.Dynamic {
		return "dynamic"
	}
	var total int64
	for _, r := range s.Resources {
		total += r.Size
	}
	n := "files"
	if len(s.Resources) == 1 {
		n = "file"
	}
	return fmt.Sprintf("%d %s, %d bytes", len(s.Resources), n, total)
}

// description is the frontmatter's description, "" if it has none.
func description(s skills.Skill) string {
	var fm struct {
		Description string `json:"description"`
	}
	_ = json.Unmarshal(s.Frontmatter, &fm)
	return fm.Description
}

// skillArgs parses the command line of skills get and pull: the client
// flags, the verb's own (registered by extra), and one SKILL.md URI.
func skillArgs(verb string, args []string, extra func(*flag.FlagSet)) (*clientFlags, string, []string, error) {
	own, command := splitCommand(args)
	f := &clientFlags{}
	fs := newFlagSet(verb)
	f.register(fs)
	if extra != nil {
		extra(fs)
	}
	positional, err := parseFlags(fs, own)
	if err != nil {
		return nil, "", nil, err
	}
	if len(positional) != 1 {
		return nil, "", nil, usagef("%s: want exactly one SKILL.md URI before --, got %d arguments", verb, len(positional))
	}
	if !strings.HasSuffix(positional[0], "/SKILL.md") {
		return nil, "", nil, usagef("%s: %q is not the URI of a SKILL.md (such as skill://git-workflow/SKILL.md)", verb, positional[0])
	}
	return f, positional[0], command, nil
}

// skillsGet implements `mcpkit skills get URI`: the entry of one skill, by
// skills/get, whether or not the server lists it. People get its URI,
// frontmatter and files; --json prints the entry.
func skillsGet(ctx context.Context, e *env, args []string) error {
	f, uri, command, err := skillArgs("skills get", args, nil)
	if err != nil {
		return err
	}
	cs, err := f.connect(ctx, e, command)
	if err != nil {
		return err
	}
	defer closeSession(e, cs)
	s, err := getSkill(ctx, cs, "skills get", uri)
	if err != nil {
		return err
	}
	if f.json {
		return printJSON(e.stdout, s)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s\nfrontmatter: %s\n", s.URI, s.Frontmatter)
	if s.Dynamic {
		b.WriteString("resources: dynamic (generated: no digests to verify)\n")
	} else {
		fmt.Fprintf(&b, "resources: %s\n", filesOf(s))
		tw := tabwriter.NewWriter(&b, 0, 8, 2, ' ', 0)
		for _, r := range s.Resources {
			fmt.Fprintf(tw, "  %s\t%d\t%s\n", r.URI, r.Size, r.Digest)
		}
		tw.Flush()
	}
	_, err = fmt.Fprint(e.stdout, b.String())
	return err
}

// getSkill gets the entry of the skill at uri for verb; a server's error
// is said once, after what failed.
func getSkill(ctx context.Context, cs *mcp.ClientSession, verb, uri string) (skills.Skill, error) {
	s, err := skills.Get(ctx, cs, uri)
	if err != nil {
		what := verb + " " + uri
		if rpcErr, ok := errors.AsType[*jsonrpc.Error](err); ok {
			return s, &explainedError{msg: what + ": the server answered skills/get with " + rpcErr.Error(), err: err}
		}
		return s, skillsFailed(what, err)
	}
	return s, nil
}

// skillsPull implements `mcpkit skills pull URI`: load the skill (its
// entry by skills/get, then each file by resources/read, SKILL.md first,
// each verified against the entry's size and digest and the SKILL.md's
// frontmatter against the entry's) and write it under --dir at a path
// that names the server (--label, by default the URL or the command) and
// the skill's URI; print that path.
func skillsPull(ctx context.Context, e *env, args []string) error {
	var dir, label string
	f, uri, command, err := skillArgs("skills pull", args, func(fs *flag.FlagSet) {
		fs.StringVar(&dir, "dir", ".", "materialize the skill under `DIR`, at DIR/LABEL/SCHEME/SKILL-PATH; choose a directory no agent discovers skills in")
		fs.StringVar(&label, "label", "", "the `LABEL` that names the server in the path (default: the --url, or the command after --)")
	})
	if err != nil {
		return err
	}
	if label == "" {
		label = f.url
		if label == "" {
			label = strings.Join(command, " ")
		}
	}
	if _, err := skills.Path(dir, label, uri); err != nil {
		return usagef("skills pull: %v", err)
	}
	// One file may be the whole 16 MiB of a skill, base64-encoded in a
	// blob.
	f.maxMessageBytes = skills.MessageBytes // any file of a skill as a base64 blob
	cs, err := f.connect(ctx, e, command)
	if err != nil {
		return err
	}
	defer closeSession(e, cs)
	s, err := getSkill(ctx, cs, "skills pull", uri)
	if err != nil {
		return err
	}
	p, err := skills.Pull(ctx, cs, label, s, dir)
	if err != nil {
		return skillsFailed("skills pull "+uri, fmt.Errorf("skills pull %s: %w", uri, err))
	}
	_, err = fmt.Fprintln(e.stdout, p)
	return err
}
