package main

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const a2a03Site = "testdata/serve/a2a03.yaml"

// a2aCard is what the test reads of an agent card: v0.3.0 has
// protocolVersion, url and preferredTransport at the top (A2A v0.3.0
// 5.5), v1.0 has none of them and supportedInterfaces instead (A2A 1.0
// 4.4.1).
type a2aCard struct {
	ProtocolVersion     string `json:"protocolVersion"`
	URL                 string `json:"url"`
	PreferredTransport  string `json:"preferredTransport"`
	SupportedInterfaces []struct {
		URL             string `json:"url"`
		ProtocolVersion string `json:"protocolVersion"`
	} `json:"supportedInterfaces"`
}

// serveCard starts serve with args (after -config and -upstream) and
// reads its agent card.
func serveCard(t *testing.T, file string, args ...string) a2aCard {
	t.Helper()
	up := httptest.NewServer(http.NotFoundHandler())
	defer up.Close()
	var stderr bytes.Buffer
	f, code := parseServeFlags(append([]string{"-config", file, "-upstream", up.URL}, args...), &stderr)
	if code >= 0 {
		t.Fatalf("serve %v: exit %d: %s", args, code, &stderr)
	}
	f.c.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	p, err := newProxy(f.c)
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	w := httptest.NewRecorder()
	p.handler.ServeHTTP(w, httptest.NewRequest("GET", "https://travel.example/.well-known/agent-card.json", nil))
	var c a2aCard
	if err := json.Unmarshal(w.Body.Bytes(), &c); w.Code != 200 || err != nil {
		t.Fatalf("agent card: %d %v\n%s", w.Code, err, w.Body)
	}
	return c
}

// TestServeA2AVersion: serve: {a2a_version: "0.3"} serves the v0.3.0 card
// (url and preferredTransport at the top, as a2a-go v0.3.3 reads them),
// -a2a-version 1.0 wins over the file and serves v1.0's, and render
// prints the card serve serves.
func TestServeA2AVersion(t *testing.T) {
	if c := serveCard(t, a2a03Site); c.ProtocolVersion != "0.3.0" || c.URL != "https://travel.example/a2a" ||
		c.PreferredTransport != "JSONRPC" || c.SupportedInterfaces != nil {
		t.Errorf("serve.a2a_version 0.3: %+v", c)
	}
	if c := serveCard(t, a2a03Site, "-a2a-version", "1.0"); c.ProtocolVersion != "" || c.URL != "" ||
		len(c.SupportedInterfaces) != 1 || c.SupportedInterfaces[0].ProtocolVersion != "1.0" {
		t.Errorf("-a2a-version 1.0: %+v", c)
	}
	var out, errOut bytes.Buffer
	if code := render([]string{a2a03Site}, &out, &errOut); code != 0 || !strings.Contains(out.String(), `"protocolVersion": "0.3.0"`) {
		t.Errorf("render: exit %d: %s\n%s", code, &errOut, &out)
	}
}

// TestA2AVersionRefused: a version the cards package does not render is
// refused by lint at its line and by serve's flag, before serving.
func TestA2AVersionRefused(t *testing.T) {
	b, err := os.ReadFile(a2a03Site)
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(t.TempDir(), "site.yaml")
	if err := os.WriteFile(bad, bytes.Replace(b, []byte(`"0.3"`), []byte(`"0.2"`), -1), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := lint([]string{bad}, &out, &errOut); code != 1 || !strings.Contains(out.String()+errOut.String(), `:20: serve.a2a_version: "0.2": want "1.0"`) {
		t.Errorf("lint: exit %d: %s%s", code, &out, &errOut)
	}
	errOut.Reset()
	if _, code := parseServeFlags([]string{"-config", a2a03Site, "-upstream", "http://127.0.0.1:1", "-a2a-version", "2"}, &errOut); code != 2 ||
		!strings.Contains(errOut.String(), `-a2a-version "2": want "1.0"`) {
		t.Errorf("-a2a-version 2: exit %d: %s", code, &errOut)
	}
}
