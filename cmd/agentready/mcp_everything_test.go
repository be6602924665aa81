package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentready/agentready/internal/testing/testtools"
)

// agentready serve in front of MCP's reference server (issue 35):
// @modelcontextprotocol/server-everything in its streamable HTTP mode,
// reached by the TypeScript SDK's client (@modelcontextprotocol/sdk),
// which opens a session with the legacy initialize (MCP 2025-11-25) and
// sends no Mcp-Method or Mcp-Name: agentready reads every call from the
// JSON-RPC body. Both packages are pinned in testdata/mcp-everything's
// package-lock.json, which .ci/run installs with npm ci; without node or
// them the test skips, unless AGENTREADY_REQUIRE_UPSTREAMS=1 (set by
// .ci/run) makes it fail. Between serve and the server a recording proxy
// notes every JSON-RPC message that reached the server, so that the test
// asserts that no refused call did and no limit was exceeded.

// everythingDir holds the packages and the scripts: server.mjs starts the
// server on 127.0.0.1, client.mjs runs the SDK's client.
const everythingDir = "testdata/mcp-everything"

// everythingOther is an agent the declaration grants nothing ("*").
const everythingOther = "Bytespider/1.0"

var everythingApp = upstreamApp{
	name: "server-everything",
	missing: func() string {
		for _, pkg := range []string{"@modelcontextprotocol/server-everything", "@modelcontextprotocol/sdk"} {
			if why := testtools.NodePackage(everythingDir, pkg); why != "" {
				return why
			}
		}
		return ""
	},
	cmd: func(testing.TB) *exec.Cmd {
		c := exec.Command("node", "server.mjs")
		c.Dir = everythingDir
		return c
	},
}

// reachedMessage is one JSON-RPC message that reached the MCP server, as
// the server reads it (encoding/json), with the User-Agent it came with.
type reachedMessage struct {
	agent, method, tool string
}

// mcpRecorder is a reverse proxy to the MCP server that records every
// message of every POST it passes on.
type mcpRecorder struct {
	next http.Handler
	mu   sync.Mutex
	msgs []reachedMessage
}

