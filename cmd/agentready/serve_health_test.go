package main

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sync/atomic"
	"testing"

	"github.com/agentready/agentready/internal/testing/redistest"
	"github.com/agentready/agentready/ratelimit"
)

// healthFront starts serve's servers for c (the public listener on
// 127.0.0.1:0) and returns them and the base URL of /healthz and /readyz.
func healthFront(t *testing.T, c proxyConfig) (*servers, string) {
	t.Helper()
	c.addr = "127.0.0.1:0"
	if c.log == nil {
		var logs syncBuffer
		c.log, _ = newLogger(&logs, "json")
	}
	p, err := newProxy(c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.close)
	s, err := startServers(c, p, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.shutdown)
	m := regexp.MustCompile(`(?:health|metrics) at (http://[^/]+)/`).FindStringSubmatch(s.metricsAt)
	if m == nil {
		t.Fatalf("no health listener in %q", s.metricsAt)
	}
	return s, m[1]
}

// probe GETs url and returns the status and the body read as readiness
// (zero for /healthz's text).
func probe(t *testing.T, url string) (int, readiness, string) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	var rd readiness
	json.Unmarshal(b, &rd)
	return res.StatusCode, rd, string(b)
}

// TestServeHealthReadiness: /healthz answers 200 while serve runs and
// /readyz 200 once the declaration is loaded, with Redis's state in its
// body; Redis stopped fails /readyz under fail-closed only (fallback-
// memory keeps the replica in the load balancer: it still limits, per
// replica), and /readyz recovers when Redis does. Neither is on the
// public listener: there they are the upstream's paths.
func TestServeHealthReadiness(t *testing.T) {
	var upstreamSaw atomic.Int32
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		upstreamSaw.Add(1)
		io.WriteString(w, "upstream")
	}))
	t.Cleanup(up.Close)

	// Without Redis, on -metrics' listener.
	s, base := healthFront(t, proxyConfig{configFile: upstreamSite, upstream: up.URL, metricsAddr: "127.0.0.1:0", redisPolicy: ratelimit.FallbackMemory})
	if code, _, body := probe(t, base+"/healthz"); code != 200 || body != "ok\n" {
		t.Errorf("/healthz: %d %q", code, body)
	}
	if code, rd, body := probe(t, base+"/readyz"); code != 200 || rd != (readiness{"loaded", "none", "memory"}) {
		t.Errorf("/readyz without Redis: %d %s", code, body)
	}
	for _, path := range []string{"/healthz", "/readyz"} {
		if code, _, body := probe(t, "http://"+s.addr.String()+path); code != 200 || body != "upstream" {
			t.Errorf("%s on the public listener: %d %q, want the upstream's", path, code, body)
		}
	}
	if n := upstreamSaw.Load(); n != 2 {
		t.Errorf("the upstream saw %d requests, want 2", n)
	}

	for _, tc := range []struct {
		policy   string
		downCode int
	}{
		{ratelimit.FallbackMemory, 200},
		{ratelimit.FailOpen, 200},
		{ratelimit.FailClosed, 503},
	} {
		t.Run(tc.policy, func(t *testing.T) {
			srv := redistest.StartLocal(t)
			_, base := healthFront(t, proxyConfig{configFile: upstreamSite, upstream: up.URL, redisAddr: srv.Addr,
				redisPolicy: tc.policy, healthAddr: "127.0.0.1:0"})
			store := "redis " + tc.policy
			if code, rd, body := probe(t, base+"/readyz"); code != 200 || rd != (readiness{"loaded", "up", store}) {
				t.Errorf("Redis up: %d %s", code, body)
			}
			srv.Stop(t)
			if code, rd, body := probe(t, base+"/readyz"); code != tc.downCode || rd != (readiness{"loaded", "down", store}) {
				t.Errorf("Redis stopped: %d %s, want %d", code, body, tc.downCode)
			}
			if code, _, _ := probe(t, base+"/healthz"); code != 200 {
				t.Errorf("/healthz with Redis stopped: %d", code)
			}
			srv.Restart(t)
			if code, rd, body := probe(t, base+"/readyz"); code != 200 || rd.Redis != "up" {
				t.Errorf("Redis restarted: %d %s", code, body)
			}
		})
	}
}

// TestServeRedisPolicy: -redis-policy reaches the failover: with Redis
// unreachable from the start, fail-closed refuses a rate-limited request
// 503 and says so at start, and /readyz fails; fallback-memory serves it.
func TestServeRedisPolicy(t *testing.T) {
	up := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(up.Close)
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	closed := ln.Addr().String()
	ln.Close()
	for _, tc := range []struct {
		policy, line string
		code, readyz int
	}{
		{ratelimit.FailClosed, "agentready serve: Redis does not answer; rate-limited requests are refused 503 until it does (fail-closed)", 503, 503},
		{ratelimit.FallbackMemory, "agentready serve: Redis does not answer; rate limits are counted per replica until it does", 404, 200},
	} {
		var logs syncBuffer
		l, _ := newLogger(&logs, "json")
		c := proxyConfig{configFile: upstreamSite, upstream: up.URL, redisAddr: closed, redisPolicy: tc.policy, healthAddr: "127.0.0.1:0", log: l}
		_, base := healthFront(t, c)
		if got := len(logRecords(t, &logs, tc.line)); got != 1 {
			t.Errorf("%s: the start line: %d\n%s", tc.policy, got, logs.String())
		}
		p, err := newProxy(c)
		if err != nil {
			t.Fatal(err)
		}
		// A 404 is the upstream's: the request was served.
		if got := serveGet(p.handler, "/api/search?q=x", gptBot); got != tc.code {
			t.Errorf("%s: a rate-limited request with Redis down: %d, want %d", tc.policy, got, tc.code)
		}
		p.close()
		if code, rd, body := probe(t, base+"/readyz"); code != tc.readyz || rd.Redis != "down" {
			t.Errorf("%s: /readyz %d %s", tc.policy, code, body)
		}
	}
}
