package mcplist

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

const (
	listAnswer   = `{"jsonrpc":"2.0","id":7,"result":{"tools":[{"name":"admin"},{"name":"search"}],"nextCursor":"Mg=="}}`
	listFiltered = `{"jsonrpc":"2.0","id":7,"result":{"tools":[{"name":"search"}],"nextCursor":"Mg=="}}`
	listChanged  = `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`
)

// serve runs a handler that answers with status, header and the writes
// given, through a Writer for the request id 7.
func serve(t *testing.T, ct string, status int, limit int, writes ...string) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	w := New(rec, json.RawMessage(`7`), allowSearch, limit)
	if ct != "" {
		w.Header().Set("Content-Type", ct)
	}
	w.Header().Set("Content-Length", "99999")
	w.Header().Set("X-Server", "sdk")
	w.WriteHeader(status)
	for _, s := range writes {
		if _, err := w.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Finish(); err != nil {
		t.Fatal(err)
	}
	return rec
}

// wantRPCError reads the JSON-RPC error that replaced an answer.
func wantRPCError(t *testing.T, body string) {
	t.Helper()
	var r struct {
		ID    json.RawMessage `json:"id"`
		Error struct{ Code int }
	}
	if err := json.Unmarshal([]byte(body), &r); err != nil || string(r.ID) != "7" || r.Error.Code != -32603 {
		t.Fatalf("want the JSON-RPC error -32603 for id 7, got %s", body)
	}
}

