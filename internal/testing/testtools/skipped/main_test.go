package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// inRoot runs the test from the module's root, as main does.
func inRoot(t *testing.T) {
	t.Helper()
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(root)
}

func noEnv(string) string { return "" }

// With nothing on PATH, the line names each group that skips, what it
// lacks and how to install it, and how to make the skips failures.
func TestLineWithEmptyPath(t *testing.T) {
	inRoot(t)
	t.Setenv("PATH", t.TempDir())
	line, failed := report(groups, noEnv)
	if failed || strings.Contains(line, "\n") {
		t.Fatalf("failed %v, line %q", failed, line)
	}
	for _, want := range []string{
		"agentready tests: the Redis tests skipped because redis-server is not on PATH (apt-get install redis-server);",
		"the Redis Cluster test skipped because redis-cli is not on PATH (apt-get install redis-tools);",
		"serve's Express upstream tests, the robots-parser comparison, lint's Ajv schema checks, serve's MCP test with server-everything, the MCP gateway's client tests, the A2A SDK card tests and the Cloudflare web-bot-auth tests skipped because node is not on PATH (apt-get install nodejs npm);",
		"serve's Tomcat upstream tests and serve's Jetty upstream tests skipped because java is not on PATH (apt-get install default-jre-headless);",
		"serve's PHP upstream tests skipped because php is not on PATH (apt-get install php-cli);",
		"the README's first-hour test skipped because bash is not on PATH (apt-get install bash curl jq);",
		"the report page's Chromium test skipped because chromium (or chromium-browser) is not on PATH (apt-get install chromium tesseract-ocr);",
		"the container image test skipped because podman is not on PATH (apt-get install podman runc);",
		"; set AGENTREADY_REQUIRE_REDIS=1 AGENTREADY_REQUIRE_UPSTREAMS=1 AGENTREADY_REQUIRE_BROWSER=1 AGENTREADY_REQUIRE_CONTAINER=1 to fail instead",
	} {
		if !strings.Contains(line, want) {
			t.Errorf("the line lacks %q:\n%s", want, line)
		}
	}
	// A missing group a variable requires failed rather than skipped.
	line, failed = report(groups, func(v string) string { return map[string]string{envRedis: "1"}[v] })
	if !failed || !strings.Contains(line, "the Redis tests failed because redis-server is not on PATH (apt-get install redis-server), and AGENTREADY_REQUIRE_REDIS=1;") ||
		strings.Contains(line, "AGENTREADY_REQUIRE_REDIS=1 AGENTREADY_REQUIRE_UPSTREAMS=1") {
		t.Errorf("with %s=1: failed %v, line %s", envRedis, failed, line)
	}
}

// With everything present the line says every test ran and names what it
// found.
func TestLineAllPresent(t *testing.T) {
	present := []group{
		{tests: "a", found: "redis-server", require: []string{envRedis}, missing: func() string { return "" }},
		{tests: "b", found: "node with Express", require: []string{envUpstreams}, missing: func() string { return "" }},
	}
	if line, failed := report(present, noEnv); failed || line != "agentready tests: every test ran (found redis-server, node with Express)" {
		t.Errorf("failed %v, line %q", failed, line)
	}
	// CI requires every group: there, the real checks find everything.
	if os.Getenv(envRedis) == "1" && os.Getenv(envUpstreams) == "1" && os.Getenv(envBrowser) == "1" && os.Getenv(envContainer) == "1" {
		inRoot(t)
		if line, failed := report(groups, os.Getenv); failed || !strings.HasPrefix(line, "agentready tests: every test ran (found ") {
			t.Errorf("with every AGENTREADY_REQUIRE_*=1: failed %v, line %s", failed, line)
		}
	}
}

// The npm packages the program looks for are where the tests' testdata
// is: a test moved without its entry here would make the line lie.
func TestNodeDirs(t *testing.T) {
	inRoot(t)
	n := 0
	for _, g := range groups {
		if g.dir == "" {
			continue
		}
		n++
		if _, err := os.Stat(filepath.Join(g.dir, "package.json")); err != nil {
			t.Errorf("%s: %v", g.tests, err)
		}
	}
	if n != 7 {
		t.Errorf("%d node groups, want 7", n)
	}
}
