package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentready/agentready/internal/testing/testtools"
)

// clientsDir holds the independent MCP clients agentready's gateway is
// tested with (cmd/agentready/testdata/mcp-gateway: the TypeScript SDK's
// client, client.mjs, and the MCP Inspector's CLI).
const clientsDir = "../../cmd/agentready/testdata/mcp-gateway"

// TestDemoOverMCP: the demo, built and started as `go run
// ./examples/stdlib` starts it, reached by the TypeScript SDK's client
// with a token from its token endpoint: it lists the demo's one tool and
// its documents, and search_products answers what GET /api/search
// answers the same agent directly.
func TestDemoOverMCP(t *testing.T) {
	testtools.Need(t, testtools.NodePackage(clientsDir, "@modelcontextprotocol/sdk"))
	bin := filepath.Join(t.TempDir(), "stdlib")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("the demo: %v\n%s", err, out)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cmd := exec.Command(bin, "-addr", addr)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	base := "http://" + addr
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if res, err := http.Get(base + "/"); err == nil {
			res.Body.Close()
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("the demo does not answer: %v", err)
		}
	}

	do := func(method, path, auth string) (int, []byte) {
		r, _ := http.NewRequest(method, base+path, nil)
		r.Header.Set("User-Agent", "claude/1.0")
		if auth != "" {
			r.Header.Set("Authorization", auth)
		}
		res, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, b
	}
	_, tok := do("POST", "/auth/token", "")
	var token struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.Unmarshal(tok, &token); err != nil || token.AccessToken == "" {
		t.Fatalf("the token endpoint answered %s", tok)
	}
	auth := "Bearer " + token.AccessToken

	h, _ := json.Marshal(map[string]string{"User-Agent": "claude/1.0", "Authorization": auth})
	steps := `[{"op":"tools"},{"op":"call","tool":"search_products","args":{"q":"tent","limit":1}},{"op":"resources"}]`
	c := exec.Command("node", "client.mjs", base+"/mcp", string(h), steps)
	c.Dir = clientsDir
	var stderr bytes.Buffer
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		t.Fatalf("client.mjs: %v\n%s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 5 {
		t.Fatalf("client.mjs printed:\n%s\n%s", out, stderr.String())
	}
	var tools struct {
		Tools   []struct{ Name string }
		Schemas map[string]map[string][]string
	}
	var call struct {
		OK, IsError       bool
		StructuredContent json.RawMessage
	}
	var resources struct{ Resources []struct{ URI string } }
	if json.Unmarshal([]byte(lines[1]), &tools) != nil || json.Unmarshal([]byte(lines[2]), &call) != nil || json.Unmarshal([]byte(lines[3]), &resources) != nil {
		t.Fatalf("client.mjs printed:\n%s", out)
	}
	if len(tools.Tools) != 1 || tools.Tools[0].Name != "search_products" || len(tools.Schemas["search_products"]["input"]) > 0 {
		t.Errorf("the demo's tools: %s", lines[1])
	}
	code, direct := do("GET", "/api/search?limit=1&q=tent", "")
	var viaGateway, directly any
	_ = json.Unmarshal(call.StructuredContent, &viaGateway)
	_ = json.Unmarshal(direct, &directly)
	g, _ := json.Marshal(viaGateway)
	d, _ := json.Marshal(directly)
	if !call.OK || call.IsError || code != http.StatusOK || string(g) != string(d) || !strings.Contains(string(g), "tent") {
		t.Errorf("search_products answered %s; GET /api/search directly %d %s", lines[2], code, d)
	}
	var uris []string
	for _, r := range resources.Resources {
		uris = append(uris, r.URI)
	}
	if !strings.Contains(strings.Join(uris, " "), "https://outdoorsupply.example/.well-known/agents.txt") {
		t.Errorf("the demo's resources: %v", uris)
	}
}
