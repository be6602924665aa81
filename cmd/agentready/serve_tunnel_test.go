package main

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/h2c"
	"golang.org/x/net/http2/hpack"
)

// serveFront starts serve's proxy of c (its log discarded) behind a
// loopback listener.
func serveFront(t testing.TB, c proxyConfig) *httptest.Server {
	t.Helper()
	c.log = slog.New(slog.DiscardHandler)
	p, err := newProxy(c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.close)
	front := httptest.NewServer(p.handler)
	t.Cleanup(front.Close)
	return front
}

// h2cUpstream is an upstream that upgrades to HTTP/2 over cleartext
// (h2c, RFC 7540 3.2) with golang.org/x/net/http2/h2c, recording every
// path it serves. It takes "Upgrade: h2c" as the lenient servers do,
// whether or not Connection names HTTP2-Settings and the field is sent
// (x/net's h2c asks for both, and an upgrade forwarded by
// httputil.ReverseProxy carries only "Connection: Upgrade"; Tomcat's
// Http11Processor goes by the Upgrade field's protocol alone).
type h2cUpstream struct {
	mu    sync.Mutex
	paths []string
}

func (u *h2cUpstream) served() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]string(nil), u.paths...)
}

func startH2CUpstream(t *testing.T) (*httptest.Server, *h2cUpstream) {
	t.Helper()
	u := &h2cUpstream{}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u.mu.Lock()
		u.paths = append(u.paths, r.Proto+" "+r.URL.Path)
		u.mu.Unlock()
		fmt.Fprintf(w, "upstream %s %s\n", r.Proto, r.URL.Path)
	})
	srv := httptest.NewServer(lenientH2C(h))
	t.Cleanup(srv.Close)
	return srv, u
}

// lenientH2C is h behind x/net's h2c handler, taking "Upgrade: h2c" as
// the lenient servers do (see h2cUpstream).
func lenientH2C(h http.Handler) http.Handler {
	upgrade := h2c.NewHandler(h, &http2.Server{})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.EqualFold(r.Header.Get("Upgrade"), "h2c") {
			r.Header.Set("Connection", "Upgrade, HTTP2-Settings")
			if r.Header.Get("HTTP2-Settings") == "" {
				r.Header.Set("HTTP2-Settings", h2cSettings())
			}
		}
		upgrade.ServeHTTP(w, r)
	})
}

// TestServeNoH2CTunnel: an agent's "Upgrade: h2c" never reaches the
// upstream, so no HTTP/2 connection opens past the decision: with it
// forwarded, an upstream answering 101 would route every later request on
// the connection (here a GET of a path the declaration closes) undecided.
// The request itself is decided and answered over HTTP/1.1; a WebSocket
// upgrade still goes through (TestServeWebSocket).
func TestServeNoH2CTunnel(t *testing.T) {
	up, rec := startH2CUpstream(t)
	front := serveFront(t, proxyConfig{configFile: upstreamSite, upstream: up.URL})
	host := strings.TrimPrefix(front.URL, "http://")

	for _, tc := range []struct{ name, fields string }{
		{"h2c with HTTP2-Settings", "Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: " + h2cSettings() + "\r\n"},
		{"h2c, HTTP2-Settings not in Connection", "Connection: Upgrade\r\nUpgrade: h2c\r\nHTTP2-Settings: " + h2cSettings() + "\r\n"},
		{"H2C in capitals", "Connection: upgrade, http2-settings\r\nUpgrade: H2C\r\nHTTP2-Settings: " + h2cSettings() + "\r\n"},
		{"h2c after websocket", "Connection: Upgrade, HTTP2-Settings\r\nUpgrade: websocket, h2c\r\nHTTP2-Settings: " + h2cSettings() + "\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", host)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			conn.SetDeadline(time.Now().Add(10 * time.Second))
			fmt.Fprintf(conn, "GET /products/tent HTTP/1.1\r\nHost: %s\r\nUser-Agent: GPTBot/1.2\r\n%s\r\n", host, tc.fields)
			br := bufio.NewReader(conn)
			res, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode == http.StatusSwitchingProtocols {
				// The tunnel is open: show what it lets through.
				smuggleH2(t, conn, br, host, "/admin/secret")
				t.Fatalf("101 Switching Protocols: the upgrade reached the upstream (served %q)", rec.served())
			}
			if res.StatusCode != http.StatusOK || !strings.Contains(string(body), "upstream HTTP/1.1 /products/tent") {
				t.Fatalf("%d %q, want the request decided and served over HTTP/1.1", res.StatusCode, body)
			}
			// The connection is still HTTP/1.1 and still decided: a closed
			// path sent next on it is refused by agentready.
			fmt.Fprintf(conn, "GET /admin/secret HTTP/1.1\r\nHost: %s\r\nUser-Agent: GPTBot/1.2\r\n\r\n", host)
			res, err = http.ReadResponse(br, nil)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != http.StatusForbidden {
				t.Fatalf("the next request on the connection: %d, want 403", res.StatusCode)
			}
		})
	}
	for _, p := range rec.served() {
		if strings.Contains(p, "/admin") || strings.HasPrefix(p, "HTTP/2") {
			t.Errorf("the upstream served %q", p)
		}
	}
}

