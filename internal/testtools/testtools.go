// Package testtools lets a test use a program from outside Go (node and a
// package npm ci installed, bash, curl, python3): without it the test is
// skipped, unless AGENTREADY_REQUIRE_UPSTREAMS=1 (set by .ci/run), which
// makes it fail, so that CI never passes by skipping.
//
// Each function that says what is missing ("" when nothing is) is called
// both by the tests that need it and by the program skipped
// (internal/testtools/skipped), which ends the README's test command with
// one line saying what was skipped and why: the two cannot disagree.
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

// Redis says what is missing to start a private redis-server, as
// internal/redistest does, "" when nothing is.
func Redis() string {
	if _, err := exec.LookPath("redis-server"); err != nil {
		return "redis-server is not on PATH (apt-get install redis-server)"
	}
	return ""
}

// RedisCLI says what is missing to join private servers into a Redis
// Cluster (redistest.StartCluster), "" when nothing is.
func RedisCLI() string {
	if _, err := exec.LookPath("redis-cli"); err != nil {
		return "redis-cli is not on PATH (apt-get install redis-tools)"
	}
	return ""
}

// FlaskPython returns the first Python that imports Flask: the one on
// PATH (a pyenv's, say), else the system's, where apt-get installs
// python3-flask. When neither does it returns "" and what is missing.
func FlaskPython() (python, missing string) {
	for _, py := range []string{"python3", "/usr/bin/python3"} {
		if exec.Command(py, "-c", "import flask").Run() == nil {
			return py, ""
		}
	}
	return "", "python3 with Flask is not installed (apt-get install python3-flask)"
}

// Chromium returns the path of headless Chromium (chromium, else
// chromium-browser) and says what is missing to load a page in it and read
// its screenshot with tesseract, "" when nothing is.
func Chromium() (path, missing string) {
	for _, n := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(n); err == nil {
			path = p
			break
		}
	}
	switch {
	case path == "":
		missing = "chromium (or chromium-browser) is not on PATH (apt-get install chromium tesseract-ocr)"
	case Programs("tesseract") != "":
		missing = "tesseract is not on PATH (apt-get install tesseract-ocr)"
	}
	return path, missing
}
