package mcplist

import (
	"bytes"
	"errors"
	"fmt"
)

// An answer in text/event-stream is read as the HTML Living Standard's
// event stream parser reads it (9.2.6 "Interpreting an event stream"):
// lines end at CRLF, LF or CR (an event with a line ended by a CR alone
// fails closed: clients that read lines at LF read it otherwise); a blank
// line ends an event; a line
// beginning with ':' is a comment; the data of an event is its data lines
// joined with LF, one space after "data:" removed. Each event is passed on
// as soon as its blank line arrives: the server's own bytes for every
// event but the response to this request, which is written again with
// its tools filtered.

// eventEnd returns the length of the first complete event of b, 0 when b
// holds none yet. line is the offset of the line being read and scan the
// offset read so far; both carry over to the next call. A CR at the end
// of b is left unread: it may be the first half of a CRLF.
func eventEnd(b []byte, line, scan *int) int {
	i := *scan
	for i < len(b) {
		c := b[i]
		if c != '\n' && c != '\r' {
			i++
			continue
		}
		term := 1
		if c == '\r' {
			if i+1 == len(b) {
				break
			}
			if b[i+1] == '\n' {
				term = 2
			}
		}
		if i == *line { // a blank line: the event ends with it
			n := i + term
			*line, *scan = 0, 0
			return n
		}
		i += term
		*line = i
	}
	*scan = i
	return 0
}

// lines calls f with each line of an event, without its end, and the line
// with its end.
func lines(e []byte, f func(line, raw []byte)) {
	for len(e) > 0 {
		i := bytes.IndexAny(e, "\r\n")
		if i < 0 {
			f(e, e)
			return
		}
		n := i + 1
		if e[i] == '\r' && n < len(e) && e[n] == '\n' {
			n++
		}
		f(e[:i], e[:n])
		e = e[n:]
	}
}

// field splits an event stream line into its field name and value.
func field(line []byte) (name, value []byte) {
	name, value, found := bytes.Cut(line, []byte{':'})
	if !found {
		return line, nil
	}
	value, _ = bytes.CutPrefix(value, []byte{' '})
	return name, value
}

// eventData returns the data of an event: the one data line's value
// itself, or the values of several joined with LF into a new slice.
func eventData(e []byte) []byte {
	var (
		data  []byte
		count int
	)
	lines(e, func(line, _ []byte) {
		if len(line) == 0 || line[0] == ':' {
			return
		}
		name, value := field(line)
		if string(name) != "data" {
			return
		}
		count++
		switch count {
		case 1:
			data = value
		case 2:
			data = append(append(append([]byte(nil), data...), '\n'), value...)
		default:
			data = append(append(data, '\n'), value...)
		}
	})
	return data
}

// event passes on one event of the stream, ended by a blank line or, when
// ended is false, by the end of the body.
func (w *Writer) event(raw []byte, ended bool) error {
	e := raw
	if !w.started {
		w.started = true
		// A byte order mark that begins the stream is not part of the
		// first line (9.2.6); the event passes with it.
		e, _ = bytes.CutPrefix(e, []byte("\xEF\xBB\xBF"))
	}
	if loneCR(e) {
		// A line ended by a CR alone is one line to the HTML standard and
		// none to a client reading lines at LF (the Go SDK's event
		// reader): "data:\r{...}" is empty data here and the answer
		// there. Read two ways, it fails closed.
		return w.refuseStream(errLoneCR)
	}
	data := bytes.TrimSpace(eventData(e))
	if len(data) == 0 {
		// No data: a comment, a keep-alive, the priming event of an id and
		// empty data (MCP 2025-11-25, Transports, resumability); a client
		// dispatches none of them as a message.
		return w.pass(raw)
	}
	out, k, err := w.read(data)
	switch {
	case err != nil:
		return w.refuseStream(err)
	case k == other:
		return w.pass(raw)
	case k == stray:
		return nil
	}
	w.answered = true
	var b bytes.Buffer
	b.Grow(len(raw) + len(out))
	wrote := false
	lines(e, func(line, rawLine []byte) {
		if name, _ := field(line); len(line) == 0 || line[0] == ':' || string(name) != "data" {
			b.Write(rawLine)
			return
		}
		if wrote {
			return
		}
		wrote = true
		// The JSON text holds LF only as whitespace (RFC 8259 7: no
		// control character in a string), so each of its lines is a data
		// line of the event.
		for chunk := range bytes.SplitSeq(out, []byte{'\n'}) {
			b.WriteString("data: ")
			b.Write(chunk)
			b.WriteByte('\n')
		}
	})
	if !ended {
		// The stream's last event, ended by the end of the body: ended by
		// a blank line as well, so that every client dispatches it
		// filtered or none does.
		if last := b.Bytes()[b.Len()-1]; last != '\n' && last != '\r' {
			b.WriteByte('\n')
		}
		b.WriteByte('\n')
	}
	return w.pass(b.Bytes())
}

