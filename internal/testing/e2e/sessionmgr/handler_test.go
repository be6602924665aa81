package sessionmgr_test

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentready/agentready/internal/sessionmgr"
	"github.com/agentready/agentready/internal/testclock"
	"github.com/agentready/agentready/session"
)

// stores runs fn against a MemoryStore and a RedisStore on clock.
func stores(t *testing.T, fn func(t *testing.T, st session.Store, clock *testclock.Clock)) {
	t.Run("memory", func(t *testing.T) {
		clock := testclock.New(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
		fn(t, session.NewMemoryStore(session.WithClock(clock.Now)), clock)
	})
	t.Run("redis", func(t *testing.T) {
		client := newRedisClient(t)
		// Redis drops keys at their deadline on its own clock: start at
		// the real time.
		clock := testclock.New(time.Now().UTC().Truncate(time.Second))
		fn(t, newRedisStore(t, client, clock.Now), clock)
	})
}

func TestLifecycle(t *testing.T) {
	stores(t, func(t *testing.T, st session.Store, clock *testclock.Clock) {
		e := newEnv(t, st, clock, nil)
		created := clock.Now()
		res := e.create("shopbot", "192.0.2.7", `{"agent_name":"ShopBot","agent_version":"2.1","purpose":"buy a mug"}`)
		if res.status != http.StatusCreated || res.body["ok"] != true {
			t.Fatalf("create: %d %s", res.status, res.raw)
		}
		if cc := res.header.Get("Cache-Control"); cc != "no-store" {
			t.Errorf("Cache-Control %q, want no-store", cc)
		}
		token, _ := res.data["session_token"].(string)
		id, _ := res.data["session_id"].(string)
		if len(token) < 32 || !isBase64URL(token) {
			t.Fatalf("token %q: want at least 32 base64url characters", token)
		}
		if id == "" || id == token || strings.Contains(token, id) || !isBase64URL(id) {
			t.Fatalf("session_id %q must be URL-safe and unrelated to the token", id)
		}
		if got, want := res.data["expires_at"], created.Add(time.Hour).Format(time.RFC3339Nano); got != want {
			t.Errorf("expires_at %v, want %s", got, want)
		}
		if got := toStrings(res.data["capabilities"]); !slices.Equal(got, testCaps) {
			t.Errorf("capabilities %v, want %v", got, testCaps)
		}

		// Lookup through a session-required route.
		if r := e.do(http.MethodGet, "/cart", "shopbot", "192.0.2.7", token, ""); r.status != http.StatusOK || r.raw != id {
			t.Fatalf("/cart: %d %q, want 200 and the session id", r.status, r.raw)
		}
		req, _ := http.NewRequest(http.MethodGet, "/cart", nil)
		req.Header.Set(hdrAgent, "shopbot")
		req.Header.Set(hdrClient, "192.0.2.7")
		req.Header.Set(session.HeaderSession, token)
		s, err := lookup(e.m, req)
		if err != nil {
			t.Fatal(err)
		}
		if s.ID != id || s.Agent != "shopbot" || s.Client.String() != "192.0.2.7/32" || s.AgentName != "ShopBot" ||
			s.AgentVersion != "2.1" || s.Purpose != "buy a mug" || !s.CreatedAt.Equal(created) || !s.ExpiresAt.Equal(created.Add(time.Hour)) {
			t.Fatalf("Lookup = %+v", *s)
		}

		clock.Advance(90 * time.Second)
		res = e.do(http.MethodDelete, endpoint, "shopbot", "192.0.2.7", token, "")
		if res.status != http.StatusOK || res.body["ok"] != true {
			t.Fatalf("DELETE: %d %s", res.status, res.raw)
		}
		if _, echoed := res.data["session_token"]; echoed || strings.Contains(res.raw, token) {
			t.Errorf("DELETE echoed the token: %s", res.raw)
		}
		endedAt := created.Add(90 * time.Second).Format(time.RFC3339Nano)
		want := map[string]any{
			"session_id":         id,
			"ended_at":           endedAt,
			"audit_artifact_url": "https://shop.example/.well-known/agents/api/audit/" + id,
		}
		if !mapsEqual(res.data, want) {
			t.Errorf("DELETE data %v, want %v", res.data, want)
		}
		ends := e.events()
		if len(ends) != 1 || ends[0].reason != sessionmgr.Deleted || ends[0].s.ID != id ||
			ends[0].s.EndedAt.Format(time.RFC3339Nano) != endedAt || ends[0].s.Purpose != "buy a mug" {
			t.Fatalf("OnEnd events %v", ends)
		}

		// Ended: the token is dead everywhere, and the end is not reported
		// again, not even when its deadline passes.
		if r := e.do(http.MethodGet, "/cart", "shopbot", "192.0.2.7", token, ""); r.status != http.StatusUnauthorized {
			t.Fatalf("/cart after DELETE: %d", r.status)
		}
		if r := e.do(http.MethodDelete, endpoint, "shopbot", "192.0.2.7", token, ""); r.status != http.StatusUnauthorized {
			t.Fatalf("second DELETE: %d", r.status)
		}
		clock.Advance(2 * time.Hour)
		if n, err := e.m.Reap(context.Background()); n != 0 || err != nil {
			t.Fatalf("Reap after DELETE = %d, %v", n, err)
		}
		if n := len(e.events()); n != 1 {
			t.Fatalf("%d OnEnd events, want 1", n)
		}
	})
}

func TestLookupFailures(t *testing.T) {
	stores(t, func(t *testing.T, st session.Store, clock *testclock.Clock) {
		e := newEnv(t, st, clock, func(c *sessionmgr.Config) { c.TTL = 10 * time.Minute })
		e.create("shopbot", "2001:db8:1:2::7", "") // expires with the next one
		expired := e.create("shopbot", "2001:db8:1:2::7", "").data["session_token"].(string)
		deleted := e.create("shopbot", "2001:db8:1:2::7", "").data["session_token"].(string)
		if r := e.do(http.MethodDelete, endpoint, "shopbot", "2001:db8:1:2::7", deleted, ""); r.status != http.StatusOK {
			t.Fatal(r.raw)
		}
		clock.Advance(5 * time.Minute)
		live := e.create("shopbot", "2001:db8:1:2::7", "").data["session_token"].(string)
		clock.Advance(5 * time.Minute) // the first two expire exactly now
		unknown, _, _ := sessionmgr.NewToken()

		tests := []struct {
			name          string
			agent, client string
			token         string
			want          error
			status        int
			msg           string
		}{
			{"live", "shopbot", "2001:db8:1:2::7", live, nil, http.StatusOK, ""},
			{"same /64", "shopbot", "2001:db8:1:2:ffff::1", live, nil, http.StatusOK, ""},
			{"missing", "shopbot", "2001:db8:1:2::7", "", session.ErrNoToken, 401, "missing X-Agent-Session header"},
			{"unknown", "shopbot", "2001:db8:1:2::7", unknown, session.ErrNotFound, 401, "unknown or expired session"},
			{"too short", "shopbot", "2001:db8:1:2::7", "abc", session.ErrNotFound, 401, "unknown or expired session"},
			{"too long", "shopbot", "2001:db8:1:2::7", strings.Repeat("a", 300), session.ErrNotFound, 401, "unknown or expired session"},
			{"expired", "shopbot", "2001:db8:1:2::7", expired, session.ErrNotFound, 401, "unknown or expired session"},
			{"deleted", "shopbot", "2001:db8:1:2::7", deleted, session.ErrNotFound, 401, "unknown or expired session"},
			{"other agent", "otherbot", "2001:db8:1:2::7", live, session.ErrForeign, 401, "session belongs to another agent or client"},
			{"other client", "shopbot", "2001:db8:1:3::7", live, session.ErrForeign, 401, "session belongs to another agent or client"},
			{"other client family", "shopbot", "192.0.2.7", live, session.ErrForeign, 401, "session belongs to another agent or client"},
			{"no client key", "shopbot", "", live, session.ErrForeign, 401, "session belongs to another agent or client"},
			{"unidentified", "", "2001:db8:1:2::7", live, sessionmgr.ErrUnidentified, 403, "the caller's agent identity could not be determined"},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				req, _ := http.NewRequest(http.MethodPost, "/cart", nil)
				if tc.agent != "" {
					req.Header.Set(hdrAgent, tc.agent)
				}
				req.Header.Set(hdrClient, tc.client)
				if tc.token != "" {
					req.Header.Set(session.HeaderSession, tc.token)
				}
				s, err := lookup(e.m, req)
				if !errors.Is(err, tc.want) || (tc.want == nil) != (s != nil) {
					t.Fatalf("Lookup = %v, %v; want %v", s, err, tc.want)
				}
				if agent, client, ok := identify(req); ok {
					// Started before the limits, finished after: the same.
					_, p := e.m.Prefetch(req)
					ps, perr := p.Lookup(agent, client)
					if !errors.Is(perr, tc.want) || (tc.want == nil) != (ps != nil) || (ps != nil && ps.ID != s.ID) {
						t.Fatalf("Prefetch, Lookup = %v, %v; want %v", ps, perr, tc.want)
					}
				}
				if status, msg := sessionmgr.ErrorStatus(err); status != tc.status || msg != tc.msg {
					t.Fatalf("ErrorStatus = %d %q, want %d %q", status, msg, tc.status, tc.msg)
				}
				if tc.want == nil {
					return
				}
				// DELETE refuses the same way, and leaves the session alone.
				res := e.do(http.MethodDelete, endpoint, tc.agent, tc.client, tc.token, "")
				if res.status != tc.status || res.body["ok"] != false || res.body["error"] != tc.msg {
					t.Fatalf("DELETE: %d %s", res.status, res.raw)
				}
			})
		}
		if r := e.do(http.MethodGet, "/cart", "shopbot", "2001:db8:1:2::7", live, ""); r.status != http.StatusOK {
			t.Fatalf("the live session did not survive foreign DELETEs: %d", r.status)
		}
		// The two sessions that expired are reported once, as expired at
		// their deadline.
		if n, err := e.m.Reap(context.Background()); n != 2 || err != nil {
			t.Fatalf("Reap = %d, %v", n, err)
		}
		for _, ev := range e.events()[1:] {
			if ev.reason != sessionmgr.Expired || !ev.s.EndedAt.Equal(ev.s.ExpiresAt) {
				t.Errorf("end %v: EndedAt %v, ExpiresAt %v", ev, ev.s.EndedAt, ev.s.ExpiresAt)
			}
		}
	})
}

