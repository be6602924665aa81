// Command peer is the baseline of bench/serve/run: a plain
// httputil.ReverseProxy (NewSingleHostReverseProxy) with the transport and
// the server settings of agentready serve (cmd/agentready/serve.go,
// newTransport and newServer), on loopback; with -pool, also serve's pool
// of copy buffers, so that the ratio shows serve's own work alone.
package main

import (
	"flag"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:18191", "loopback address to listen on")
	upstream := flag.String("upstream", "http://127.0.0.1:18190", "the site to proxy")
	pool := flag.Bool("pool", false, "reuse the 32 KiB copy buffers as serve does (its BufferPool), instead of httputil's allocation per response")
	flag.Parse()
	host, _, err := net.SplitHostPort(*addr)
	if err != nil || !net.ParseIP(host).IsLoopback() {
		log.Fatalf("-addr %q: load runs stay on loopback", *addr)
	}
	up, err := url.Parse(*upstream)
	if err != nil {
		log.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(up)
	rp.Transport = &http.Transport{
		Proxy:                 nil,
		DialContext:           (&net.Dialer{Timeout: 10 * time.Second}).DialContext,
		ResponseHeaderTimeout: 30 * time.Second,
		IdleConnTimeout:       90 * time.Second,
		MaxIdleConnsPerHost:   64,
	}
	if *pool {
		rp.BufferPool = buffers{}
	}
	srv := &http.Server{Addr: *addr, Handler: rp, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 2 * time.Minute, IdleTimeout: 120 * time.Second}
	log.Fatal(srv.ListenAndServe())
}

// buffers is serve's pool of copy buffers (cmd/agentready/serve.go,
// copyBuffers).
type buffers struct{}

var bufferPool = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

func (buffers) Get() []byte  { return *bufferPool.Get().(*[]byte) }
func (buffers) Put(b []byte) { bufferPool.Put(&b) }
