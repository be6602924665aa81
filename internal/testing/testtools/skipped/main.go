// Command skipped ends the README's test command,
//
//	go test ./... ./redisstore/... ./metrics/... ./cmd/agentready/... ./internal/testing/e2e/... \
//		./examples/... ./routertest/... ./bench/compare/... ./internal/specschemas/a2agen/... \
//		&& go run ./internal/testing/testtools/skipped
//
// with one line saying whether every test ran or which groups of tests
// skipped for lack of a program from outside Go (Redis, node and its npm
// packages, Flask, Django, Protego, java with Tomcat's or Jetty's jars,
// PHP, nginx, Caddy, bash and curl, Chromium and tesseract, podman), and
// how to install it. go test hides a passing package's output, skips
// included: this line is where a reader learns of them.
//
// It applies the very checks the tests apply (internal/testing/testtools), from
// the module's root, so the two cannot disagree. It exits 1 when a group
// is missing that an AGENTREADY_REQUIRE_* variable requires (those tests
// failed rather than skipped), and 0 otherwise.
package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentready/agentready/internal/testing/testtools"
)

// The variables that turn a group's skip into a failure.
const (
	envRedis     = "AGENTREADY_REQUIRE_REDIS" // redistest.EnvRequire
	envUpstreams = testtools.EnvRequire
	envBrowser   = "AGENTREADY_REQUIRE_BROWSER" // report's envRequireBrowser
	envContainer = testtools.EnvRequireContainer
)

// A group is the tests that skip together, for one missing program.
type group struct {
	tests   string   // which tests skip
	found   string   // what they found when they ran
	require []string // the variables that make its skip a failure
	// missing says what is not installed, "" when nothing is; run from
	// the module's root.
	missing func() string
	dir     string // the npm package's directory, for node's groups
}

// node is the group of tests that run node with pkg, installed by npm ci
// in dir (from the module's root).
func node(tests, found, dir, pkg string) group {
	return group{tests: tests, found: found, require: []string{envUpstreams}, dir: dir,
		missing: func() string { return testtools.NodePackage(dir, pkg) }}
}

// groups are every test that can skip for want of a program, with the
// check it applies. The directories are the tests' testdata, from the
// module's root.
var groups = []group{
	{tests: "the Redis tests", found: "redis-server", require: []string{envRedis}, missing: testtools.Redis},
	{tests: "the Redis Cluster test", found: "redis-cli", require: []string{envRedis}, missing: testtools.RedisCLI},
	node("serve's Express upstream tests", "node with Express", "cmd/agentready/testdata/express", "express"),
	{tests: "serve's Flask upstream tests", found: "Flask", require: []string{envUpstreams},
		missing: func() string { _, why := testtools.FlaskPython(); return why }},
	{tests: "serve's Django upstream tests", found: "Django", require: []string{envUpstreams},
		missing: func() string { _, why := testtools.DjangoPython(); return why }},
	{tests: "serve's Tomcat upstream tests", found: "Tomcat 10", require: []string{envUpstreams},
		missing: func() string { _, why := testtools.Tomcat(); return why }},
	{tests: "serve's Jetty upstream tests", found: "Jetty 9", require: []string{envUpstreams},
		missing: func() string { _, why := testtools.Jetty(); return why }},
	{tests: "the urllib.robotparser comparison", found: "python3", require: []string{envUpstreams}, missing: testtools.Python3},
	{tests: "the Protego comparison", found: "Protego", require: []string{envUpstreams},
		missing: func() string { _, why := testtools.ProtegoPython(); return why }},
	node("the robots-parser comparison", "robots-parser", "internal/testing/robotsparsers/testdata/robots-parser-js", "robots-parser"),
	{tests: "serve's PHP upstream tests", found: "PHP", require: []string{envUpstreams}, missing: testtools.PHP},
	{tests: "the nginx forward-auth tests", found: "nginx", require: []string{envUpstreams},
		missing: func() string { _, why := testtools.Nginx(); return why }},
	{tests: "the Caddy forward-auth tests", found: "Caddy", require: []string{envUpstreams}, missing: testtools.Caddy},
	node("lint's Ajv schema checks", "Ajv", "cmd/agentready/testdata/ajv", "ajv"),
	node("serve's MCP test with server-everything", "server-everything", "cmd/agentready/testdata/mcp-everything", "@modelcontextprotocol/server-everything"),
	node("the MCP gateway's client tests", "the Inspector's CLI", "cmd/agentready/testdata/mcp-gateway", "@modelcontextprotocol/inspector-cli"),
	node("the A2A SDK card tests", "@a2a-js/sdk", "internal/publish/cards/testdata/a2a-js", "@a2a-js/sdk"),
	node("the Cloudflare web-bot-auth tests", "web-bot-auth", "internal/testing/e2e/testdata/web-bot-auth-js", "web-bot-auth/package.json"),
	{tests: "the README's first-hour test", found: "bash, curl and jq", require: []string{envUpstreams},
		missing: func() string {
			if why := testtools.Programs("bash", "curl", "jq"); why != "" {
				return why + " (apt-get install bash curl jq)"
			}
			return ""
		}},
	{tests: "the report page's Chromium test", found: "Chromium and tesseract", require: []string{envBrowser, envUpstreams},
		missing: func() string { _, why := testtools.Chromium(); return why }},
	{tests: "the container image test", found: "podman", require: []string{envContainer},
		missing: func() string { _, _, why := testtools.Container(); return why }},
}