func TestCreateBodies(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		status  int
		errPart string
		purpose string
	}{
		{"empty", "", 201, "", ""},
		{"whitespace", " \n\t", 201, "", ""},
		{"empty object", "{}", 201, "", ""},
		{"null", "null", 201, "", ""},
		{"full", `{"agent_name":"ShopBot","agent_version":"2.1","purpose":"buy a mug"}`, 201, "", "buy a mug"},
		{"unknown members ignored", `{"purpose":"p","extra":[1,2]}`, 201, "", "p"},
		{"invalid UTF-8 replaced", "{\"purpose\":\"a\xffb\"}", 201, "", "a\ufffdb"},
		{"truncated", `{"purpose":"p"`, 400, "malformed JSON body", ""},
		{"not JSON", "purpose=p", 400, "malformed JSON body", ""},
		{"array", `[]`, 400, "malformed JSON body", ""},
		{"string", `"hello"`, 400, "malformed JSON body", ""},
		{"wrong type", `{"agent_name":5}`, 400, "malformed JSON body", ""},
		{"two objects", `{} {}`, 400, "malformed JSON body", ""},
		{"at the cap", `{"purpose":"` + strings.Repeat("x", sessionmgr.MaxBodyBytes-14) + `"}`, 201, "", strings.Repeat("x", sessionmgr.MaxBodyBytes-14)},
		{"too large", `{"purpose":"` + strings.Repeat("x", sessionmgr.MaxBodyBytes) + `"}`, 413, "exceeds 16384 bytes", ""},
	}
	e := newEnv(t, nil, nil, nil)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := e.do(http.MethodPost, endpoint, "shopbot", "192.0.2.7", "", tc.body)
			if res.status != tc.status {
				t.Fatalf("status %d, want %d: %s", res.status, tc.status, res.raw)
			}
			if tc.status != 201 {
				msg, _ := res.body["error"].(string)
				if res.body["ok"] != false || !strings.Contains(msg, tc.errPart) {
					t.Fatalf("body %s, want an error mentioning %q", res.raw, tc.errPart)
				}
				return
			}
			req, _ := http.NewRequest(http.MethodGet, "/", nil)
			req.Header.Set(hdrAgent, "shopbot")
			req.Header.Set(hdrClient, "192.0.2.7")
			req.Header.Set(session.HeaderSession, res.data["session_token"].(string))
			s, err := lookup(e.m, req)
			if err != nil {
				t.Fatal(err)
			}
			if s.Purpose != tc.purpose {
				t.Fatalf("purpose %q, want %q", s.Purpose, tc.purpose)
			}
		})
	}
}