func (rc *mcpRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		type message struct {
			Method string `json:"method"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		var msgs []message
		if json.Unmarshal(body, &msgs) != nil {
			var one message
			msgs = nil
			if json.Unmarshal(body, &one) == nil {
				msgs = append(msgs, one)
			}
		}
		rc.mu.Lock()
		for _, m := range msgs {
			rc.msgs = append(rc.msgs, reachedMessage{r.UserAgent(), m.Method, m.Params.Name})
		}
		rc.mu.Unlock()
	}
	rc.next.ServeHTTP(w, r)
}

// reached returns the messages of agent that reached the server, and the
// tools its tools/call messages named, in order.
func (rc *mcpRecorder) reached(agent string) (methods, calls []string) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	for _, m := range rc.msgs {
		if m.agent != agent {
			continue
		}
		methods = append(methods, m.method)
		if m.method == "tools/call" {
			calls = append(calls, m.tool)
		}
	}
	return methods, calls
}

// startEverything starts server-everything, the recorder in front of it
// and serve in front of the recorder, all on 127.0.0.1, and returns the
// URL of serve's MCP endpoint.
func startEverything(t *testing.T) (string, *mcpRecorder) {
	t.Helper()
	up := startUpstream(t, everythingApp)
	rc := &mcpRecorder{next: httputil.NewSingleHostReverseProxy(&url.URL{Scheme: "http", Host: up})}
	rec := httptest.NewServer(rc) // on 127.0.0.1
	t.Cleanup(rec.Close)
	front := serveFront(t, proxyConfig{configFile: everythingDir + "/site.yaml", upstream: rec.URL, upstreamTimeout: 10 * time.Second})
	return front.URL + "/mcp", rc
}

// tsStep is one step of client.mjs: {"op":"list"} or a tools/call.
type tsStep struct {
	Op   string         `json:"op"`
	Tool string         `json:"tool,omitempty"`
	Args map[string]any `json:"args,omitempty"`
}

func tsCall(tool string, args map[string]any) tsStep {
	return tsStep{Op: "call", Tool: tool, Args: args}
}

// tsLine is what client.mjs printed for a step (its comment says how).
type tsLine struct {
	Op              string   `json:"op"`
	Tool            string   `json:"tool"`
	OK              bool     `json:"ok"`
	ProtocolVersion string   `json:"protocolVersion"`
	Session         bool     `json:"session"`
	Tools           []string `json:"tools"`
	IsError         bool     `json:"isError"`
	Content         []struct {
		Type, Text string
	} `json:"content"`
	// Error is the SDK's error as it gave it: Code is what its code
	// property held (a number, a string, absent).
	Error *struct {
		Name    string          `json:"name"`
		Code    json.RawMessage `json:"code"`
		Message string          `json:"message"`
	} `json:"error"`
	// HTTP is the status and Retry-After of a failed step's POST, as the
	// transport's fetch saw them.
	HTTP *struct {
		Status     int     `json:"status"`
		RetryAfter *string `json:"retryAfter"`
	} `json:"http"`
	raw string
}

// runTSClient runs the SDK's client as agent ua against endpoint, steps
// after its connect, and returns the lines it printed: connect's, one a
// step and close's.
func runTSClient(t *testing.T, endpoint, ua string, steps ...tsStep) []tsLine {
	t.Helper()
	js, err := json.Marshal(steps)
	if err != nil {
		t.Fatal(err)
	}
	// A ceiling, not a measure: the client ends when its steps do.
	ctx, cancel := context.WithTimeout(context.Background(), startWait)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "client.mjs", endpoint, ua, string(js))
	cmd.Dir = everythingDir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	began := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("client.mjs as %s: %v\n%s%s", ua, err, stdout.Bytes(), stderr.Bytes())
	}
	t.Logf("the TypeScript client as %q ran %d steps in %v", ua, len(steps), time.Since(began).Round(time.Millisecond))
	if stderr.Len() > 0 {
		t.Logf("client.mjs as %s, stderr:\n%s", ua, stderr.Bytes())
	}
	var lines []tsLine
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l tsLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("client.mjs as %s printed %q: %v", ua, sc.Text(), err)
		}
		l.raw = sc.Text()
		lines = append(lines, l)
	}
	return lines
}

// wantText asserts that l is a tool result, not an error, whose first
// content is text.
func wantText(t *testing.T, who string, l tsLine, text string) {
	t.Helper()
	if !l.OK || l.IsError || len(l.Content) == 0 || l.Content[0].Text != text {
		t.Errorf("%s: %s, want the result %q", who, l.raw, text)
	}
}

// wantRefused asserts that the SDK failed l's request with agentready's
// refusal: its StreamableHTTPError, whose code is the HTTP status and
// whose message ends with the response's body, the JSON-RPC error of the
// request (code -32001, the problem in data); a 429 came with
// Retry-After. It returns data.
func wantRefused(t *testing.T, who string, l tsLine, status string) map[string]any {
	t.Helper()
	if l.OK || l.Error == nil || string(l.Error.Code) != status || l.HTTP == nil || strconv.Itoa(l.HTTP.Status) != status {
		t.Errorf("%s: %s, want the SDK's error with code %s, for a POST answered %[3]s", who, l.raw, status)
		return nil
	}
	if status == "429" && (l.HTTP.RetryAfter == nil || *l.HTTP.RetryAfter == "") {
		t.Errorf("%s: the 429 came without Retry-After: %s", who, l.raw)
	}
	var rpc struct {
		JSONRPC string `json:"jsonrpc"`
		ID      any    `json:"id"`
		Error   struct {
			Code int            `json:"code"`
			Data map[string]any `json:"data"`
		} `json:"error"`
	}
	_, body, _ := strings.Cut(l.Error.Message, "Error POSTing to endpoint: ")
	if err := json.Unmarshal([]byte(body), &rpc); err != nil || rpc.JSONRPC != "2.0" || rpc.ID == nil || rpc.Error.Code != -32001 {
		t.Errorf("%s: the SDK's message %q carries no JSON-RPC error -32001 for the request (%v)", who, l.Error.Message, err)
		return nil
	}
	if rpc.Error.Data["capability"] != "everything" {
		t.Errorf("%s: error.data %v names no capability everything", who, rpc.Error.Data)
	}
	return rpc.Error.Data
}

// wantLines asserts that the client printed connect's line, one a step
// and close's, and that connect negotiated the legacy protocol with a
// session.
func wantLines(t *testing.T, who string, lines []tsLine, steps int) {
	t.Helper()
	if len(lines) != steps+2 || lines[0].Op != "connect" || lines[len(lines)-1].Op != "close" {
		t.Fatalf("%s printed %d lines, want connect, %d steps and close: %v", who, len(lines), steps, lines)
	}
	if c := lines[0]; !c.OK || c.ProtocolVersion != "2025-11-25" || !c.Session {
		t.Fatalf("%s connects: %s, want MCP 2025-11-25 with a session", who, c.raw)
	}
	if c := lines[len(lines)-1]; !c.OK {
		t.Errorf("%s closes: %s", who, c.raw)
	}
}

func TestServeMCPEverythingTypeScript(t *testing.T) {
	began := time.Now()
	endpoint, rc := startEverything(t)

	// GPTBot is granted echo alone.
	sum := map[string]any{"a": 2, "b": 3}
	gpt := runTSClient(t, endpoint, gptBot,
		tsStep{Op: "list"},
		tsCall("echo", map[string]any{"message": "hello"}),
		tsCall("get-sum", sum),
		tsCall("echo", map[string]any{"message": "still here"}))
	wantLines(t, "GPTBot", gpt, 4)
	if l := gpt[1]; !l.OK || !slices.Equal(l.Tools, []string{"echo"}) {
		t.Errorf("GPTBot lists tools: %s, want echo alone, the one it may call", l.raw)
	}
	wantText(t, "GPTBot calls echo", gpt[2], "Echo: hello")
	wantRefused(t, "GPTBot calls get-sum, not granted it", gpt[3], "403")
	wantText(t, "GPTBot calls echo after the refusal, on the same session", gpt[4], "Echo: still here")

	// ClaudeBot is granted the capability whole, whose get-sum takes 2
	// calls an hour, and which lists no get-env.
	claude := runTSClient(t, endpoint, claudeBot,
		tsStep{Op: "list"},
		tsCall("get-sum", sum),
		tsCall("get-sum", sum),
		tsCall("get-sum", sum),
		tsCall("get-env", nil),
		tsCall("get-annotated-message", map[string]any{"messageType": "success"}),
		tsCall("echo", map[string]any{"message": "after the limit"}))
	wantLines(t, "ClaudeBot", claude, 7)
	if l := claude[1]; !l.OK || !slices.Equal(slices.Sorted(slices.Values(l.Tools)), []string{"echo", "get-annotated-message", "get-sum"}) {
		t.Errorf("ClaudeBot lists tools: %s, want the three the declaration lists", l.raw)
	}
	wantText(t, "ClaudeBot's first get-sum", claude[2], "The sum of 2 and 3 is 5.")
	wantText(t, "ClaudeBot's second get-sum", claude[3], "The sum of 2 and 3 is 5.")
	if data := wantRefused(t, "ClaudeBot's third get-sum, past 2/hour", claude[4], "429"); data != nil &&
		(data["tool"] != "get-sum" || data["limit"] != "tool/everything/get-sum") {
		t.Errorf("the 429's error.data %v names no tool get-sum and its limit", data)
	}
	wantRefused(t, "ClaudeBot calls get-env, which the declaration does not list", claude[5], "403")
	if l := claude[6]; !l.OK || l.IsError || len(l.Content) == 0 {
		t.Errorf("ClaudeBot calls get-annotated-message: %s", l.raw)
	}
	wantText(t, "ClaudeBot calls echo after the 429", claude[7], "Echo: after the limit")

	// Any other agent is granted nothing: not even its initialize passes.
	other := runTSClient(t, endpoint, everythingOther, tsStep{Op: "list"})
	if len(other) != 1 || other[0].Op != "connect" {
		t.Fatalf("%s printed %v, want connect's line alone", everythingOther, other)
	}
	wantRefused(t, everythingOther+" connects", other[0], "403")

	// What reached the server: the granted calls, each once, and nothing
	// refused.
	for _, tc := range []struct {
		agent string
		calls []string
	}{
		{gptBot, []string{"echo", "echo"}},
		{claudeBot, []string{"get-sum", "get-sum", "get-annotated-message", "echo"}},
		{everythingOther, nil},
	} {
		methods, calls := rc.reached(tc.agent)
		if !slices.Equal(calls, tc.calls) {
			t.Errorf("the tools/call messages of %q that reached the server: %q, want %q", tc.agent, calls, tc.calls)
		}
		if tc.calls != nil && !slices.Contains(methods, "initialize") {
			t.Errorf("no initialize of %q reached the server: %q", tc.agent, methods)
		}
		if tc.calls == nil && len(methods) > 0 {
			t.Errorf("%q, granted nothing, reached the server with %q", tc.agent, methods)
		}
	}
	t.Logf("server-everything, the recorder, serve and three TypeScript clients in %v", time.Since(began).Round(time.Millisecond))
}
