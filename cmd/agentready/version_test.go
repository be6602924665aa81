package main

import (
	"bytes"
	"runtime/debug"
	"strings"
	"testing"
)

// TestModuleVersion: the version printed is the one the go command
// stamped, and (devel) without one. (go install ...@v0.1.0 printing
// v0.1.0 is internal/testing/e2e's TestGoInstallRelease.)
func TestModuleVersion(t *testing.T) {
	for _, c := range []struct {
		info *debug.BuildInfo
		ok   bool
		want string
	}{
		{&debug.BuildInfo{Main: debug.Module{Path: "github.com/agentready/agentready/cmd/agentready", Version: "v0.1.0"}}, true, "v0.1.0"},
		{&debug.BuildInfo{Main: debug.Module{Version: "v0.1.1-0.20261202131700-5b3a533aaaaa+dirty"}}, true, "v0.1.1-0.20261202131700-5b3a533aaaaa+dirty"},
		{&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, true, "(devel)"},
		{&debug.BuildInfo{}, true, "(devel)"},
		{nil, false, "(devel)"},
	} {
		if got := moduleVersion(c.info, c.ok); got != c.want {
			t.Errorf("moduleVersion(%+v, %v) = %q, want %q", c.info, c.ok, got, c.want)
		}
	}
}

// TestVersionCommand: agentready version prints one line naming the
// command and this binary's version, and refuses arguments.
func TestVersionCommand(t *testing.T) {
	info, ok := debug.ReadBuildInfo()
	want := "agentready " + moduleVersion(info, ok) + "\n"
	for _, args := range [][]string{{"version"}, {"-version"}, {"--version"}} {
		var stdout, stderr bytes.Buffer
		if code := run(args, &stdout, &stderr); code != 0 || stdout.String() != want || stderr.Len() != 0 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 0 and %q", args, code, stdout.String(), stderr.String(), want)
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"version", "extra"}, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "takes no arguments") {
		t.Errorf("version extra: exit %d, stderr %q; want 2 and a usage error", code, stderr.String())
	}
}
