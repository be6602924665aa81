// Package mcplist filters the tools of an MCP server's answer to a
// tools/list request, so that each agent sees only the tools it may call
// (docs/mcp.md). MCP allows it: the set tools/list returns "MAY vary by
// the authorization presented on the request" (MCP 2026-07-28, Server,
// Tools, Capabilities).
//
// A Writer stands in for the server's http.ResponseWriter on one POST
// whose JSON-RPC request is a tools/list (or, for no one id, on a batch
// or a GET stream: New). It reads both answers of MCP's
// Streamable HTTP transport (MCP 2025-11-25 and 2026-07-28, Transports):
// an application/json body, one JSON-RPC response, buffered whole; and a
// text/event-stream, passed on event by event as the server flushes it,
// where the response to the request's id is filtered and every other
// message (notifications/tools/list_changed among them) passes as sent.
// Each page of a paginated list is filtered on its own, nextCursor and
// every other member of the result kept as the server sent them.
//
// It fails closed: an answer it cannot read one way only, or larger than
// its limit, is replaced with a JSON-RPC error for the request's id
// (-32603), never passed on with a tool the caller may not call.
package mcplist

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"

	"github.com/agentready/agentready/internal/mcprpc"
)

// DefaultLimit is the limit of New's limit 0: the bytes of one JSON body
// or one event buffered, enough for a page of the Go SDK's default 1000
// tools (ServerOptions.PageSize) at 4 KiB each.
const DefaultLimit = 4 << 20

// Writer is the http.ResponseWriter a tools/list request is served
// through. Call Finish after the handler returns. Like any
// ResponseWriter, it is not for concurrent use.
type Writer struct {
	w     http.ResponseWriter
	id    json.RawMessage
	allow func(string) bool
	limit int

	mode   mode
	status int // of a buffered JSON body
	buf    []byte
	// over: the JSON body passed the limit; it is not kept.
	over bool
	// line and scan: where eventEnd stands in buf.
	line, scan int
	// started: an event has been read (a byte order mark may begin the
	// first); answered: the response to id, or an error in its place, has
	// been passed on.
	started, answered bool
	// failed: why the answer is refused, when Content-Encoding hides it.
	failed error
}

type mode int

const (
	modeUndecided mode = iota
	modePass           // not an answer agentready reads: passed as sent
	modeJSON           // one JSON-RPC response, buffered whole
	modeSSE            // an event stream, event by event
	modeDiscard        // refused: nothing more is passed on
	modeDone           // Finish has run
)

// New returns the Writer of the request whose JSON-RPC id is id (as the
// request sent it: mcprpc.Message.ID) on w. allow reports whether the
// caller may call the tool named; it is called once per tool of the
// answer. limit bounds the bytes buffered, one JSON body or one event
// (0: DefaultLimit).
//
// A nil id is an answer to no one known request: a GET stream, which a
// server resuming a POST's stream (Last-Event-ID, MCP 2025-11-25,
// Transports, "Resumability and Redelivery") may replay a tools/list
// answer on, or the answer to a batch (MCP 2025-03-26), an array of
// responses or an event each. Every response in it has its result's tools
// filtered, and on a stream an event that cannot be read ends what is
// passed on: Write returns ErrRefused, since there is no id to answer
// with an error (a JSON body is replaced with an error for the id null).
func New(w http.ResponseWriter, id json.RawMessage, allow func(toolName string) bool, limit int) *Writer {
	if limit <= 0 {
		limit = DefaultLimit
	}
	return &Writer{w: w, id: id, allow: allow, limit: limit}
}

// Header returns the header map of the response.
func (w *Writer) Header() http.Header { return w.w.Header() }

// WriteHeader decides, by the Content-Type the handler set, how the body
// is read.
func (w *Writer) WriteHeader(code int) {
	if w.mode != modeUndecided {
		if w.mode == modePass || w.mode == modeSSE {
			w.w.WriteHeader(code) // net/http reports the superfluous call
		}
		return
	}
	if code >= 100 && code < 200 && code != http.StatusSwitchingProtocols {
		w.w.WriteHeader(code) // informational: the status is still to come
		return
	}
	h := w.w.Header()
	canonical(h)
	w.mode = bodyMode(h)
	if w.mode != modePass {
		for _, ce := range h.Values("Content-Encoding") {
			if strings.TrimSpace(ce) != "" && !strings.EqualFold(strings.TrimSpace(ce), "identity") {
				// A compressed answer cannot be read here; the enforcer
				// asks for none (it removes Accept-Encoding from the
				// request).
				w.failed = fmt.Errorf("the answer is sent with Content-Encoding %q", ce)
				h.Del("Content-Encoding")
				break
			}
		}
	}
	switch w.mode {
	case modeJSON:
		w.status = code
		return
	case modeSSE:
		h.Del("Content-Length") // the events may change
		w.w.WriteHeader(code)
		if w.failed != nil {
			_ = w.refuseStream(w.failed)
		}
		return
	}
	w.w.WriteHeader(code)
}