func TestJSONAnswer(t *testing.T) {
	t.Run("filtered, status and headers kept, Content-Length recomputed", func(t *testing.T) {
		rec := serve(t, "application/json", http.StatusOK, 0, listAnswer[:20], listAnswer[20:])
		if rec.Body.String() != listFiltered || rec.Code != 200 || rec.Header().Get("X-Server") != "sdk" ||
			rec.Header().Get("Content-Length") != itoa(len(listFiltered)) {
			t.Fatalf("%d %v %s", rec.Code, rec.Header(), rec.Body)
		}
	})
	t.Run("an error response as sent, with its status", func(t *testing.T) {
		const e = `{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"bad cursor"}}`
		if rec := serve(t, "application/json; charset=utf-8", http.StatusBadRequest, 0, e); rec.Body.String() != e || rec.Code != 400 {
			t.Fatalf("%d %s", rec.Code, rec.Body)
		}
	})
	t.Run("no body", func(t *testing.T) {
		if rec := serve(t, "application/json", http.StatusAccepted, 0); rec.Body.Len() != 0 || rec.Code != 202 {
			t.Fatalf("%d %s", rec.Code, rec.Body)
		}
	})
	for name, body := range map[string]string{
		"malformed":      listAnswer[:len(listAnswer)-1],
		"another id":     strings.Replace(listAnswer, `"id":7`, `"id":8`, 1),
		"a batch":        "[" + listAnswer + "]",
		"tools twice":    strings.Replace(listAnswer, `"nextCursor"`, `"tools":[{"name":"admin"}],"x"`, 1),
		"a notification": listChanged + listAnswer,
	} {
		t.Run(name, func(t *testing.T) {
			rec := serve(t, "application/json", http.StatusOK, 0, body)
			wantRPCError(t, rec.Body.String())
			if rec.Header().Get("Content-Length") != "" && rec.Header().Get("Content-Length") != itoa(rec.Body.Len()) {
				t.Errorf("Content-Length %s for %d bytes", rec.Header().Get("Content-Length"), rec.Body.Len())
			}
		})
	}
	t.Run("past the limit", func(t *testing.T) {
		rec := serve(t, "application/json", http.StatusOK, 64, listAnswer[:40], listAnswer[40:])
		wantRPCError(t, rec.Body.String())
	})
	t.Run("compressed", func(t *testing.T) {
		rec := httptest.NewRecorder()
		w := New(rec, json.RawMessage(`7`), allowSearch, 0)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Encoding", "gzip")
		_, _ = w.Write([]byte("\x1f\x8b..."))
		_ = w.Finish()
		wantRPCError(t, rec.Body.String())
		if rec.Header().Get("Content-Encoding") != "" {
			t.Errorf("Content-Encoding %q kept", rec.Header().Get("Content-Encoding"))
		}
	})
	t.Run("a Content-Type the TypeScript SDK reads as JSON", func(t *testing.T) {
		if rec := serve(t, "text/plain, Application/JSON", http.StatusOK, 0, listAnswer); rec.Body.String() != listFiltered {
			t.Fatalf("%s", rec.Body)
		}
	})
	t.Run("not an answer: byte for byte", func(t *testing.T) {
		rec := serve(t, "text/plain", http.StatusNotFound, 0, "session ", "not found\n")
		if rec.Body.String() != "session not found\n" || rec.Code != 404 || rec.Header().Get("Content-Length") != "99999" {
			t.Fatalf("%d %v %q", rec.Code, rec.Header(), rec.Body)
		}
	})
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func sse(data string) string { return "event: message\ndata: " + data + "\n\n" }

func TestSSEAnswer(t *testing.T) {
	priming := "id: 0_0\ndata: \n\n"
	comment := ": keep-alive\n\n"
	stream := priming + sse(listChanged) + comment + sse(listAnswer)
	want := priming + sse(listChanged) + comment + sse(listFiltered)
	t.Run("event by event", func(t *testing.T) {
		rec := serve(t, "text/event-stream", http.StatusOK, 0, stream)
		if rec.Body.String() != want || rec.Header().Get("Content-Length") != "" || rec.Header().Get("X-Server") != "sdk" {
			t.Fatalf("%v\n%q\nwant\n%q", rec.Header(), rec.Body, want)
		}
	})
	t.Run("a byte a write", func(t *testing.T) {
		writes := strings.Split(stream, "")
		if rec := serve(t, "text/event-stream", http.StatusOK, 0, writes...); rec.Body.String() != want {
			t.Fatalf("%q", rec.Body)
		}
	})
	t.Run("CRLF", func(t *testing.T) {
		in := strings.ReplaceAll(stream, "\n", "\r\n")
		out := strings.ReplaceAll(priming+sse(listChanged)+comment, "\n", "\r\n") +
			strings.ReplaceAll("event: message\n", "\n", "\r\n") + "data: " + listFiltered + "\n\r\n"
		for _, writes := range [][]string{{in}, strings.Split(in, "")} {
			if rec := serve(t, "text/event-stream", http.StatusOK, 0, writes...); rec.Body.String() != out {
				t.Fatalf("%q\nwant\n%q", rec.Body, out)
			}
		}
	})
	// A line ended by a CR alone is a line to the HTML standard and none
	// to the Go SDK's reader (LF only): such a stream fails closed, the
	// answer an error, whatever the writes.
	t.Run("CR", func(t *testing.T) {
		in := strings.ReplaceAll(stream, "\n", "\r")
		for _, writes := range [][]string{{in}, strings.Split(in, "")} {
			rec := serve(t, "text/event-stream", http.StatusOK, 0, writes...)
			if body := rec.Body.String(); strings.Contains(body, `"tools"`) || !strings.Contains(body, "-32603") {
				t.Fatalf("%q", body)
			}
		}
	})
	t.Run("data on several lines", func(t *testing.T) {
		in := "id: 5\ndata: {\"jsonrpc\":\"2.0\",\ndata: \"id\":7,\"result\":{\"tools\":[{\"name\":\"admin\"},\ndata:{\"name\":\"search\"}]}}\n\n"
		out := "id: 5\ndata: {\"jsonrpc\":\"2.0\",\ndata: \"id\":7,\"result\":{\"tools\":[{\"name\":\"search\"}]}}\n\n"
		if rec := serve(t, "text/event-stream", http.StatusOK, 0, in); rec.Body.String() != out {
			t.Fatalf("%q", rec.Body)
		}
	})
	t.Run("the last event ended by the end of the body", func(t *testing.T) {
		rec := serve(t, "text/event-stream", http.StatusOK, 0, sse(listChanged)+"data: "+listAnswer)
		if rec.Body.String() != sse(listChanged)+"data: "+listFiltered+"\n\n" {
			t.Fatalf("%q", rec.Body)
		}
	})
	t.Run("a response to another id is dropped", func(t *testing.T) {
		stray := strings.Replace(listAnswer, `"id":7`, `"id":"7"`, 1)
		rec := serve(t, "text/event-stream", http.StatusOK, 0, sse(stray)+sse(listAnswer))
		if rec.Body.String() != sse(listFiltered) {
			t.Fatalf("%q", rec.Body)
		}
	})
}

// TestSSEHostile: an answer that cannot be read is replaced with the
// JSON-RPC error, and nothing after it is passed on.
func TestSSEHostile(t *testing.T) {
	huge := sse(`{"jsonrpc":"2.0","id":7,"result":{"tools":[{"name":"admin","description":"` + strings.Repeat("x", 4096) + `"}]}}`)
	for name, stream := range map[string]string{
		"a huge event":   huge,
		"malformed JSON": sse(listAnswer[:30]) + sse(listAnswer),
		"a batch":        sse("[" + listAnswer + "]"),
		"tools twice":    sse(strings.Replace(listAnswer, `"nextCursor"`, `"tools":[{"name":"admin"}],"x"`, 1)),
		"compressed":     "\x1f\x8b" + sse(listAnswer),
	} {
		t.Run(name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			w := New(rec, json.RawMessage(`7`), allowSearch, 1024)
			w.Header().Set("Content-Type", "text/event-stream")
			if name == "compressed" {
				w.Header().Set("Content-Encoding", "gzip")
			}
			for _, s := range []string{sse(listChanged), stream, sse(listChanged), sse(listAnswer)} {
				if _, err := w.Write([]byte(s)); err != nil {
					t.Fatal(err)
				}
			}
			_ = w.Finish()
			body, ok := strings.CutPrefix(rec.Body.String(), sse(listChanged))
			if name == "compressed" {
				body, ok = rec.Body.String(), true
			}
			data, okData := strings.CutPrefix(body, "event: message\ndata: ")
			if !ok || !okData || !strings.HasSuffix(data, "\n\n") || strings.Count(data, "\n") != 2 {
				t.Fatalf("%q", rec.Body)
			}
			wantRPCError(t, strings.TrimSpace(data))
		})
	}
	t.Run("an unreadable event after the answer is dropped", func(t *testing.T) {
		rec := serve(t, "text/event-stream", http.StatusOK, 0, sse(listAnswer), sse("{nope"), sse(listChanged))
		if rec.Body.String() != sse(listFiltered)+sse(listChanged) {
			t.Fatalf("%q", rec.Body)
		}
	})
}

