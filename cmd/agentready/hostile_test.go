package main

import (
	"bytes"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/httpsyntax"
	"github.com/agentready/agentready/internal/publish"
	"github.com/agentready/agentready/internal/testing/fixtures"
)

// TestServeTrustAllProxiesWarns: with trust_all_proxies (the file's or
// -trust-all-proxies), proxies covering the internet are taken, and serve
// warns of them at every start; -trusted-proxies as broad without it is
// refused, naming the flag that says it is meant.
func TestServeTrustAllProxiesWarns(t *testing.T) {
	const msg = "agentready serve: trust_all_proxies: " + trustAllMeans
	for _, tc := range []struct {
		file string
		ov   *overrides
		warn bool
	}{
		{file: "testdata/verdict/good-trust-all-proxies.yaml", warn: true},
		{file: "testdata/verdict/good-proxies-private.yaml"},
		{file: "testdata/verdict/good-minimal.yaml", ov: &overrides{trusted: []string{"0.0.0.0/0"}, trustAll: new(true)}, warn: true},
	} {
		for range 2 { // every start
			var logs syncBuffer
			l, _ := newLogger(&logs, "json")
			p, err := newProxy(proxyConfig{configFile: tc.file, upstream: "http://127.0.0.1:9", log: l, ov: tc.ov})
			if err != nil {
				t.Fatalf("%s: %v", tc.file, err)
			}
			p.close()
			got := logRecords(t, &logs, msg)
			if tc.warn && (len(got) != 1 || got[0]["level"] != "WARN" || !strings.Contains(got[0]["cover"].(string), "globally routable")) {
				t.Errorf("%s: the warning: %v\n%s", tc.file, got, logs.String())
			}
			if !tc.warn && len(got) != 0 {
				t.Errorf("%s: warned: %v", tc.file, got)
			}
		}
	}
	for _, ov := range []overrides{
		{trusted: []string{"0.0.0.0/1", "128.0.0.0/1"}},
		{trusted: []string{"::/0"}, trustAll: new(false)},
	} {
		_, err := newProxy(proxyConfig{configFile: "testdata/verdict/good-minimal.yaml", upstream: "http://127.0.0.1:9", log: discard, ov: &ov})
		if err == nil || !strings.Contains(err.Error(), "-trusted-proxies: the proxies cover") || !strings.Contains(err.Error(), "give -trust-all-proxies") {
			t.Errorf("-trusted-proxies %v: %v", ov.trusted, err)
		}
	}
	// The file's trust_all_proxies, overridden by -trust-all-proxies=false.
	_, err := newProxy(proxyConfig{configFile: "testdata/verdict/good-trust-all-proxies.yaml", upstream: "http://127.0.0.1:9", log: discard, ov: &overrides{trustAll: new(false)}})
	if err == nil || !strings.Contains(err.Error(), "good-trust-all-proxies.yaml:11: serve.trusted_proxies: the proxies cover") {
		t.Errorf("-trust-all-proxies=false: %v", err)
	}
}

// TestServeTrustAllProxiesFlag: the flag reaches prepare through serve's
// command line (a refused -trusted-proxies stops serve at once).
func TestServeTrustAllProxiesFlag(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"serve", "-config", "testdata/verdict/good-minimal.yaml", "-upstream", "http://127.0.0.1:9", "-addr", "127.0.0.1:0",
		"-trusted-proxies", "0.0.0.0/0"}, &out, &errb)
	if code != 1 || !strings.Contains(errb.String(), "-trusted-proxies: the proxies cover 4,256,038,912 globally routable IPv4 addresses") {
		t.Errorf("exit %d:\n%s", code, errb.String())
	}
}

