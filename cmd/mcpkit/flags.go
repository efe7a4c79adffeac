package main

import (
	"errors"
	"flag"
	"io"
	"slices"
)

// newFlagSet returns a flag set that reports errors to its caller instead
// of printing them, so that every error goes through run's one exit path.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// parseFlags parses args with fs, allowing flags before and after the
// positional arguments ("call NAME --args X" and "call --args X NAME"), and
// returns the positional ones. Everything after "--" must have been split
// off before: see splitCommand.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, &helpRequest{topic: fs.Name(), fs: fs}
			}
			return nil, usagef("%s: %v", fs.Name(), err)
		}
		args = fs.Args()
		if len(args) == 0 {
			return positional, nil
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
}

// splitCommand splits a client verb's arguments at the first "--": the
// verb's own arguments before it, the server command after it.
func splitCommand(args []string) (own, command []string) {
	i := slices.Index(args, "--")
	if i < 0 {
		return args, nil
	}
	return args[:i], args[i+1:]
}