// canonical moves the fields a handler set under a key not in canonical
// form (h["content-type"]) to their canonical key: net/http sends them as
// they are, and clients read them by name whatever the case (RFC 9110
// 5.1), so Content-Type and Content-Encoding are read as every client
// reads them.
func canonical(h http.Header) {
	for k, v := range h {
		if ck := http.CanonicalHeaderKey(k); ck != k {
			h[ck] = append(h[ck], v...)
			delete(h, k)
		}
	}
}

// bodyMode reads the Content-Type more loosely than any client: the Go
// SDK's client and the TypeScript SDK's (1.32.2) compare the media type,
// a lenient client may look for it anywhere in the field; here a media
// type anywhere in any Content-Type field decides, so that no answer a
// client may read as JSON or as an event stream passes unread.
func bodyMode(h http.Header) mode {
	ct := strings.ToLower(strings.Join(h.Values("Content-Type"), ", "))
	switch {
	case strings.Contains(ct, "text/event-stream"):
		return modeSSE
	case strings.Contains(ct, "application/json"):
		return modeJSON
	}
	return modePass
}

// Write passes on, buffers or filters the handler's bytes.
func (w *Writer) Write(p []byte) (int, error) {
	if w.mode == modeUndecided {
		w.WriteHeader(http.StatusOK)
	}
	switch w.mode {
	case modePass:
		return w.w.Write(p)
	case modeJSON:
		if w.over || len(w.buf)+len(p) > w.limit {
			w.over, w.buf = true, nil
		} else {
			w.buf = append(w.buf, p...)
		}
	case modeSSE:
		if err := w.writeSSE(p); err != nil {
			return 0, err
		}
	case modeDiscard:
		if w.id == nil {
			return 0, ErrRefused
		}
	case modeDone:
		return 0, errFinished
	}
	return len(p), nil
}

// Flush passes the events written so far on to the client. A JSON body
// is passed on whole by Finish.
func (w *Writer) Flush() {
	if w.mode == modeUndecided {
		w.WriteHeader(http.StatusOK)
	}
	if w.mode == modePass || w.mode == modeSSE {
		w.flush()
	}
}

// ErrRefused is what Write returns once a stream of no known request
// (New's nil id) has carried an event it cannot read: nothing more of the
// stream is passed on.
var ErrRefused = errors.New("mcplist: the stream carried an event that cannot be filtered; it is not passed on")

// errFinished is a write after Finish: the handler wrote after it
// returned.
var errFinished = errors.New("mcplist: a write after Finish")

// pass writes b to the client.
func (w *Writer) pass(b []byte) error {
	_, err := w.w.Write(b)
	return err
}

func (w *Writer) flush() {
	_ = http.NewResponseController(w.w).Flush()
}

// Unwrap gives http.ResponseController the underlying writer, for
// deadlines and full duplex; Flush and Hijack stop at this writer.
func (w *Writer) Unwrap() http.ResponseWriter { return w.w }

// Hijack refuses: over a hijacked connection the handler would answer
// what the filter cannot see. http.ResponseController.Hijack finds this
// method before Unwrap, so it refuses too.
func (w *Writer) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return nil, nil, fmt.Errorf("%w: a filtered tools/list answer cannot take over its connection", http.ErrNotSupported)
}

// Finish passes on what the handler's answer still holds: the JSON body,
// filtered, with its Content-Length; the last event of a stream that the
// end of the body ends. It returns the error of the write to the client.
func (w *Writer) Finish() error {
	var err error
	switch w.mode {
	case modeJSON:
		err = w.finishJSON()
	case modeSSE:
		err = w.finishSSE()
	}
	w.mode = modeDone
	return err
}

// finishJSON writes the JSON body: the response to the request with its
// tools filtered, an error response or a message that is no response as
// sent, and anything else (a batch, a response to another id, a body past
// the limit or unreadable) replaced with a JSON-RPC error for the
// request's id.
func (w *Writer) finishJSON() error {
	body, err := w.buf, w.failed
	switch {
	case err != nil:
	case w.over:
		err = fmt.Errorf("the answer is larger than %d bytes", w.limit)
	case len(bytes.TrimSpace(body)) == 0:
		// No body (a 202 Accepted): nothing to filter.
	default:
		var k kind
		var out []byte
		out, k, err = w.read(body)
		switch {
		case err == nil && k == stray:
			err = fmt.Errorf("%w: a response to another id", errUnreadable)
		case err == nil && k == answer:
			body = out
		}
	}
	if err != nil {
		body = w.errorBody(err)
		w.w.Header().Set("Content-Type", "application/json")
	}
	w.w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.w.WriteHeader(w.status)
	_, werr := w.w.Write(body)
	return werr
}

// errorBody is the JSON-RPC error for the request's id that replaces an
// answer agentready cannot read: -32603, Internal error (JSON-RPC 2.0,
// 5.1).
func (w *Writer) errorBody(err error) []byte {
	msg := "agentready could not filter the MCP server's tools/list answer (" + err.Error() +
		"); it lists no tool rather than one the caller may not call"
	return mcprpc.ErrorResponse(w.id, -32603, msg, nil)
}
