package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	livereport "github.com/agentready/agentready/report"
)

// benchSite is the declaration of the throughput benchmark: limits no run
// reaches, so that an agent is answered 200 with RateLimit headers.
const benchSite = "testdata/serve/bench.yaml"

const benchConns = 32 // concurrent keep-alive connections, as bench/run's wrk -c32

// BenchmarkServeThroughput measures requests through agentready serve and
// through a plain httputil.ReverseProxy with the same transport and the
// same server settings, in front of one upstream, all on loopback in this
// process, over benchConns keep-alive connections driven by a minimal
// HTTP/1.1 client (pre-built requests, responses read by Content-Length),
// so that the client's own cost dilutes the ratio as little as it can.
// ns/op is the wall time per request: its inverse is the throughput.
// With -count N the cases alternate (peer, agentready, peer, ...): the
// ratio agentready/peer is read in one run (bench/serve/run prints it).
//
//	go test ./cmd/agentready -run '^$' -bench ServeThroughput -count 6
func BenchmarkServeThroughput(b *testing.B) {
	upstream := benchServer(b, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"results":[{"id":"tent-2p","name":"Ridgeline 2-Person Tent"}]}`)
	}))
	up, _ := url.Parse("http://" + upstream)
	peer := httputil.NewSingleHostReverseProxy(up)
	peer.Transport = newTransport(30 * time.Second)
	p, err := newProxy(proxyConfig{configFile: benchSite, upstream: up.String(), upstreamTimeout: 30 * time.Second,
		log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	defer p.close()
	pooled := httputil.NewSingleHostReverseProxy(up)
	pooled.Transport, pooled.BufferPool = newTransport(30*time.Second), copyBuffers{}
	fronts := map[string]string{"reverseproxy": benchServer(b, peer), "reverseproxy-pooled": benchServer(b, pooled), "agentready": benchServer(b, p.handler)}
	for _, c := range []struct{ name, ua, header string }{
		{"browser", "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36", ""},
		{"agent", "claude/1.0 (+https://anthropic.com)", "Ratelimit"},
	} {
		for _, impl := range []string{"reverseproxy", "reverseproxy-pooled", "agentready"} {
			b.Run(fmt.Sprintf("case=%s/impl=%s", c.name, impl), func(b *testing.B) {
				req := []byte("GET /api/search?q=tent HTTP/1.1\r\nHost: outdoorsupply.example\r\nUser-Agent: " + c.ua +
					"\r\nAccept: */*\r\n\r\n")
				want := c.header
				if impl != "agentready" {
					want = ""
				}
				drive(b, fronts[impl], req, want)
			})
		}
	}
}

// benchServer serves h on a loopback port with serve's server settings
// and returns its address.
func benchServer(b *testing.B, h http.Handler) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := newServer(h)
	go srv.Serve(ln)
	b.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

// drive sends b.N requests over benchConns connections to addr and checks
// that each is answered 200 and, when header is not "", that the first
// response of each connection has that header.
func drive(b *testing.B, addr string, req []byte, header string) {
	conns := make([]net.Conn, benchConns)
	for i := range conns {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		conns[i] = c
	}
	var next atomic.Int64
	var failed atomic.Value
	var wg sync.WaitGroup
	b.ReportAllocs()
	cpu0 := benchCPUTime()
	b.ResetTimer()
	for _, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			br := bufio.NewReaderSize(c, 8<<10)
			first := true
			for next.Add(1) <= int64(b.N) {
				if _, err := c.Write(req); err != nil {
					failed.Store(err)
					return
				}
				if err := benchResponse(br, header, first); err != nil {
					failed.Store(err)
					return
				}
				first = false
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	// The process's CPU time per request (client and upstream included,
	// the same for both proxies): steadier than the wall time on a
	// shared machine.
	b.ReportMetric(float64(benchCPUTime()-cpu0)/float64(b.N), "cpu-ns/op")
	if err, _ := failed.Load().(error); err != nil {
		b.Fatal(err)
	}
}

// benchCPUTime is the user and system CPU time of the process so far.
func benchCPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchResponse reads one response: a 200 status line, the header fields
// (checking for header when check is set), and a body of Content-Length.
func benchResponse(br *bufio.Reader, header string, check bool) error {
	line, err := br.ReadSlice('\n')
	if err != nil {
		return err
	}
	if !bytes.HasPrefix(line, []byte("HTTP/1.1 200 ")) {
		return fmt.Errorf("status line %q", line)
	}
	n, found := -1, header == "" || !check
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return err
		}
		if len(line) <= 2 {
			break
		}
		k, v, _ := bytes.Cut(line, []byte(":"))
		if bytes.EqualFold(k, []byte("Content-Length")) {
			n, _ = strconv.Atoi(string(bytes.TrimSpace(v)))
		}
		if !found && bytes.EqualFold(k, []byte(header)) {
			found = true
		}
	}
	if n < 0 {
		return fmt.Errorf("no Content-Length")
	}
	if !found {
		return fmt.Errorf("no %s field", header)
	}
	_, err = br.Discard(n)
	return err
}

// cannedTransport answers every request with the upstream's response of
// BenchmarkServeThroughput, from memory.
type cannedTransport struct{}

func (cannedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	const body = `{"results":[{"id":"tent-2p","name":"Ridgeline 2-Person Tent"}]}`
	return &http.Response{StatusCode: 200, ProtoMajor: 1, ProtoMinor: 1, Request: r, ContentLength: int64(len(body)),
		Header: http.Header{"Content-Type": {"application/json"}, "Content-Length": {strconv.Itoa(len(body))}},
		Body:   io.NopCloser(strings.NewReader(body))}, nil
}

// discardWriter is a ResponseWriter that keeps nothing but a fresh header
// map per request, as net/http gives each response.
type discardWriter struct{ h http.Header }

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *discardWriter) WriteHeader(int)             {}

// BenchmarkServeHandler is the proxy's own work per request, without the
// network: agentready serve's handler and a plain
// httputil.ReverseProxy's, each with an upstream answering from memory.
// The difference in ns/op and allocs/op to reverseproxy-pooled (the
// ReverseProxy with serve's pool of copy buffers) is what serve's own work
// adds; to reverseproxy, what a plain one costs more or less.
func BenchmarkServeHandler(b *testing.B) {
	up, _ := url.Parse("http://127.0.0.1:1")
	peer := httputil.NewSingleHostReverseProxy(up)
	peer.Transport = cannedTransport{}
	// The same with serve's pooled copy buffers: what serve's own work
	// costs beside a ReverseProxy set up alike.
	pooled := httputil.NewSingleHostReverseProxy(up)
	pooled.Transport, pooled.BufferPool = cannedTransport{}, copyBuffers{}
	p, err := newProxy(proxyConfig{configFile: benchSite, upstream: up.String(), log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	defer p.close()
	p.transport(cannedTransport{})
	// The same with -report: what the report's counting (the decision, the
	// upstream's answer) adds.
	withReport, err := newProxy(proxyConfig{configFile: benchSite, upstream: up.String(), log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		report: livereport.New(livereport.Options{})})
	if err != nil {
		b.Fatal(err)
	}
	defer withReport.close()
	withReport.transport(cannedTransport{})
	for _, c := range []struct{ name, ua string }{
		{"browser", "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"},
		{"agent", "claude/1.0 (+https://anthropic.com)"},
	} {
		for _, impl := range []struct {
			name string
			h    http.Handler
		}{{"reverseproxy", peer}, {"reverseproxy-pooled", pooled}, {"agentready", p.handler}, {"agentready-report", withReport.handler}} {
			b.Run(fmt.Sprintf("case=%s/impl=%s", c.name, impl.name), func(b *testing.B) {
				r := httptest.NewRequest("GET", "http://outdoorsupply.example/api/search?q=tent", nil)
				r.RemoteAddr = "127.0.0.1:50000"
				r.Header.Set("User-Agent", c.ua)
				r.Header.Set("Accept", "*/*")
				b.ReportAllocs()
				for b.Loop() {
					impl.h.ServeHTTP(&discardWriter{h: http.Header{}}, r)
				}
			})
		}
	}
}