func TestMethods(t *testing.T) {
	e := newEnv(t, nil, nil, nil)
	for _, m := range []string{http.MethodGet, http.MethodHead, http.MethodPut, http.MethodPatch, "BREW"} {
		t.Run(m, func(t *testing.T) {
			res := e.do(m, endpoint, "shopbot", "192.0.2.7", "", "")
			if res.status != http.StatusMethodNotAllowed || res.header.Get("Allow") != "DELETE, OPTIONS, POST" {
				t.Fatalf("%d Allow %q", res.status, res.header.Get("Allow"))
			}
			if m != http.MethodHead && (res.body["ok"] != false || res.body["error"] == "") {
				t.Fatalf("body %s", res.raw)
			}
		})
	}
	// A plain OPTIONS (no preflight) gets the methods.
	res := e.do(http.MethodOptions, endpoint, "", "", "", "")
	if res.status != http.StatusNoContent || res.header.Get("Allow") != "DELETE, OPTIONS, POST" {
		t.Fatalf("OPTIONS: %d Allow %q", res.status, res.header.Get("Allow"))
	}
	// Unidentified callers cannot create.
	res = e.do(http.MethodPost, endpoint, "", "192.0.2.7", "", "")
	if res.status != http.StatusForbidden || res.body["ok"] != false {
		t.Fatalf("unidentified POST: %d %s", res.status, res.raw)
	}
}

