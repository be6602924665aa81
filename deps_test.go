package agentready_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestNoRedisInTheCore: a program that does not use Redis links no Redis
// client, nor, without package metrics, the Prometheus client. (The
// agentready command links both: its serve takes -redis and -metrics.) The Redis stores live in package redisstore, which only the
// programs that use them import.
func TestNoRedisInTheCore(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command: %v", err)
	}
	core := []string{".", "./config", "./internal/policy", "./internal/publish/...", "./enforce", "./ratelimit", "./session", "./audit", "./verify"}
	out, err := exec.Command(goTool, append([]string{"list", "-deps"}, core...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if strings.Contains(pkg, "redis") || strings.Contains(pkg, "prometheus") {
			t.Errorf("the core depends on %s", pkg)
		}
	}
}

// TestGoModHoldsOnlyWhatTheLibraryUses: every module the library's go.mod
// requires directly is imported by its packages or their tests. Examples,
// router tests and peer benchmarks are modules of their own (examples,
// routertest, bench/compare), so chi, httprate and the other peers never
// become dependencies of a program that imports agentready.
func TestGoModHoldsOnlyWhatTheLibraryUses(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command: %v", err)
	}
	out, err := exec.Command(goTool, "list", "-deps", "-test", "-f", "{{with .Module}}{{.Path}}{{end}}", "./...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	used := map[string]bool{}
	for _, m := range strings.Fields(string(out)) {
		used[m] = true
	}
	mod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	direct := 0
	for _, line := range strings.Split(string(mod), "\n") {
		f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), "require "))
		if len(f) != 2 || !strings.Contains(f[0], ".") || strings.Contains(line, "// indirect") || f[0] == "module" || f[0] == "go" {
			continue
		}
		direct++
		if !used[f[0]] {
			t.Errorf("go.mod requires %s, which no package or test of the library imports", f[0])
		}
	}
	if direct < 5 {
		t.Fatalf("found %d direct requirements in go.mod: the parser is wrong", direct)
	}
	for _, peer := range []string{"github.com/go-chi/chi/v5", "github.com/go-chi/httprate", "github.com/temoto/robotstxt"} {
		if strings.Contains(string(mod), peer) {
			t.Errorf("go.mod mentions %s, which belongs to the examples or the benchmarks", peer)
		}
	}
}
