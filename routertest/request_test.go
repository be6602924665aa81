package routertest

// Building, parsing and serving one request of the router invariant.

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
)

// reqSpec is one request as the client writes it: the request line's
// method and target, extra header fields, and an optional form body.
type reqSpec struct {
	method, target string
	headers        [][2]string // in order; each name is sent once
	form           string      // an application/x-www-form-urlencoded body, "" for none
}

func (s reqSpec) String() string {
	str := s.method + " " + strconv.Quote(s.target)
	for _, h := range s.headers {
		str += fmt.Sprintf(" [%s: %q]", h[0], h[1])
	}
	if s.form != "" {
		str += fmt.Sprintf(" body %q", s.form)
	}
	return str
}

// profile is one kind of client.
type profile struct {
	name  string
	ua    string
	token bool     // send Authorization: Bearer x
	caps  []string // the capabilities its policy permits, nil for all
}

func (p profile) permits(capID string) bool {
	if p.caps == nil {
		return true
	}
	for _, c := range p.caps {
		if c == capID {
			return true
		}
	}
	return false
}

func rawRequest(s reqSpec, p profile) string {
	var b strings.Builder
	b.WriteString(s.method + " " + s.target + " HTTP/1.1\r\nHost: example.com\r\nUser-Agent: " + p.ua + "\r\n")
	if p.token {
		b.WriteString("Authorization: Bearer x\r\n")
	}
	for _, h := range s.headers {
		b.WriteString(h[0] + ": " + h[1] + "\r\n")
	}
	if s.form != "" {
		b.WriteString("Content-Type: application/x-www-form-urlencoded\r\nContent-Length: " + strconv.Itoa(len(s.form)) + "\r\n")
	}
	b.WriteString("\r\n")
	b.WriteString(s.form)
	return b.String()
}

// parseRequest parses the request exactly as the server does. ok is false
// when ReadRequest rejects it, or when the bytes changed the request beyond
// what was meant (a CR or LF smuggling a header, a value the parser
// trimmed): out of scope.
func parseRequest(s reqSpec, p profile) (*http.Request, bool) {
	req, err := http.ReadRequest(bufio.NewReader(strings.NewReader(rawRequest(s, p))))
	if err != nil || req.Method != s.method || req.RequestURI != s.target || req.Header.Get("User-Agent") != p.ua {
		return nil, false
	}
	fields := 1 // User-Agent (Host is req.Host)
	if p.token {
		fields++
		if req.Header.Get("Authorization") != "Bearer x" {
			return nil, false
		}
	}
	for _, h := range s.headers {
		fields++
		if v := req.Header.Values(h[0]); len(v) != 1 || v[0] != h[1] {
			return nil, false
		}
	}
	if s.form != "" {
		fields += 2
	}
	if len(req.Header) != fields {
		return nil, false
	}
	req.RemoteAddr = "192.0.2.1:4711" // as the server sets it
	return req, true
}

// outcome is what serving one request produced.
type outcome struct {
	status   int
	served   string // handler id, "" when no handler ran
	routed   string // the path the handler was routed on
	header   http.Header
	panicked any
}

func (o outcome) String() string {
	s := strconv.Itoa(o.status)
	if o.served != "" {
		s += " handler=" + o.served + " routed=" + strconv.Quote(o.routed)
	} else {
		s += " no handler"
	}
	if o.status >= 300 && o.status < 400 {
		s += " Location=" + o.header.Get("Location")
	}
	if o.panicked != nil {
		s += fmt.Sprintf(" PANIC=%v", o.panicked)
	}
	return s
}

// slot is where the handler that served a request writes its id and the
// path it was routed on.
type slot struct{ id, routed string }

type slotKey struct{}

// record is a route's handler: it says which it is and on which path the
// router routed it (chi's RoutePath when a middleware set it, else the
// URL's path).
func record(id string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		routed := r.URL.Path
		if rctx := chi.RouteContext(r.Context()); rctx != nil && rctx.RoutePath != "" {
			routed = rctx.RoutePath
		}
		if s, ok := r.Context().Value(slotKey{}).(*slot); ok {
			s.id, s.routed = id, routed
		}
		w.Header().Set("X-Served-By", id)
		w.Header().Set("X-Routed", routed)
		_, _ = io.WriteString(w, "served "+id)
	})
}

func serveOne(h http.Handler, req *http.Request) (o outcome) {
	s := &slot{}
	req = req.WithContext(context.WithValue(req.Context(), slotKey{}, s))
	rec := httptest.NewRecorder()
	defer func() {
		if v := recover(); v != nil {
			o = outcome{status: -1, served: s.id, routed: s.routed, header: rec.Header(), panicked: v}
		}
	}()
	h.ServeHTTP(rec, req)
	return outcome{status: rec.Code, served: s.id, routed: s.routed, header: rec.Header()}
}

// rawRoundTrip writes one request as bytes over a TCP connection and reads
// the response; the handler that served it is X-Served-By.
func rawRoundTrip(srv *httptest.Server, s reqSpec, p profile) (outcome, error) {
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		return outcome{}, err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
	raw := strings.Replace(rawRequest(s, p), "\r\n\r\n", "\r\nConnection: close\r\n\r\n", 1)
	if _, err := io.WriteString(conn, raw); err != nil {
		return outcome{}, err
	}
	res, err := http.ReadResponse(bufio.NewReader(conn), &http.Request{Method: s.method})
	if err != nil {
		return outcome{}, err
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, res.Body)
	return outcome{status: res.StatusCode, served: res.Header.Get("X-Served-By"), routed: res.Header.Get("X-Routed"), header: res.Header}, nil
}