// TestServeH2CTunnelShown: the attack TestServeNoH2CTunnel guards
// against works on the upstream used there: sent to it directly, an h2c
// upgrade is answered 101 and a request on the HTTP/2 connection that
// follows is served. So the test's upstream is one that would open the
// tunnel, and its refusal above is serve's.
func TestServeH2CTunnelShown(t *testing.T) {
	up, rec := startH2CUpstream(t)
	host := strings.TrimPrefix(up.URL, "http://")
	conn, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(conn, "GET /products/tent HTTP/1.1\r\nHost: %s\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: %s\r\n\r\n", host, h2cSettings())
	br := bufio.NewReader(conn)
	res, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("the h2c upstream answered %d to an upgrade, want 101", res.StatusCode)
	}
	smuggleH2(t, conn, br, host, "/admin/secret")
	served := rec.served()
	if len(served) == 0 || !strings.Contains(strings.Join(served, " "), "HTTP/2.0 /admin/secret") {
		t.Fatalf("the request on the upgraded connection was not served: %q", served)
	}
}

// h2cSettings is an HTTP2-Settings field value: an empty SETTINGS
// payload, base64url (RFC 7540 3.2.1).
func h2cSettings() string { return base64.RawURLEncoding.EncodeToString(nil) }

// smuggleH2 speaks HTTP/2 on an upgraded connection: the preface, a
// SETTINGS frame and a GET of path on stream 3 (stream 1 is the upgraded
// request's), then reads frames until stream 3's response ends or the
// connection does.
func smuggleH2(t *testing.T, conn net.Conn, br *bufio.Reader, host, path string) {
	t.Helper()
	if _, err := io.WriteString(conn, http2.ClientPreface); err != nil {
		t.Fatal(err)
	}
	fr := http2.NewFramer(conn, br)
	if err := fr.WriteSettings(); err != nil {
		t.Fatal(err)
	}
	var hb bytes.Buffer
	enc := hpack.NewEncoder(&hb)
	for _, f := range [][2]string{{":method", "GET"}, {":scheme", "http"}, {":authority", host}, {":path", path}, {"user-agent", "GPTBot/1.2"}} {
		enc.WriteField(hpack.HeaderField{Name: f[0], Value: f[1]})
	}
	if err := fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 3, BlockFragment: hb.Bytes(), EndStream: true, EndHeaders: true}); err != nil {
		t.Fatal(err)
	}
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			return
		}
		if f.Header().StreamID == 3 && f.Header().Flags.Has(http2.FlagDataEndStream) {
			return
		}
		if s, ok := f.(*http2.SettingsFrame); ok && !s.IsAck() {
			fr.WriteSettingsAck()
		}
	}
}

// TestServeWebSocket: a WebSocket upgrade (RFC 6455) on a path the
// declaration opens goes through serve, and bytes flow both ways on the
// upgraded connection; one on a closed path is refused before any
// upgrade.
func TestServeWebSocket(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
			http.Error(w, "not an upgrade", http.StatusBadRequest)
			return
		}
		conn, brw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		brw.WriteString("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n")
		brw.Flush()
		line, _ := brw.ReadString('\n')
		brw.WriteString("echo " + r.URL.Path + " " + line)
		brw.Flush()
	}))
	t.Cleanup(up.Close)
	front := serveFront(t, proxyConfig{configFile: upstreamSite, upstream: up.URL})
	host := strings.TrimPrefix(front.URL, "http://")
	upgrade := func(path string) (*http.Response, net.Conn, *bufio.Reader) {
		t.Helper()
		conn, err := net.Dial("tcp", host)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		conn.SetDeadline(time.Now().Add(10 * time.Second))
		fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: GPTBot/1.2\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"+
			"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n", path, host)
		br := bufio.NewReader(conn)
		res, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		return res, conn, br
	}
	res, conn, br := upgrade("/api/search")
	if res.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("WebSocket upgrade: %d, want 101", res.StatusCode)
	}
	io.WriteString(conn, "hello\n")
	if got, err := br.ReadString('\n'); err != nil || got != "echo /api/search hello\n" {
		t.Fatalf("on the upgraded connection: %q %v", got, err)
	}
	if res, _, _ := upgrade("/admin/secret"); res.StatusCode != http.StatusForbidden {
		t.Fatalf("WebSocket upgrade on a closed path: %d, want 403", res.StatusCode)
	}
}

// TestServeRefusesAnUnaskedSwitch: an upstream that switches protocols
// though no upgrade reached it (it read "Upgrade: h2c" some other way, or
// switches always) gets no tunnel: the proxy answers 502 and the
// connection to the client stays HTTP/1.1.
func TestServeRefusesAnUnaskedSwitch(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Connection", "Upgrade")
		w.Header().Set("Upgrade", "h2c")
		w.WriteHeader(http.StatusSwitchingProtocols)
	}))
	t.Cleanup(up.Close)
	front := serveFront(t, proxyConfig{configFile: upstreamSite, upstream: up.URL})
	req, _ := http.NewRequest("GET", front.URL+"/products/tent", nil)
	req.Header.Set("User-Agent", "GPTBot/1.2")
	req.Header.Set("Connection", "Upgrade, HTTP2-Settings")
	req.Header.Set("Upgrade", "h2c")
	req.Header.Set("HTTP2-Settings", h2cSettings())
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusBadGateway {
		t.Fatalf("an upstream's unasked 101: %d, want 502", res.StatusCode)
	}
}