// flushRecorder records what reached the client at each flush.
type flushRecorder struct {
	*httptest.ResponseRecorder
	flushed []string
}

func (f *flushRecorder) Flush() { f.flushed = append(f.flushed, f.Body.String()) }

func TestSSEFlush(t *testing.T) {
	f := &flushRecorder{ResponseRecorder: httptest.NewRecorder()}
	w := New(f, json.RawMessage(`7`), allowSearch, 0)
	w.Header().Set("Content-Type", "text/event-stream")
	_, _ = w.Write([]byte(sse(listChanged) + "event: message\ndata: " + listAnswer[:10]))
	if err := http.NewResponseController(w).Flush(); err != nil {
		t.Fatal(err)
	}
	_, _ = w.Write([]byte(listAnswer[10:] + "\n\n"))
	w.Flush()
	_ = w.Finish()
	if len(f.flushed) != 2 || f.flushed[0] != sse(listChanged) || f.flushed[1] != sse(listChanged)+sse(listFiltered) {
		t.Fatalf("flushed %q", f.flushed)
	}
	if _, _, err := http.NewResponseController(w).Hijack(); !errors.Is(err, http.ErrNotSupported) {
		t.Errorf("Hijack: %v", err)
	}
	if w.Unwrap() != http.ResponseWriter(f) {
		t.Error("Unwrap is not the underlying writer")
	}
	if _, err := w.Write([]byte("x")); err == nil {
		t.Error("a write after Finish succeeds")
	}
}

func TestInformationalStatus(t *testing.T) {
	rec := httptest.NewRecorder()
	w := New(rec, json.RawMessage(`7`), allowSearch, 0)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusEarlyHints)
	_, _ = w.Write([]byte(listAnswer))
	_ = w.Finish()
	if rec.Body.String() != listFiltered {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
}

// FuzzSSE: whatever the server streams, split into whatever writes, no
// event of what is passed on gives the response to id 7 a tool the
// caller may not call, read as the HTML standard reads a stream (lines
// end at CRLF, LF or CR) or as the Go SDK's client does (at LF).
func FuzzSSE(f *testing.F) {
	f.Add("id: 0\ndata: \n\n"+sse(listChanged)+sse(listAnswer), uint8(7))
	f.Add("data: {\"id\":7,\r\"result\":{\"tools\":[{\"name\":\"admin\"}]}}\n\n", uint8(3))
	f.Add("data: "+listAnswer+"\r\r\ndata: "+listAnswer, uint8(1))
	f.Add("data: ["+listAnswer+","+listAnswer+"]\n\n", uint8(0x85))
	f.Fuzz(func(t *testing.T, stream string, step uint8) {
		// The high bit: a stream of no one request (every response
		// filtered, batches read).
		id := json.RawMessage(`7`)
		if step&0x80 != 0 {
			id = nil
		}
		rec := httptest.NewRecorder()
		w := New(rec, id, allowSearch, 512)
		w.Header().Set("Content-Type", "text/event-stream")
		n := int(step%16) + 1
		for i := 0; i < len(stream); i += n {
			if _, err := w.Write([]byte(stream[i:min(i+n, len(stream))])); err != nil && (id != nil || !errors.Is(err, ErrRefused)) {
				t.Fatal(err)
			}
		}
		_ = w.Finish()
		out := rec.Body.String()
		whatwg := strings.ReplaceAll(strings.ReplaceAll(out, "\r\n", "\n"), "\r", "\n")
		for _, s := range []string{whatwg, out} {
			// Lines end at LF; a CR before it is trimmed (the Go SDK's
			// reading; the HTML standard's once CRs are LFs).
			var data []string
			for _, line := range strings.Split(s+"\n", "\n") {
				line = strings.TrimRight(line, "\r")
				if v, ok := strings.CutPrefix(line, "data:"); ok {
					data = append(data, strings.TrimPrefix(v, " "))
				}
				if line != "" {
					continue
				}
				checkPassed(t, []byte(strings.Join(data, "\n")), id, stream, out)
				data = nil
			}
		}
	})
}