// TestServeRedisRedacted: a -redis password is in no message, whether
// the URL parses or not.
func TestServeRedisRedacted(t *testing.T) {
	const secret = "s3cretpw"
	for _, addr := range []string{
		"redis://user:" + secret + "@127.0.0.1:notaport",
		"rediss://user:" + secret + "@[::1:6379",
		"redis://user:" + secret + "@127.0.0.1:6379/x",
		"redis://user:" + secret + "@127.0.0.1:6379/0?dial_timeout=forever",
		"redis://user:12/" + secret + "@127.0.0.1:6379",
		"redis://:" + secret + "%zz@127.0.0.1:6379",
		"user:" + secret + "@127.0.0.1:6379",
	} {
		var out, errb bytes.Buffer
		code := run([]string{"serve", "-config", "testdata/verdict/good-minimal.yaml", "-upstream", "http://127.0.0.1:9", "-addr", "127.0.0.1:0",
			"-redis", addr}, &out, &errb)
		if code == 0 || !strings.Contains(errb.String(), "-redis") {
			t.Errorf("-redis %q: exit %d\n%s", addr, code, errb.String())
		}
		if strings.Contains(errb.String()+out.String(), secret) {
			t.Errorf("-redis %q: the password is in the output:\n%s", addr, errb.String())
		}
	}
	// Well-formed, with nothing answering: serve starts and says so.
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	closed := ln.Addr().String()
	ln.Close()
	for _, addr := range []string{"redis://user:" + secret + "@" + closed + "/0", "rediss://:" + secret + "@" + closed} {
		var logs syncBuffer
		l, _ := newLogger(&logs, "json")
		p, err := newProxy(proxyConfig{configFile: "testdata/verdict/good-minimal.yaml", upstream: "http://127.0.0.1:9", redisAddr: addr, log: l})
		if err != nil {
			t.Fatalf("-redis %q: %v", addr, err)
		}
		serveGet(p.handler, "/api/search?q=x", gptBot)
		p.close()
		if strings.Contains(logs.String(), secret) || !strings.Contains(logs.String(), "Redis") {
			t.Errorf("-redis %q: the logs:\n%s", addr, logs.String())
		}
	}
	for s, want := range map[string]string{
		"redis://user:" + secret + "@127.0.0.1:notaport": "redis://user:xxxxx@127.0.0.1:notaport",
		"redis://user:" + secret + "@127.0.0.1:6379/0":   "redis://user:xxxxx@127.0.0.1:6379/0",
		"redis://127.0.0.1:6379":                         "redis://127.0.0.1:6379",
		"user:" + secret + "@h:1":                        "user:xxxxx@h:1",
		"127.0.0.1:6379":                                 "127.0.0.1:6379",
	} {
		if got := redacted(s); got != want {
			t.Errorf("redacted(%q) = %q, want %q", s, got, want)
		}
	}
}

// TestAPIKeyHeaderServeRewrites: every field serve sets or removes on the
// way to the upstream (clientWritten, the address and Host fields
// forward and Rewrite set, any X-Forwarded-* and any name clientWrote
// drops) is an api-key header config refuses: httpsyntax's list is
// serve's.
func TestAPIKeyHeaderServeRewrites(t *testing.T) {
	names := append([]string{"X-Real-Ip", "X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto", "X-Forwarded-Ssl", "X_Real_IP", "X.Forwarded.For"}, clientWritten...)
	for _, n := range names {
		if !clientWrote(http.CanonicalHeaderKey(n)) && !clientWrote(n) && !strings.EqualFold(n, "X-Real-Ip") && !strings.EqualFold(n, "X-Forwarded-For") {
			t.Errorf("%s: serve does not drop it: the list is out of date", n)
		}
		if httpsyntax.Rewritten(n) == "" {
			t.Errorf("%s: serve rewrites it, config takes it as an api-key header", n)
		}
		s := fixtures.OutdoorSupply()
		s.Capabilities[0].Auth = config.Auth{Type: config.AuthAPIKey, Header: n}
		if err := publish.Validate(&s, config.Formats{}); err == nil || !strings.Contains(err.Error(), "Capabilities[0].Auth.Header") {
			t.Errorf("%s: %v", n, err)
		}
	}
	for _, n := range httpsyntax.ForwardingFields {
		if !clientWrote(n) && n != "X-Real-Ip" && n != "X-Forwarded-For" {
			t.Errorf("%s: refused as an api-key header, but serve forwards it", n)
		}
	}
	// A field serve forwards as sent is an api-key header config takes.
	if clientWrote("X-Api-Key") || httpsyntax.Rewritten("X-Api-Key") != "" {
		t.Error("X-Api-Key")
	}
}

// TestLintRateNote: a limit above 10,000 a second per client is noted,
// never refused; one at it is not noted.
func TestLintRateNote(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "site.yaml")
	body := "name: Shop\nurl: https://shop.example\ndescription: Gear\nimplicit_access: ai-agents\ncapabilities:\n  - id: search\n    description: Search\n    endpoint: https://shop.example/api/search\n    rate_limit: %s\n"
	for rate, noted := range map[string]bool{"10000/second": false, "600000/minute": false, "600001/minute": true, "10001/s": true, "36000001/hour": true} {
		if err := os.WriteFile(f, []byte(strings.Replace(body, "%s", rate, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if code := run([]string{"lint", f}, &out, &out); code != 0 {
			t.Fatalf("%s: exit %d\n%s", rate, code, out.String())
		}
		if got := strings.Contains(out.String(), "a limit in name only"); got != noted {
			t.Errorf("%s: noted %v:\n%s", rate, got, out.String())
		}
	}
}
