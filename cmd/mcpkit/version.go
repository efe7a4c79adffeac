package main

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
)

// versionCommand implements `mcpkit version`: the module version the
// binary was built from and the Go version and platform it was built for,
// so that a bug report can say exactly which mcpkit it is about.
func versionCommand(_ context.Context, e *env, args []string) error {
	positional, err := parseFlags(newFlagSet("version"), args)
	if err != nil {
		return err
	}
	if len(positional) > 0 {
		return usagef("version: unexpected argument %q", positional[0])
	}
	bi, ok := debug.ReadBuildInfo()
	_, err = fmt.Fprintln(e.stdout, versionLine(bi, ok))
	return err
}

// versionLine is what `mcpkit version` prints: "mcpkit VERSION (GO,
// OS/ARCH)". VERSION is the main module's version as the go command
// stamped it, or "(devel)" when there is none (a build without module or
// version control information).
func versionLine(bi *debug.BuildInfo, ok bool) string {
	v, goVersion := "(devel)", runtime.Version()
	if ok && bi != nil {
		if bi.Main.Version != "" {
			v = bi.Main.Version
		}
		if bi.GoVersion != "" {
			goVersion = bi.GoVersion
		}
	}
	return fmt.Sprintf("mcpkit %s (%s, %s/%s)", v, goVersion, runtime.GOOS, runtime.GOARCH)
}
