package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// testCertificate writes a self-signed certificate for 127.0.0.1 and
// shop.example with serial to dir/cert.pem and dir/key.pem, and returns
// it parsed.
func testCertificate(t *testing.T, dir string, serial int64) *x509.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: "agentready test"},
		NotBefore: time.Unix(0, 0), NotAfter: time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC), // valid whatever the date
		DNSNames: []string{"shop.example"}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true, IsCA: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, _ := x509.MarshalECPrivateKey(key)
	writeAside(t, filepath.Join(dir, "cert.pem"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
	writeAside(t, filepath.Join(dir, "key.pem"), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}))
	c, _ := x509.ParseCertificate(der)
	return c
}

func writeAside(t *testing.T, name string, b []byte) {
	t.Helper()
	// Written aside and renamed, as a certificate manager does: serve
	// never reads half a file.
	if err := os.WriteFile(name+".tmp", b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(name+".tmp", name); err != nil {
		t.Fatal(err)
	}
}

// servedSerial is the serial of the certificate addr presents.
func servedSerial(t *testing.T, addr string) int64 {
	t.Helper()
	c, err := tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return c.ConnectionState().PeerCertificates[0].SerialNumber.Int64()
}

// TestServeTLSReload: serve with -tls-cert and -tls-key (here from the
// environment) serves TLS; a SIGHUP after the files changed serves the
// new certificate; a SIGHUP with a broken key keeps the one serving and
// logs why.
func TestServeTLSReload(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "upstream") }))
	defer up.Close()
	dir := t.TempDir()
	testCertificate(t, dir, 1)
	cmd := agentreadyProcess(t, "serve", "-config", upstreamSite, "-upstream", up.URL, "-addr", "127.0.0.1:0")
	cmd.Env = append(cmd.Env, "AGENTREADY_TLS_CERT="+filepath.Join(dir, "cert.pem"), "AGENTREADY_TLS_KEY="+filepath.Join(dir, "key.pem"))
	banner, errLines := startServe(t, cmd)
	var line string
	select {
	case line = <-banner:
	case <-time.After(30 * time.Second):
		t.Fatalf("no banner: %v", drainLines(errLines))
	}
	if !strings.Contains(line, ", TLS") {
		t.Errorf("banner %q", line)
	}
	addr := strings.Fields(strings.TrimPrefix(line, "agentready serve: "))[0]
	if got := servedSerial(t, addr); got != 1 {
		t.Fatalf("serial %d at start", got)
	}
	awaitLine := func(want string) {
		t.Helper()
		deadline := time.After(10 * time.Second)
		for {
			select {
			case l, ok := <-errLines:
				if !ok {
					t.Fatalf("stderr closed before %q", want)
				}
				if strings.Contains(l, want) {
					return
				}
			case <-deadline:
				t.Fatalf("no line %q", want)
			}
		}
	}
	testCertificate(t, dir, 2)
	cmd.Process.Signal(syscall.SIGHUP)
	awaitLine("TLS certificate reloaded")
	if got := servedSerial(t, addr); got != 2 {
		t.Errorf("serial %d after the SIGHUP, want 2", got)
	}
	writeAside(t, filepath.Join(dir, "key.pem"), []byte("not a key"))
	cmd.Process.Signal(syscall.SIGHUP)
	awaitLine("the TLS certificate was not reloaded; the running one keeps serving")
	if got := servedSerial(t, addr); got != 2 {
		t.Errorf("serial %d after a failed reload, want 2 kept", got)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Errorf("serve ended with %v", err)
	}
}

// TestServeTLSFlags: -tls-cert without -tls-key, or files that are no
// certificate, stop serve before it listens.
func TestServeTLSFlags(t *testing.T) {
	dir := t.TempDir()
	testCertificate(t, dir, 1)
	for _, f := range []tlsFiles{{cert: filepath.Join(dir, "cert.pem")}, {key: filepath.Join(dir, "key.pem")},
		{cert: filepath.Join(dir, "key.pem"), key: filepath.Join(dir, "cert.pem")}, {cert: filepath.Join(dir, "none"), key: filepath.Join(dir, "key.pem")}} {
		if c, err := loadCertificate(f); err == nil || c != nil {
			t.Errorf("%+v: %v", f, err)
		}
	}
}

// TestServeHTTP2Rules: over TLS serve speaks HTTP/2, and an HTTP/2
// request meets the Host rule (:authority outside the declared hosts:
// 421) and the canonical-target rule (a :path with dot segments) exactly
// as the same request over HTTP/1.1 (status, body and type), neither
// reaching the upstream; an allowed one reaches it over both.
func TestServeHTTP2Rules(t *testing.T) {
	var reached atomic.Int32
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
		io.WriteString(w, "upstream")
	}))
	defer up.Close()
	dir := t.TempDir()
	leaf := testCertificate(t, dir, 1)
	cert, err := loadCertificate(tlsFiles{filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")})
	if err != nil {
		t.Fatal(err)
	}
	c := proxyConfig{configFile: upstreamSite, upstream: up.URL, addr: "127.0.0.1:0"}
	var logs syncBuffer
	c.log, _ = newLogger(&logs, "json")
	p, err := newProxy(c)
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	s, err := startServers(c, p, nil, cert)
	if err != nil {
		t.Fatal(err)
	}
	defer s.shutdown()
	roots := x509.NewCertPool()
	roots.AddCert(leaf)
	h2 := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}, ForceAttemptHTTP2: true}}
	h1 := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots},
		TLSNextProto: map[string]func(string, *tls.Conn) http.RoundTripper{}}}
	type answer struct {
		proto      int
		code       int
		body, kind string
	}
	get := func(cl *http.Client, host, path string) answer {
		t.Helper()
		req, _ := http.NewRequest("GET", "https://"+s.addr.String()+path, nil)
		req.Host = host
		req.Header.Set("User-Agent", gptBot)
		res, err := cl.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return answer{res.ProtoMajor, res.StatusCode, string(b), res.Header.Get("Content-Type")}
	}
	for _, tc := range []struct {
		host, path string
		code       int
	}{
		{"shop.example", "/products", 200},
		{"elsewhere.example", "/products", 421},
		{"shop.example", "/admin/../products", 400},
		{"shop.example", "/products/%2e%2e/admin", 400},
	} {
		before := reached.Load()
		a1, a2 := get(h1, tc.host, tc.path), get(h2, tc.host, tc.path)
		if a1.proto != 1 || a2.proto != 2 {
			t.Fatalf("protocols %d and %d", a1.proto, a2.proto)
		}
		a1.proto, a2.proto = 0, 0
		if a1 != a2 {
			t.Errorf("%s %s: HTTP/1.1 %+v, HTTP/2 %+v", tc.host, tc.path, a1, a2)
		}
		want := int32(0) // a refusal never reaches the upstream
		if tc.code == 200 {
			want = 2
		}
		if n := reached.Load() - before; a2.code != tc.code || n != want {
			t.Errorf("%s %s: %d, reached the upstream %d times; want %d, %d times", tc.host, tc.path, a2.code, n, tc.code, want)
		}
		t.Logf("%s %s: %d over both", tc.host, tc.path, a2.code)
	}
}
