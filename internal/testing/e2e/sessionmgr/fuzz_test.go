package sessionmgr_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/sessionmgr"
	"github.com/agentready/agentready/session"
)

// FuzzCreateBody: any body yields 201 with a token, or 400/413 with the
// error envelope; never a panic, never another status.
func FuzzCreateBody(f *testing.F) {
	for _, s := range []string{"", "{}", "null", `{"agent_name":"a","agent_version":"1","purpose":"p"}`, `{"purpose":`, "[1]", `{"a":{"b":[{}]}}`, "\xff", `"\ud800"`} {
		f.Add(s)
	}
	m := sessionmgr.MustNew(sessionmgr.Config{})
	h := m.Handler(benchIdentify)
	f.Fuzz(func(t *testing.T, body string) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body)))
		var env struct {
			OK    bool   `json:"ok"`
			Error string `json:"error"`
			Data  struct {
				Token string `json:"session_token"`
			} `json:"data"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &env); err != nil {
			t.Fatalf("%d: undecodable answer %q", rec.Code, rec.Body)
		}
		switch rec.Code {
		case http.StatusCreated:
			if !env.OK || len(env.Data.Token) != sessionmgr.TokenLen {
				t.Fatalf("201 without a token: %s", rec.Body)
			}
			// Keep the store small across iterations.
			del := httptest.NewRequest(http.MethodDelete, "/", nil)
			del.Header.Set(session.HeaderSession, env.Data.Token)
			h.ServeHTTP(httptest.NewRecorder(), del)
		case http.StatusBadRequest, http.StatusRequestEntityTooLarge:
			if env.OK || env.Error == "" {
				t.Fatalf("%d without an error: %s", rec.Code, rec.Body)
			}
		default:
			t.Fatalf("status %d for %q", rec.Code, body)
		}
	})
}
