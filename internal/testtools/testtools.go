// Package testtools lets a test use a program from outside Go (node and a
// package npm ci installed, bash, curl, python3): without it the test is
// skipped, unless AGENTREADY_REQUIRE_UPSTREAMS=1 (set by .ci/run), which
// makes it fail, so that CI never passes by skipping.
package testtools

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// EnvRequire names the variable that turns a skip into a failure.
const EnvRequire = "AGENTREADY_REQUIRE_UPSTREAMS"

// Need skips or fails t, as EnvRequire says, when missing is not "".
func Need(t testing.TB, missing string) {
	t.Helper()
	if missing == "" {
		return
	}
	if os.Getenv(EnvRequire) == "1" {
		t.Fatalf("%s, and %s=1", missing, EnvRequire)
	}
	t.Skip(missing)
}

// Programs says which of the programs is not on PATH, "" when all are.
func Programs(names ...string) string {
	for _, n := range names {
		if _, err := exec.LookPath(n); err != nil {
			return n + " is not on PATH"
		}
	}
	return ""
}

// NodePackage says what is missing to run node with pkg installed by npm
// ci in dir (pkg's path under node_modules), "" when nothing is.
func NodePackage(dir, pkg string) string {
	if _, err := exec.LookPath("node"); err != nil {
		return "node is not on PATH (apt-get install nodejs npm)"
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", pkg)); err != nil {
		return pkg + " is not installed (npm ci in " + dir + ")"
	}
	return ""
}
