package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeHosts: serve answers an agent naming a host the declaration
// does not speak for 421 Misdirected Request, with a problem naming the
// hosts admitted, before anything reaches the upstream; the site URL's
// host (any case, a trailing dot, the default port), the hosts -hosts
// adds and, on a loopback listener, localhost, 127.0.0.1 and [::1] on any
// port are admitted. A browser is never checked.
func TestServeHosts(t *testing.T) {
	var reached []string
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached = append(reached, r.Host)
	}))
	t.Cleanup(up.Close)
	ov := overrides{hosts: []string{"www.shop.example", "shop.example:8443"}}
	front := serveFront(t, proxyConfig{configFile: upstreamSite, upstream: up.URL, ov: &ov})
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(front.URL, "http://"))
	for _, tc := range []struct {
		host, ua string
		want     int
	}{
		{"shop.example", gptBot, 200},
		{"SHOP.Example.", gptBot, 200},
		{"shop.example:443", gptBot, 200},
		{"www.shop.example", gptBot, 200},
		{"shop.example:8443", gptBot, 200},
		{"127.0.0.1:" + port, gptBot, 200},
		{"localhost:1234", gptBot, 200},
		{"[::1]", gptBot, 200},
		{"evil.example", gptBot, 421},
		{"shop.example.evil.example", gptBot, 421},
		{"shop.example:8080", gptBot, 421},
		{"internal-admin", gptBot, 421},
		{"evil.example", "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0", 200},
	} {
		reached = nil
		conn, err := net.Dial("tcp", strings.TrimPrefix(front.URL, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(conn, "GET /products/tent HTTP/1.1\r\nHost: %s\r\nUser-Agent: %s\r\nConnection: close\r\n\r\n", tc.host, tc.ua)
		res, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		conn.Close()
		if res.StatusCode != tc.want {
			t.Errorf("Host %q (%s): %d %s, want %d", tc.host, tc.ua, res.StatusCode, body, tc.want)
			continue
		}
		if tc.want == 421 {
			var prob struct {
				Status int      `json:"status"`
				Hosts  []string `json:"hosts"`
				Detail string   `json:"detail"`
			}
			if err := json.Unmarshal(body, &prob); err != nil || prob.Status != 421 ||
				!strings.Contains(strings.Join(prob.Hosts, " "), "shop.example www.shop.example shop.example:8443") || !strings.Contains(prob.Detail, tc.host) {
				t.Errorf("Host %q: the problem %s (%v) does not name the hosts admitted", tc.host, body, err)
			}
			if len(reached) != 0 {
				t.Errorf("Host %q reached the upstream", tc.host)
			}
		}
	}
}

// TestServeHostsRefused: a serve.hosts entry that is not a host or
// host:port is refused at its line by lint (and so by serve), and -hosts
// by its flag.
func TestServeHostsRefused(t *testing.T) {
	src, err := os.ReadFile(upstreamSite)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "site.yaml")
	os.WriteFile(file, append(src, "\nserve:\n  hosts: [www.shop.example, \"https://bad.example/\"]\n"...), 0o644)
	var stderr strings.Builder
	if code := run([]string{"lint", file}, &stderr, &stderr); code == 0 || !strings.Contains(stderr.String(), `serve.hosts: host "https://bad.example/"`) {
		t.Errorf("lint: exit %d, %s", code, stderr.String())
	}
	ov := overrides{hosts: []string{"bad.example/x"}}
	if _, err := prepare(upstreamSite, ov); err == nil || !strings.Contains(err.Error(), "-hosts") {
		t.Errorf("-hosts bad.example/x: %v", err)
	}
}