func TestCORS(t *testing.T) {
	e := newEnv(t, nil, nil, func(c *sessionmgr.Config) { c.MaxSessions = 1 })
	preflight := func(method, headers string) result {
		req, _ := http.NewRequest(http.MethodOptions, e.srv.URL+endpoint, nil)
		req.Header.Set("Origin", "https://agent.example")
		req.Header.Set("Access-Control-Request-Method", method)
		if headers != "" {
			req.Header.Set("Access-Control-Request-Headers", headers)
		}
		return e.send(req)
	}
	for _, tc := range []struct {
		method, headers string
	}{
		{"DELETE", "x-agent-session"},
		{"POST", "content-type"},
		{"DELETE", "content-type,x-agent-session"},
	} {
		res := preflight(tc.method, tc.headers)
		h := res.header
		if res.status != http.StatusNoContent || h.Get("Access-Control-Allow-Origin") != "*" ||
			h.Get("Access-Control-Allow-Methods") != tc.method ||
			!strings.EqualFold(h.Get("Access-Control-Allow-Headers"), tc.headers) ||
			h.Get("Access-Control-Max-Age") != "600" || h.Get("Access-Control-Allow-Credentials") != "" {
			t.Errorf("preflight %s %s: %d %v", tc.method, tc.headers, res.status, h)
		}
	}
	for _, tc := range []struct{ method, headers string }{{"PUT", ""}, {"DELETE", "authorization"}} {
		res := preflight(tc.method, tc.headers)
		if res.header.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("preflight %s %s allowed: %v", tc.method, tc.headers, res.header)
		}
	}
	// Actual requests: the origin is allowed and Retry-After exposed.
	for range 2 {
		req, _ := http.NewRequest(http.MethodPost, e.srv.URL+endpoint, nil)
		req.Header.Set("Origin", "https://agent.example")
		req.Header.Set(hdrAgent, "shopbot")
		res := e.send(req)
		if res.header.Get("Access-Control-Allow-Origin") != "*" || res.header.Get("Access-Control-Expose-Headers") != "Retry-After" {
			t.Errorf("%d: CORS headers %v", res.status, res.header)
		}
	}
}

func TestStoreFailure(t *testing.T) {
	e := newEnv(t, errStore{errDown}, nil, nil)
	if r := e.create("shopbot", "192.0.2.7", ""); r.status != 503 || r.body["error"] != "session store unavailable" || strings.Contains(r.raw, "down") {
		t.Fatalf("create: %d %s", r.status, r.raw)
	}
	token, _, _ := sessionmgr.NewToken()
	if r := e.do(http.MethodDelete, endpoint, "shopbot", "192.0.2.7", token, ""); r.status != 503 {
		t.Fatalf("DELETE: %d %s", r.status, r.raw)
	}
	if _, err := e.m.Reap(context.Background()); !errors.Is(err, errDown) {
		t.Fatalf("Reap = %v", err)
	}
}

func (reapFails) Reap(context.Context, time.Time, int) ([]*session.Session, error) {
	return nil, errDown
}

func TestErrorStatus(t *testing.T) {
	if s, m := sessionmgr.ErrorStatus(nil); s != 200 || m != "" {
		t.Errorf("nil: %d %q", s, m)
	}
	if s, _ := sessionmgr.ErrorStatus(errDown); s != 503 {
		t.Errorf("store error: %d", s)
	}
	le := &session.LimitError{Soonest: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	if !errors.Is(le, session.ErrTooMany) || !strings.Contains(le.Error(), "2026-01-01T00:00:00Z") {
		t.Errorf("LimitError %q", le)
	}
}

func isBase64URL(s string) bool {
	_, err := base64.RawURLEncoding.DecodeString(s)
	return err == nil && !strings.ContainsAny(s, "+/=")
}

func toStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

func mapsEqual(got map[string]any, want map[string]any) bool {
	if len(got) != len(want) {
		return false
	}
	for k, v := range want {
		if got[k] != v {
			return false
		}
	}
	return true
}