// checkPassed fails if the data of an event passed on gives a response to
// id (to any, nil) a tool the caller may not call.
func checkPassed(t *testing.T, data []byte, id json.RawMessage, stream, out string) {
	t.Helper()
	type response struct {
		ID     json.RawMessage
		Result struct {
			Tools []struct{ Name string } `json:"tools"`
		} `json:"result"`
	}
	var msgs []response
	if json.Unmarshal(data, &msgs) != nil {
		var one response
		if json.Unmarshal(data, &one) != nil {
			return
		}
		msgs = []response{one}
	}
	for _, r := range msgs {
		if id != nil && !sameID(r.ID, id) {
			continue
		}
		for _, tl := range r.Result.Tools {
			if !allowSearch(tl.Name) {
				t.Fatalf("%q passes %q on: %q", stream, tl.Name, out)
			}
		}
	}
}

// TestStreamOfNoRequest: a GET stream (nil id), on which a resumed
// POST's stream may replay a tools/list answer: every response is
// filtered, whatever its id; an event that cannot be read ends what is
// passed on.
func TestStreamOfNoRequest(t *testing.T) {
	rec := httptest.NewRecorder()
	w := New(rec, nil, allowSearch, 1024)
	w.Header().Set("Content-Type", "text/event-stream")
	other := strings.Replace(listAnswer, `"id":7`, `"id":"x"`, 1)
	call := `{"jsonrpc":"2.0","id":9,"result":{"content":[]}}`
	for _, s := range []string{"id: 1\ndata: \n\n", sse(listChanged), sse(listAnswer), sse(other), sse(call)} {
		if _, err := w.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	want := "id: 1\ndata: \n\n" + sse(listChanged) + sse(listFiltered) + sse(strings.Replace(listFiltered, `"id":7`, `"id":"x"`, 1)) + sse(call)
	if rec.Body.String() != want {
		t.Fatalf("%q\nwant\n%q", rec.Body, want)
	}
	for _, s := range []string{sse("{nope"), sse(listChanged)} {
		if _, err := w.Write([]byte(s)); !errors.Is(err, ErrRefused) {
			t.Fatalf("Write after an unreadable event: %v", err)
		}
	}
	_ = w.Finish()
	if rec.Body.String() != want {
		t.Fatalf("passed on after the unreadable event: %q", rec.Body.String()[len(want):])
	}
}

// TestBatchAnswer: the answer to a batch (nil id), an array of responses
// in JSON or in an event, has every response filtered.
func TestBatchAnswer(t *testing.T) {
	ping := `{"jsonrpc":"2.0","id":6,"result":{}}`
	other := strings.Replace(listAnswer, `"id":7`, `"id":5`, 1)
	in := " [" + ping + ",\n" + listAnswer + "," + other + "]"
	want := "[" + ping + "," + listFiltered + "," + strings.Replace(listFiltered, `"id":7`, `"id":5`, 1) + "]"
	for _, ct := range []string{"application/json", "text/event-stream"} {
		rec := httptest.NewRecorder()
		w := New(rec, nil, allowSearch, 0)
		w.Header().Set("Content-Type", ct)
		body, out := in, want
		if ct == "text/event-stream" {
			// The array's LF begins a line of its own: data again.
			body = sse(listChanged) + "data:" + strings.Replace(in, "\n", "\ndata:", 1) + "\n\n"
			out = sse(listChanged) + "data: " + want + "\n\n"
		}
		_, _ = w.Write([]byte(body))
		_ = w.Finish()
		if rec.Body.String() != out {
			t.Errorf("%s: %q\nwant %q", ct, rec.Body, out)
		}
	}
	for name, bad := range map[string]string{
		"a member unreadable": "[" + ping + "," + strings.Replace(listAnswer, `"tools"`, `"Tools"`, 1) + "]",
		"empty":               "[]",
		"malformed":           "[" + ping,
	} {
		rec := httptest.NewRecorder()
		w := New(rec, nil, allowSearch, 0)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(bad))
		_ = w.Finish()
		var r struct {
			ID    json.RawMessage `json:"id"`
			Error struct{ Code int }
		}
		if json.Unmarshal(rec.Body.Bytes(), &r) != nil || string(r.ID) != "null" || r.Error.Code != -32603 {
			t.Errorf("%s: %s", name, rec.Body)
		}
	}
}