func main() {
	root, err := moduleRoot()
	if err == nil {
		err = os.Chdir(root)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "skipped:", err)
		os.Exit(2)
	}
	line, failed := report(groups, os.Getenv)
	fmt.Println(line)
	if failed {
		os.Exit(1)
	}
}

// report is the line to print, and whether a group is missing that a
// variable requires (its tests failed). Groups missing the same thing are
// named together.
func report(groups []group, getenv func(string) string) (line string, failed bool) {
	var found, reasons, vars []string
	skipped := map[string][]string{} // reason: tests
	var failures []string
	for _, g := range groups {
		why := g.missing()
		if why == "" {
			found = append(found, g.found)
			continue
		}
		if v := required(g, getenv); v != "" {
			failures = append(failures, fmt.Sprintf("%s failed because %s, and %s=1", g.tests, why, v))
			continue
		}
		if skipped[why] == nil {
			reasons = append(reasons, why)
		}
		skipped[why] = append(skipped[why], g.tests)
		if !slices.Contains(vars, g.require[0]+"=1") {
			vars = append(vars, g.require[0]+"=1")
		}
	}
	var parts []string
	for _, why := range reasons {
		parts = append(parts, fmt.Sprintf("%s skipped because %s", and(skipped[why]), why))
	}
	switch {
	case len(failures) > 0 && len(parts) > 0:
		return fmt.Sprintf("agentready tests: %s; %s; set %s to fail instead", strings.Join(failures, "; "), strings.Join(parts, "; "), strings.Join(vars, " ")), true
	case len(failures) > 0:
		return "agentready tests: " + strings.Join(failures, "; "), true
	case len(parts) > 0:
		return fmt.Sprintf("agentready tests: %s; set %s to fail instead", strings.Join(parts, "; "), strings.Join(vars, " ")), false
	}
	return "agentready tests: every test ran (found " + strings.Join(found, ", ") + ")", false
}

// required returns the variable, set to 1, that makes g's skip a failure,
// "" when none is.
func required(g group, getenv func(string) string) string {
	for _, v := range g.require {
		if getenv(v) == "1" {
			return v
		}
	}
	return ""
}

// and joins names as a sentence does: "a", "a and b", "a, b and c".
func and(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// moduleRoot is the nearest directory up from the working directory whose
// go.mod is the library's.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && strings.Contains(string(b), "module github.com/agentready/agentready\n") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("not inside the github.com/agentready/agentready module")
		}
		dir = parent
	}
}
