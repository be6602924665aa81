package demo

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync"
)

// App holds the demo application's state.
type App struct {
	Catalog *Catalog
	tokens  sync.Map // issued bearer tokens
}

// NewApp returns the demo application.
func NewApp() *App { return &App{Catalog: NewCatalog()} }

// Search serves GET /api/search?q=...&limit=...&category=... (the
// product-search capability of draft-car Appendix A).
func (a *App) Search(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("q") == "" {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "parameter q is required"})
		return
	}
	limit := 20
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 100 {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "limit must be a whole number from 1 to 100"})
			return
		}
		limit = n
	}
	writeJSON(w, http.StatusOK, map[string]any{"results": a.Catalog.Search(q.Get("q"), q.Get("category"), limit)})
}

// Token serves POST /auth/token: it issues a demo bearer token (the
// Auth-Endpoint of store-assistant).
func (a *App) Token(w http.ResponseWriter, r *http.Request) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		http.Error(w, "token generation failed", http.StatusInternalServerError)
		return
	}
	tok := hex.EncodeToString(b[:])
	a.tokens.Store(tok, true)
	writeJSON(w, http.StatusOK, map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": 3600})
}

// ValidToken reports whether tok was issued by Token.
func (a *App) ValidToken(tok string) bool {
	_, ok := a.tokens.Load(tok)
	return ok
}

// Private serves /admin/ and /internal/: pages for people, closed to agents
// by the declaration's Disallow lines.
func (a *App) Private(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	fmt.Fprintf(w, "private page %s (staff only)\n", r.URL.Path)
}

// Home serves / for people.
func (a *App) Home(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/" {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprint(w, `<!doctype html><title>Outdoor Supply Co.</title>
<h1>Outdoor Supply Co.</h1><p>Gear for outdoor adventures.</p>
<p>Agents: see <a href="/.well-known/agents.txt">agents.txt</a>,
<a href="/.well-known/agents.json">agents.json</a>,
<a href="/.well-known/agents.md">agents.md</a>,
<a href="/agent.json">agent.json</a>.</p>`)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
