package agentready_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoRedisInTheCore: a program that does not use Redis links no Redis
// client. The Redis stores live in package redisstore, which only the
// programs that use them import.
func TestNoRedisInTheCore(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command: %v", err)
	}
	core := []string{".", "./config", "./policy", "./publish/...", "./enforce", "./session", "./audit", "./cmd/agentready"}
	out, err := exec.Command(goTool, append([]string{"list", "-deps"}, core...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if strings.Contains(pkg, "redis") {
			t.Errorf("the core depends on %s", pkg)
		}
	}
}
