package main

import (
	"bytes"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestServeFlagsFromEnv: every flag is also read from AGENTREADY_ and its
// name in upper case, dashes as underscores; the command line wins; a
// value from the environment counts as given (over the file's setting);
// an empty variable is unset; the variables -tokens-env and
// -report-token-env name are no flag's; an unknown AGENTREADY_ variable
// is ignored, listed by name only; a value a flag refuses names the
// variable, never the value.
func TestServeFlagsFromEnv(t *testing.T) {
	if got := envName("trusted-proxies"); got != "AGENTREADY_TRUSTED_PROXIES" {
		t.Errorf("envName: %q", got)
	}
	t.Setenv("AGENTREADY_UPSTREAM", "http://127.0.0.1:9")
	t.Setenv("AGENTREADY_TRUSTED_PROXIES", "10.0.0.0/8, 192.0.2.1/32")
	t.Setenv("AGENTREADY_ADDR", "127.0.0.1:1")
	t.Setenv("AGENTREADY_ROBOTS", "true")
	t.Setenv("AGENTREADY_UPSTREAM_TIMEOUT", "3s")
	t.Setenv("AGENTREADY_NO_SUCH_FLAG", "s3cret-value")
	t.Setenv("AGENTREADY_REPORT_TOKEN", "a-token-named-by-a-flag")
	t.Setenv("AGENTREADY_TOKENS_ENV", "AGENTREADY_TOKENS")
	t.Setenv("AGENTREADY_TOKENS", "search=s3cret-token")
	t.Setenv("AGENTREADY_HOSTS", "") // empty: unset, the file's hosts kept
	var errOut bytes.Buffer
	f, code := parseServeFlags([]string{"-config", upstreamSite, "-addr", "127.0.0.1:2"}, &errOut)
	if code != -1 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if f.c.upstream != "http://127.0.0.1:9" || f.c.upstreamTimeout != 3*time.Second {
		t.Errorf("from the environment: -upstream %q, -upstream-timeout %v", f.c.upstream, f.c.upstreamTimeout)
	}
	if f.c.addr != "127.0.0.1:2" {
		t.Errorf("the command line's -addr does not win: %q", f.c.addr)
	}
	if !slices.Equal(f.c.ov.trusted, []string{"10.0.0.0/8", "192.0.2.1/32"}) || f.c.ov.robots == nil || !*f.c.ov.robots {
		t.Errorf("the environment's values are not over the file's: trusted %v, robots %v", f.c.ov.trusted, f.c.ov.robots)
	}
	// The variable -tokens-env names holds tokens: it is not -tokens'
	// file name.
	if f.c.credentials.tokensEnv != "AGENTREADY_TOKENS" || f.c.credentials.tokensFile != "" {
		t.Errorf("-tokens-env %q, -tokens %q", f.c.credentials.tokensEnv, f.c.credentials.tokensFile)
	}
	if f.c.ov.hosts != nil {
		t.Errorf("an empty AGENTREADY_HOSTS replaced the file's hosts with %v", f.c.ov.hosts)
	}
	if !slices.Contains(f.envUnknown, "AGENTREADY_NO_SUCH_FLAG") || slices.Contains(f.envUnknown, "AGENTREADY_REPORT_TOKEN") || slices.Contains(f.envUnknown, "AGENTREADY_TOKENS") {
		t.Errorf("unknown: %v", f.envUnknown)
	}

	t.Setenv("AGENTREADY_LOG_RATE", "many-s3cret")
	errOut.Reset()
	if _, code := parseServeFlags([]string{"-config", upstreamSite}, &errOut); code != 2 ||
		!strings.Contains(errOut.String(), "AGENTREADY_LOG_RATE: not a valid value for -log-rate") || strings.Contains(errOut.String(), "s3cret") {
		t.Errorf("a bad value: exit %d, %q", code, errOut.String())
	}
	// The command line's value wins over a bad one in the environment: it
	// is not read.
	if _, code := parseServeFlags([]string{"-config", upstreamSite, "-log-rate", "5"}, &errOut); code != -1 {
		t.Errorf("-log-rate given over a bad AGENTREADY_LOG_RATE: exit %d", code)
	}
}

// TestServeEnvProcess: serve started with its configuration in the
// environment only serves it; the unknown variable is named at debug
// level and no value of the environment is written, in the banner (the
// upstream's password is redacted) or the log.
func TestServeEnvProcess(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("upstream")) }))
	defer up.Close()
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	cmd := agentreadyProcess(t, "serve")
	cmd.Env = append(cmd.Env,
		"AGENTREADY_CONFIG="+upstreamSite,
		"AGENTREADY_UPSTREAM="+strings.Replace(up.URL, "http://", "http://user:pw-s3cret@", 1),
		"AGENTREADY_ADDR="+addr,
		"AGENTREADY_LOG_LEVEL=debug",
		"AGENTREADY_LOG_FORMAT=json",
		"AGENTREADY_TYPO_FLAG=value-s3cret")
	banner, errLines := startServe(t, cmd)
	var line string
	select {
	case line = <-banner:
	case <-time.After(30 * time.Second):
		t.Fatal("no banner")
	}
	if !strings.HasPrefix(line, "agentready serve: "+addr+" in front of ") || strings.Contains(line, "s3cret") {
		t.Errorf("banner %q", line)
	}
	res, err := http.Get("http://" + addr + "/products")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Errorf("serve configured from the environment: %d", res.StatusCode)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
	var lines []string
	for l := range errLines {
		lines = append(lines, l)
	}
	log := strings.Join(lines, "\n")
	i := strings.Index(log, `"level":"DEBUG","msg":"agentready serve: these AGENTREADY_ environment variables name no flag and are ignored","variables":[`)
	if i < 0 || !strings.Contains(strings.SplitN(log[i:], "\n", 2)[0], `"AGENTREADY_TYPO_FLAG"`) {
		t.Errorf("the unknown variable's line:\n%s", log)
	}
	if strings.Contains(log, "s3cret") {
		t.Errorf("a value of the environment is in the log:\n%s", log)
	}
}