// errLoneCR is an event with a line ended by a CR alone.
var errLoneCR = errors.New("an event has a line ended by a CR alone, which clients read differently")

// loneCR reports whether e holds a CR not followed by LF. An event passed
// whole ends with its blank line, so a CR at its end is one too.
func loneCR(e []byte) bool {
	for i := bytes.IndexByte(e, '\r'); i >= 0; i = bytes.IndexByte(e, '\r') {
		if i+1 >= len(e) || e[i+1] != '\n' {
			return true
		}
		e = e[i+2:]
	}
	return false
}

// refuseStream fails closed on an answer that cannot be read: when no
// response to the request has been passed on, the event is replaced with
// a JSON-RPC error for the request's id and nothing more of the stream is
// passed on (the server "SHOULD terminate the SSE stream" after the
// response, MCP 2025-11-25, Transports, "Sending Messages to the Server"
// 6); after the response, the event is dropped. On a stream of no known
// request, nothing more is passed on, and ErrRefused tells the handler.
func (w *Writer) refuseStream(err error) error {
	if w.id == nil {
		w.mode = modeDiscard
		return ErrRefused
	}
	if w.answered {
		return nil
	}
	w.answered, w.mode = true, modeDiscard
	var b bytes.Buffer
	b.WriteString("event: message\ndata: ")
	b.Write(w.errorBody(err))
	b.WriteString("\n\n")
	if err := w.pass(b.Bytes()); err != nil {
		return err
	}
	w.flush()
	return nil
}

// writeSSE takes the handler's bytes of an event stream and passes on
// every event they complete.
func (w *Writer) writeSSE(p []byte) error {
	w.buf = append(w.buf, p...)
	off := 0
	for w.mode == modeSSE {
		n := eventEnd(w.buf[off:], &w.line, &w.scan)
		if n == 0 {
			break
		}
		if n > w.limit {
			w.buf = nil
			return w.refuseStream(fmt.Errorf("an event of the stream is larger than %d bytes", w.limit))
		}
		if err := w.event(w.buf[off:off+n], true); err != nil {
			return err
		}
		off += n
	}
	switch {
	case w.mode != modeSSE:
		w.buf = nil
		return nil
	case len(w.buf)-off > w.limit:
		w.buf = nil
		return w.refuseStream(fmt.Errorf("an event of the stream is larger than %d bytes", w.limit))
	}
	// What is left of the event moves to the front, so that the buffer
	// holds one event at most, however long the stream.
	w.buf = append(w.buf[:0], w.buf[off:]...)
	return nil
}

// finishSSE passes on the last event, which the end of the body ends: a
// client that dispatches it (the Go SDK's does) sees it filtered.
func (w *Writer) finishSSE() error {
	if w.mode != modeSSE || len(w.buf) == 0 {
		return nil
	}
	e := w.buf
	w.buf = nil
	// A CR left unread at the end of the body ends its line: the event
	// may have been ended by a blank line after all.
	var line, scan int
	ended := eventEnd(append(e, 'x'), &line, &scan) == len(e)
	return w.event(e, ended)
}
