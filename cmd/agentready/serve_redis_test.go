package main

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/agentready/agentready/internal/testing/redistest"
)

// TestServeRedisAddresses: -redis takes host:port and redis:// URLs (and
// rediss:// for TLS); two proxies given the same Redis, each in its own
// spelling, share one rate limit; serve says at start that Redis
// answers.
func TestServeRedisAddresses(t *testing.T) {
	srv := redistest.Start(t)
	up := httptest.NewServer(http.NotFoundHandler())
	defer up.Close()
	host, port, _ := net.SplitHostPort(srv.Addr)
	// product-search allows 2 a minute: each spelling gets its own GPTBot
	// (a fresh key prefix is not settable from the command line, so the
	// clients differ instead).
	for i, addr := range []string{srv.Addr, "redis://" + srv.Addr, "redis://" + net.JoinHostPort(host, port) + "/0?dial_timeout=1s"} {
		var logs syncBuffer
		l, _ := newLogger(&logs, "json")
		front := func() *proxy {
			p, err := newProxy(proxyConfig{configFile: upstreamSite, upstream: up.URL, redisAddr: addr, log: l})
			if err != nil {
				t.Fatalf("-redis %s: %v", addr, err)
			}
			t.Cleanup(p.close)
			return p
		}
		a, b := front(), front()
		if got := logRecords(t, &logs, "agentready serve: Redis answers; rate limits, sessions and the audit trail are shared through it"); len(got) != 2 || got[0]["redis"] != srv.Addr {
			t.Errorf("-redis %s: the start lines: %v", addr, got)
		}
		client := "198.51.100." + string(rune('1'+i))
		codes := []int{}
		for _, p := range []*proxy{a, b, a} {
			r := httptest.NewRequest("GET", "http://shop.example/api/search?q=x", nil)
			r.RemoteAddr = client + ":4000"
			r.Header.Set("User-Agent", gptBot)
			w := httptest.NewRecorder()
			p.handler.ServeHTTP(w, r)
			codes = append(codes, w.Code)
		}
		if codes[0] == 429 || codes[1] == 429 || codes[2] != 429 {
			t.Errorf("-redis %s: two proxies answered %v to three requests under a limit of 2/minute: the limit is not shared", addr, codes)
		}
	}
	o, err := redisOptions("rediss://user:secret@redis.example:6380/2")
	if err != nil || o.TLSConfig == nil || o.Addr != "redis.example:6380" || o.DB != 2 || o.Password != "secret" || o.MaxRetries != -1 || o.DialerRetries != 1 {
		t.Errorf("rediss://: %+v %v", o, err)
	}
	if o, err := redisOptions("redis://h:1/0?max_retries=2"); err != nil || o.MaxRetries != 2 {
		t.Errorf("a URL's own max_retries: %+v %v", o, err)
	}
}

// TestServeRedisWrongAddress: an address -redis cannot read stops serve,
// naming it; one nothing answers at is one line at start naming the
// address and the cause ("connection refused"), serve starting with the
// failure policy; when Redis fails later, the cause is in agentready's
// own lines, not "context deadline exceeded".
func TestServeRedisWrongAddress(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer up.Close()
	for _, bad := range []string{"localhost", "redis//127.0.0.1:6379", "[::1]:6379/0", "http://127.0.0.1:6379", "redis://127.0.0.1:6379/x"} {
		if _, err := newProxy(proxyConfig{configFile: upstreamSite, upstream: up.URL, redisAddr: bad}); err == nil || !strings.Contains(err.Error(), "-redis") {
			t.Errorf("-redis %q: %v", bad, err)
		}
	}
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	closed := ln.Addr().String()
	ln.Close()
	var logs syncBuffer
	l, _ := newLogger(&logs, "json")
	start := time.Now()
	p, err := newProxy(proxyConfig{configFile: upstreamSite, upstream: up.URL, redisAddr: "redis://" + closed, log: l})
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	if d := time.Since(start); d > redisCheckTimeout {
		t.Errorf("the check took %v", d)
	}
	lines := logRecords(t, &logs, "agentready serve: Redis does not answer; rate limits are counted per replica until it does")
	if len(lines) != 1 || lines[0]["redis"] != closed || !strings.Contains(lines[0]["err"].(string), "connection refused") || lines[0]["level"] != "ERROR" {
		t.Fatalf("the start line: %v\n%s", lines, logs.String())
	}
	if got := serveGet(p.handler, "/api/search?q=x", gptBot); got != 200 {
		t.Errorf("with Redis down, the failure policy (fallback-memory) answers: %d", got)
	}

	// An outage of a Redis that answered at start.
	srv := redistest.StartLocal(t)
	logs = syncBuffer{}
	l, _ = newLogger(&logs, "json")
	p2, err := newProxy(proxyConfig{configFile: upstreamSite, upstream: up.URL, redisAddr: srv.Addr, log: l})
	if err != nil {
		t.Fatal(err)
	}
	defer p2.close()
	serveGet(p2.handler, "/api/search?q=x", gptBot)
	srv.Stop(t)
	for range 3 {
		serveGet(p2.handler, "/api/search?q=x", gptBot)
	}
	failed := logRecords(t, &logs, "agentready: rate-limit store failed; limits follow the failure policy until it recovers")
	if len(failed) != 1 || failed[0]["redis"] != srv.Addr {
		t.Fatalf("the outage's line: %v\n%s", failed, logs.String())
	}
	t.Logf("the outage, in agentready's line: %v", failed[0]["err"])
	if e, _ := failed[0]["err"].(string); strings.Contains(e, "deadline") || !strings.Contains(e, "connection refused") && !strings.Contains(e, "EOF") &&
		!strings.Contains(e, "connection reset") {
		t.Errorf("the outage's cause: %q", e)
	}
	if strings.Contains(logs.String(), "redis: ") && !strings.Contains(logs.String(), `"msg":"agentready serve: the Redis client reports"`) {
		t.Errorf("the Redis client's own lines are not agentready's:\n%s", logs.String())
	}
}
