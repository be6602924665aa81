package problem

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestProblemMarshalJSON(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    Problem
		want string
	}{
		{"quota exceeded", Problem{
			Type:   QuotaExceeded,
			Title:  "Rate limit exceeded",
			Status: http.StatusTooManyRequests,
			Detail: `agent policy "claude" allows 200 requests per minute`,
			Extra:  map[string]any{ExtViolatedPolicies: []string{"agent"}},
		}, `{"type":"https://iana.org/assignments/http-problem-types#quota-exceeded","title":"Rate limit exceeded","status":429,"detail":"agent policy \"claude\" allows 200 requests per minute","violated-policies":["agent"]}`},
		{"about:blank takes the status phrase", Problem{Status: http.StatusForbidden},
			`{"type":"about:blank","title":"Forbidden","status":403}`},
		{"out-of-range status is 500", Problem{Status: 42},
			`{"type":"about:blank","title":"Internal Server Error","status":500}`},
		{"extensions sorted, standard names ignored", Problem{
			Type: "https://site.example/problems/x", Status: 401, Instance: "/api/orders/1",
			Extra: map[string]any{"zeta": 1, "alpha": true, "status": 200, "type": "forged", "title": "forged", "detail": "forged", "instance": "forged"},
		}, `{"type":"https://site.example/problems/x","status":401,"instance":"/api/orders/1","alpha":true,"zeta":1}`},
		{"escaping: quotes, controls, HTML, unicode", Problem{
			Status: 403, Title: "No <script> & \"quotes\"", Detail: "line\nbreak\ttab\x00nul \u2028 é",
		}, `{"type":"about:blank","title":"No \u003cscript\u003e \u0026 \"quotes\"","status":403,"detail":"line\nbreak\ttab\u0000nul \u2028 é"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := json.Marshal(tc.p)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
			if !json.Valid(got) {
				t.Error("invalid JSON")
			}
		})
	}
}

func TestWriteProblem(t *testing.T) {
	w := httptest.NewRecorder()
	w.Header().Set("Retry-After", "12")
	err := Write(w, Problem{Type: QuotaExceeded, Title: "Too many", Status: 429})
	if err != nil {
		t.Fatal(err)
	}
	if w.Code != 429 {
		t.Errorf("status %d, want 429", w.Code)
	}
	for k, want := range map[string]string{
		"Content-Type":           ContentType,
		"Content-Length":         "105",
		"X-Content-Type-Options": "nosniff",
		"Retry-After":            "12",
	} {
		if got := w.Header().Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	want := `{"type":"https://iana.org/assignments/http-problem-types#quota-exceeded","title":"Too many","status":429}`
	if w.Body.String() != want {
		t.Errorf("body %s\nwant %s", w.Body, want)
	}
}

// An extension that cannot be encoded still yields a correct problem
// response, and the error is returned.
func TestWriteProblemBadExtension(t *testing.T) {
	w := httptest.NewRecorder()
	err := Write(w, Problem{Status: 403, Detail: "d", Extra: map[string]any{"ch": make(chan int)}})
	if err == nil || !strings.Contains(err.Error(), `"ch"`) {
		t.Errorf("error = %v, want one naming the member", err)
	}
	if w.Code != 403 || w.Body.String() != `{"type":"about:blank","title":"Forbidden","status":403,"detail":"d"}` {
		t.Errorf("got %d %s", w.Code, w.Body)
	}
}

type failingWriter struct{ *httptest.ResponseRecorder }

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("connection reset") }

func TestWriteProblemWriteError(t *testing.T) {
	err := Write(failingWriter{httptest.NewRecorder()}, Problem{Status: 429})
	if err == nil || !strings.Contains(err.Error(), "connection reset") {
		t.Errorf("error = %v, want the write error", err)
	}
}

func TestDescribedBy(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"https://site.example/.well-known/agents.txt", `<https://site.example/.well-known/agents.txt>; rel="describedby"`, true},
		{"/.well-known/agents.txt", `</.well-known/agents.txt>; rel="describedby"`, true},
		{"", "", false},
		{"https://x/a b", "", false},
		{"https://x/>; rel=evil", "", false},
		{"https://x/\r\nSet-Cookie: a=b", "", false},
		{"https://x/é", "", false},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := DescribedBy(tc.in)
			if (err == nil) != tc.ok || got != tc.want {
				t.Errorf("DescribedBy = %q, %v; want %q, ok=%v", got, err, tc.want, tc.ok)
			}
		})
	}
}

// Any strings and status give valid JSON that decodes back to them.
func FuzzProblemJSON(f *testing.F) {
	f.Add("about:blank", "t", 429, "d\n\"", "/i", "k", "v")
	f.Fuzz(func(t *testing.T, typ, title string, status int, detail, instance, k, v string) {
		p := Problem{Type: typ, Title: title, Status: status, Detail: detail, Instance: instance, Extra: map[string]any{k: v}}
		b, err := p.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if m["status"].(float64) != float64(p.status()) {
			t.Errorf("status %v, want %d", m["status"], p.status())
		}
		if detail != "" && strings.ToValidUTF8(detail, "\uFFFD") != m["detail"] {
			t.Errorf("detail %q, want %q", m["detail"], detail)
		}
	})
}

func TestRetryAfterSeconds(t *testing.T) {
	for d, want := range map[time.Duration]int{-time.Second: 1, 0: 1, 1: 1, time.Second: 1, 1500 * time.Millisecond: 2, time.Minute: 60} {
		if got := RetryAfterSeconds(d); got != want {
			t.Errorf("RetryAfterSeconds(%v) = %d, want %d", d, got, want)
		}
	}
}
