package main

import (
	"fmt"
	"io"
	"runtime/debug"
)

// version prints the command's module version as the go command stamped
// it into the binary: v0.1.0 for go install
// github.com/agentready/agentready/cmd/agentready@v0.1.0, a pseudo-version
// for a build of a module outside a workspace that stamps one from its VCS
// (Go 1.24 on), and (devel) when the binary carries none: a build in a
// clone under go.work, or a test binary.
func version(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		fmt.Fprintf(stderr, "agentready version: takes no arguments, got %q\n\n%s", args, usage)
		return 2
	}
	info, ok := debug.ReadBuildInfo()
	fmt.Fprintf(stdout, "agentready %s\n", moduleVersion(info, ok))
	return 0
}

// moduleVersion is the main module's version in info, or "(devel)" when
// there is no build information or no version in it.
func moduleVersion(info *debug.BuildInfo, ok bool) string {
	if !ok || info == nil || info.Main.Version == "" {
		return "(devel)"
	}
	return info.Main.Version
}
