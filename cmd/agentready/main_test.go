package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentready/agentready/audit"
)

// siteKey is a fixed test key (seed 7, 7, …).
var siteKey = ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, ed25519.SeedSize))

var siteKeyB64 = base64.StdEncoding.EncodeToString(siteKey.Public().(ed25519.PublicKey))

// artifact returns a sealed artifact's JSON.
func artifact(t *testing.T) []byte {
	t.Helper()
	ctx := context.Background()
	st, err := audit.NewMemoryStore(audit.MemoryConfig{})
	if err != nil {
		t.Fatal(err)
	}
	for i, capability := range []string{"search", "cart.add", "checkout"} {
		err := st.Append(ctx, "sess-1", audit.Event{
			EventID: "evt-" + string(rune('1'+i)), Timestamp: "2025-06-01T12:00:00.000Z",
			Capability: capability, Method: "POST", Params: map[string]any{"q": "mug"},
			PolicyResult: audit.PolicyResult{Decision: audit.Allow, Rule: "capability:" + capability}, ResponseStatus: 200,
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	a, err := audit.SealSession(ctx, st, siteKey, audit.Meta{
		SessionID: "sess-1", Site: "https://acmeceramics.example.com",
		CreatedAt: "2025-06-01T11:59:00.000Z", EndedAt: "2025-06-01T12:01:00.000Z",
	})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.MarshalIndent(a, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// artifactUnrecorded is a sealed artifact one of whose two events was
// recorded before its action ran and never completed.
func artifactUnrecorded(t *testing.T) []byte {
	t.Helper()
	ctx := context.Background()
	st, err := audit.NewMemoryStore(audit.MemoryConfig{})
	if err != nil {
		t.Fatal(err)
	}
	ev := audit.Event{EventID: "evt-1", Timestamp: "2025-06-01T12:00:00.000Z", Capability: "cart.add", Method: "POST",
		PolicyResult: audit.PolicyResult{Decision: audit.Allow}, ResponseStatus: 200}
	if err := st.Append(ctx, "sess-1", ev); err != nil {
		t.Fatal(err)
	}
	ev.EventID = "evt-2"
	if _, err := st.Begin(ctx, "sess-1", ev); err != nil {
		t.Fatal(err)
	}
	a, err := audit.SealSession(ctx, st, siteKey, audit.Meta{SessionID: "sess-1", Site: "https://acmeceramics.example.com",
		CreatedAt: "2025-06-01T11:59:00.000Z", EndedAt: "2025-06-01T12:01:00.000Z"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writeFile(t *testing.T, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRun(t *testing.T) {
	good := artifact(t)
	goodFile := writeFile(t, "artifact.json", good)
	tampered := writeFile(t, "tampered.json", bytes.Replace(good, []byte(`"sess-1"`), []byte(`"sess-2"`), 1))
	notJSON := writeFile(t, "notjson.json", []byte("<html>"))
	unrecorded := writeFile(t, "unrecorded.json", artifactUnrecorded(t))
	big := filepath.Join(t.TempDir(), "big.json")
	if f, err := os.Create(big); err != nil {
		t.Fatal(err)
	} else {
		if err := f.Truncate(16<<20 + 1); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	otherKey := base64.StdEncoding.EncodeToString(ed25519.NewKeyFromSeed(make([]byte, 32)).Public().(ed25519.PublicKey))

	mux := http.NewServeMux()
	mux.HandleFunc("/audit/sess-1", func(w http.ResponseWriter, _ *http.Request) { w.Write(good) })
	mux.HandleFunc("/audit/huge", func(w http.ResponseWriter, _ *http.Request) {
		chunk := bytes.Repeat([]byte(" "), 1<<20)
		for range 17 {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	tests := []struct {
		name     string
		args     []string
		code     int
		stdout   []string // substrings
		stderr   []string
		quietOut bool // nothing on stdout
		quietErr bool // nothing on stderr
	}{
		{"help", []string{"-h"}, 0, []string{"Usage:", "verify-audit [-key BASE64] FILE|URL"}, nil, false, true},
		{"help long", []string{"--help"}, 0, []string{"Usage:"}, nil, false, true},
		{"no arguments", nil, 2, nil, []string{"Usage:"}, true, false},
		{"unknown command", []string{"verify"}, 2, nil, []string{`unknown command "verify"`, "Usage:"}, true, false},
		{"verify help", []string{"verify-audit", "-h"}, 0, []string{"Usage:"}, nil, false, true},
		{"no source", []string{"verify-audit"}, 2, nil, []string{"want one FILE or URL, got 0"}, true, false},
		{"two sources", []string{"verify-audit", goodFile, goodFile}, 2, nil, []string{"got 2"}, true, false},
		{"unknown flag", []string{"verify-audit", "-x", goodFile}, 2, nil, []string{"flag provided but not defined: -x"}, true, false},
		{"bad key", []string{"verify-audit", "-key", "nope", goodFile}, 2, nil, []string{"-key is not standard base64"}, true, false},
		{"short key", []string{"verify-audit", "-key", "AAAA", goodFile}, 2, nil, []string{"32-byte"}, true, false},
		{"file with key", []string{"verify-audit", "-key", siteKeyB64, goodFile}, 0,
			[]string{"OK: ", `session "sess-1" of "https://acmeceramics.example.com"`, "3 events", "verified with the key given by -key"}, nil, false, true},
		{"key after file", []string{"verify-audit", goodFile, "-key", siteKeyB64}, 0, []string{"with the key given by -key"}, nil, false, true},
		{"an outcome not recorded", []string{"verify-audit", "-key", siteKeyB64, unrecorded}, 0,
			[]string{"OK: ", "2 events (1 of them with their outcome not recorded: response_status 0)"}, nil, false, true},
		{"file without key", []string{"verify-audit", goodFile}, 0,
			[]string{"OK: ", "with the key embedded in the artifact, " + siteKeyB64, "integrity only"}, nil, false, true},
		{"other key", []string{"verify-audit", "-key", otherKey, goodFile}, 1, []string{"FAIL: ", "not the expected key"}, nil, false, true},
		{"tampered", []string{"verify-audit", "-key", siteKeyB64, tampered}, 1, []string{"FAIL: ", "invalid signature"}, nil, false, true},
		{"not JSON", []string{"verify-audit", notJSON}, 1, []string{"FAIL: ", "malformed artifact"}, nil, false, true},
		{"missing file", []string{"verify-audit", filepath.Join(t.TempDir(), "none.json")}, 1, []string{"FAIL: ", "no such file"}, nil, false, true},
		{"file too large", []string{"verify-audit", big}, 1, []string{"FAIL: ", "larger than 16 MiB"}, nil, false, true},
		{"URL", []string{"verify-audit", "-key", siteKeyB64, srv.URL + "/audit/sess-1"}, 0, []string{"OK: " + srv.URL}, nil, false, true},
		{"URL 404", []string{"verify-audit", srv.URL + "/audit/sess-2"}, 1, []string{"FAIL: ", "404 Not Found"}, nil, false, true},
		{"URL too large", []string{"verify-audit", srv.URL + "/audit/huge"}, 1, []string{"larger than 16 MiB"}, nil, false, true},
		{"URL unreachable", []string{"verify-audit", "http://127.0.0.1:1/audit/x"}, 1, []string{"FAIL: ", "connection refused"}, nil, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(tt.args, &stdout, &stderr)
			if code != tt.code {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.code, stdout.String(), stderr.String())
			}
			check := func(what string, got string, want []string, quiet bool) {
				t.Helper()
				for _, w := range want {
					if !strings.Contains(got, w) {
						t.Errorf("%s lacks %q:\n%s", what, w, got)
					}
				}
				if quiet && got != "" {
					t.Errorf("%s should be empty:\n%s", what, got)
				}
			}
			check("stdout", stdout.String(), tt.stdout, tt.quietOut)
			check("stderr", stderr.String(), tt.stderr, tt.quietErr)
			verdict := strings.HasPrefix(stdout.String(), "OK: ") || strings.HasPrefix(stdout.String(), "FAIL: ")
			if verdict && strings.Count(stdout.String(), "\n") != 1 {
				t.Errorf("the verdict is not one line:\n%s", stdout.String())
			}
		})
	}
}

// TestReadTimeout: a stalled server does not hang the command (the
// timeout is shortened here).
func TestReadTimeout(t *testing.T) {
	block := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		select {
		case <-block:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(block)
	saved := httpClient
	httpClient = &http.Client{Timeout: 200 * time.Millisecond}
	defer func() { httpClient = saved }()
	if _, err := read(srv.URL); err == nil {
		t.Fatal("read of a stalled body returned")
	}
	if fetchTimeout.Seconds() != 10 || saved.Timeout != fetchTimeout {
		t.Fatalf("fetch timeout %v, want 10s", saved.Timeout)
	}
}

// TestHelp: -h of every command prints the usage and succeeds.
func TestHelp(t *testing.T) {
	for _, cmd := range []string{"lint", "render", "check", "verify-audit"} {
		var out, errOut bytes.Buffer
		if code := run([]string{cmd, "-h"}, &out, &errOut); code != 0 || !strings.Contains(out.String(), "agentready") || errOut.Len() != 0 {
			t.Errorf("%s -h: exit %d, stdout %d bytes, stderr %q", cmd, code, out.Len(), errOut.String())
		}
	}
}
