package main

// The client scenarios of the Skills extension (SEP-2640,
// io.modelcontextprotocol/skills; ext/skills): the mock serves one skill,
// skill://pdf-processing, whose SKILL.md is tampered with in the verify-*
// scenarios.

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/mcpkit/mcpkit/ext/skills"
)

func init() {
	scenarios["sep-2640-client-no-prefetch"] = skillsNoPrefetch
	for _, name := range []string{"sep-2640-client-verify-digest", "sep-2640-client-verify-size", "sep-2640-client-verify-frontmatter"} {
		scenarios[name] = skillsVerify
	}
}

// sep-2640-client-no-prefetch: list the skills, load none: no file may be
// read.
func skillsNoPrefetch(ctx context.Context, url string) error {
	cs, err := connect(ctx, url, nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	n := 0
	for _, err := range skills.List(ctx, cs) {
		if err != nil {
			return err
		}
		n++
	}
	if n == 0 {
		return errors.New("skills/list listed no skill")
	}
	return nil
}

// sep-2640-client-verify-digest, -size and -frontmatter: list, then load
// (Pull) each skill; the mock's SKILL.md fails verification, so the load
// must fail before any other file is read. A load that succeeds is the
// failure.
func skillsVerify(ctx context.Context, url string) error {
	cs, err := connect(ctx, url, nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	dir, err := os.MkdirTemp("", "mcpkit-skills-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	for s, err := range skills.List(ctx, cs) {
		if err != nil {
			return err
		}
		p, err := skills.Pull(ctx, cs, url, s, dir)
		if err == nil {
			return fmt.Errorf("loaded the tampered skill %s into %s", s.URI, p)
		}
		if !errors.Is(err, skills.ErrVerification) {
			return err
		}
		logger.Info("refused the skill", "uri", s.URI, "err", err)
	}
	return nil
}
