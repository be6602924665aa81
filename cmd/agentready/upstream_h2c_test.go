package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// startH2CApp starts the Go upstream of the upstream tests in the test's
// process: the Flask app's routes (testdata/flask/app.py) on
// http.ServeMux with its defaults (it answers a path with a dot segment
// or a repeated '/' with a redirect to the clean one), behind x/net's h2c
// handler, so that an "Upgrade: h2c" turns the connection into HTTP/2 and
// every later request on it reaches the mux. As startH2CUpstream's, it
// takes the upgrade as lenient servers do, whether or not Connection
// names HTTP2-Settings and the field is sent. Every route answers with
// X-Handler: "<handler> <method>" and the request's headers as JSON; the
// paths of docs/enforcement.md's canonical tables that no route takes
// (echoPaths) run the echo handler, whose JSON adds the request-target as
// the app received it, r.RequestURI. It returns the app's host:port and
// stops when t ends.
func startH2CApp(t testing.TB) string {
	answer := func(name string, status int) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			headers := map[string]string{}
			for k, v := range r.Header {
				headers[k] = strings.Join(v, ", ")
			}
			echo := map[string]any{"handler": name, "method": r.Method, "headers": headers}
			if name == "echo" {
				echo["target"] = r.RequestURI
			}
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("X-Handler", name+" "+r.Method)
			w.WriteHeader(status)
			json.NewEncoder(w).Encode(echo)
		}
	}
	mux := http.NewServeMux()
	mux.Handle("/admin", answer("admin", http.StatusOK))
	mux.Handle("/admin/", answer("admin", http.StatusOK))
	mux.Handle("GET /api/search", answer("product-search", http.StatusOK))
	mux.Handle("GET /api/orders/{order}", answer("order-get", http.StatusOK))
	mux.Handle("POST /api/orders/{order}", answer("order-update", http.StatusOK))
	mux.Handle("DELETE /api/orders/{order}", answer("order-cancel", http.StatusOK))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if echoPaths.MatchString(r.URL.Path) {
			answer("echo", http.StatusOK)(w, r)
			return
		}
		if strings.HasSuffix(r.URL.Path, ".css") && (r.Method == "GET" || r.Method == "HEAD") {
			answer("css", http.StatusOK)(w, r)
			return
		}
		answer("none", http.StatusNotFound)(w, r)
	})
	srv := httptest.NewServer(lenientH2C(mux))
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String()
}

// h2cUpgrade is the header of a request that asks to upgrade its
// connection to HTTP/2 (RFC 7540 3.2), for a wireRequest with a smuggle.
func h2cUpgrade() [][2]string {
	return [][2]string{{"Connection", "Upgrade, HTTP2-Settings"}, {"Upgrade", "h2c"}, {"HTTP2-Settings", h2cSettings()}}
}

// smuggleH2C speaks HTTP/2 on a connection upgraded by a 101: the
// preface, a SETTINGS frame and a GET of path on stream 3 (stream 1 is
// the upgraded request's) with the end-to-end fields of header, and
// returns stream 3's response and body.
func smuggleH2C(conn net.Conn, br *bufio.Reader, path string, header [][2]string) (*http.Response, []byte, error) {
	if _, err := io.WriteString(conn, http2.ClientPreface); err != nil {
		return nil, nil, err
	}
	fr := http2.NewFramer(conn, br)
	fr.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
	if err := fr.WriteSettings(); err != nil {
		return nil, nil, err
	}
	fields := [][2]string{{":method", "GET"}, {":scheme", "http"}, {":authority", "shop.example"}, {":path", path}}
	for _, h := range header {
		switch strings.ToLower(h[0]) {
		case "connection", "upgrade", "http2-settings", "host", "content-length", "transfer-encoding":
		default:
			fields = append(fields, [2]string{strings.ToLower(h[0]), h[1]})
		}
	}
	var hb strings.Builder
	enc := hpack.NewEncoder(&hb)
	for _, f := range fields {
		enc.WriteField(hpack.HeaderField{Name: f[0], Value: f[1]})
	}
	if err := fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 3, BlockFragment: []byte(hb.String()), EndStream: true, EndHeaders: true}); err != nil {
		return nil, nil, err
	}
	res := &http.Response{Header: http.Header{}}
	var body []byte
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			return nil, nil, fmt.Errorf("before stream 3's response ended: %v", err)
		}
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if !f.IsAck() {
				fr.WriteSettingsAck()
			}
		case *http2.GoAwayFrame:
			return nil, nil, fmt.Errorf("GOAWAY %v", f.ErrCode)
		case *http2.RSTStreamFrame:
			if f.StreamID == 3 {
				return nil, nil, fmt.Errorf("stream 3 reset: %v", f.ErrCode)
			}
		case *http2.MetaHeadersFrame:
			if f.StreamID != 3 {
				continue
			}
			for _, hf := range f.Fields {
				if hf.Name == ":status" {
					res.StatusCode, _ = strconv.Atoi(hf.Value)
				} else if !strings.HasPrefix(hf.Name, ":") {
					res.Header.Add(hf.Name, hf.Value)
				}
			}
			if f.StreamEnded() {
				return res, body, nil
			}
		case *http2.DataFrame:
			if f.StreamID != 3 {
				continue
			}
			body = append(body, f.Data()...)
			if f.StreamEnded() {
				return res, body, nil
			}
		}
	}
}
