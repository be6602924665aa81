package verifier

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentready/agentready/internal/testing/logbuf"
	"github.com/agentready/agentready/internal/webbotauth"
)

func readCard(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/cards/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The draft's own examples (testdata/cards/README.md).
func TestParseCardDraftExamples(t *testing.T) {
	c, err := ParseCard(readCard(t, "section3-example.json"))
	want := Card{URL: "https://example.com/bot", Purpose: "user-agent", Trigger: "fetcher",
		ProductToken: "ExampleBot", IPsURI: "https://example.com/ips.json"}
	if err != nil || c != want {
		t.Errorf("section 3 example: %+v, %v; want %+v", c, err, want)
	}
	c, err = ParseCard(readCard(t, "section4.1-cimd.json"))
	want = Card{URL: "https://example.com/bot", Purpose: "user-agent", Trigger: "fetcher"}
	if err != nil || c != want {
		t.Errorf("section 4.1 example: %+v, %v; want %+v", c, err, want)
	}
	if _, err := ParseCard(readCard(t, "section4-inline-registry-entry.json")); err == nil || !strings.Contains(err.Error(), "client_id") {
		t.Errorf("an inline registry entry without client_id: %v", err)
	}
}

// Each purpose and trigger the draft allows, mapped (cardPurpose's comment).
func TestCardPurpose(t *testing.T) {
	for _, c := range []struct{ purpose, trigger, want string }{
		{"train-ai", "crawler", "training-crawler"},
		{"train-ai", "", "training-crawler"},
		{"train-ai", "fetcher", "training-crawler"},
		{"Train-GenAI", "crawler", "training-crawler"},
		{"search", "crawler", "search-crawler"},
		{" search ", "", "search-crawler"},
		{"search", "fetcher", "user-agent"},
		{"ai-use", "fetcher", "user-agent"},
		{"", "fetcher", "user-agent"},
		{"ai-use", "crawler", ""},
		{"SEO analysis", "crawler", ""},
		{"", "", ""},
	} {
		body := `{"client_id": "https://agent.example/card", "web_bot_auth": {"purpose": "` + c.purpose + `", "trigger": "` + c.trigger + `"}}`
		card, err := ParseCard([]byte(body))
		if err != nil || card.Purpose != c.want {
			t.Errorf("purpose %q, trigger %q: %q, %v; want %q", c.purpose, c.trigger, card.Purpose, err, c.want)
		}
	}
	// A trigger the draft does not define is ignored (3); a purpose that
	// is not a string (-04 leaves an array open, 3.2.5) is too.
	card, err := ParseCard([]byte(`{"client_id": "https://agent.example/card", "web_bot_auth": {"trigger": "cron", "purpose": ["search", "train-ai"]}}`))
	if err != nil || card.Trigger != "" || card.Purpose != "" {
		t.Errorf("unknown trigger, array purpose: %+v, %v", card, err)
	}
}

func TestParseCardRefuses(t *testing.T) {
	for name, body := range map[string]string{
		"empty":                  ``,
		"oversize":               `{"client_id": "https://agent.example/card", "client_name": "` + strings.Repeat("x", MaxCardBytes) + `"}`,
		"not JSON":               `client_id=https://agent.example/card`,
		"an array":               `[{"client_id": "https://agent.example/card"}]`,
		"trailing data":          `{"client_id": "https://agent.example/card"} {}`,
		"no parameter":           `{}`,
		"no client_id":           `{"client_name": "Example Bot"}`,
		"client_id not a string": `{"client_id": 7}`,
		"client_id plain http":   `{"client_id": "http://agent.example/card"}`,
		"client_id relative":     `{"client_id": "/card"}`,
		"client_id fragment":     `{"client_id": "https://agent.example/card#x"}`,
		"jwks and jwks_uri":      `{"client_id": "https://agent.example/card", "jwks": {"keys": []}, "jwks_uri": "https://agent.example/jwks.json"}`,
		"jwks_uri plain http":    `{"client_id": "https://agent.example/card", "jwks_uri": "http://agent.example/jwks.json"}`,
		"web_bot_auth a string":  `{"client_id": "https://agent.example/card", "web_bot_auth": "crawler"}`,
		"ips_uri plain http":     `{"client_id": "https://agent.example/card", "web_bot_auth": {"ips_uri": "http://agent.example/ips.json"}}`,
		"ips_uri not a string":   `{"client_id": "https://agent.example/card", "web_bot_auth": {"ips_uri": ["https://agent.example/ips.json"]}}`,
		"product token spaced":   `{"client_id": "https://agent.example/card", "web_bot_auth": {"rfc9309-product-token": "Example Bot"}}`,
		"product token a number": `{"client_id": "https://agent.example/card", "web_bot_auth": {"rfc9309-product-token": 1}}`,
		"trigger a number":       `{"client_id": "https://agent.example/card", "web_bot_auth": {"trigger": 1}}`,
	} {
		if c, err := ParseCard([]byte(body)); err == nil {
			t.Errorf("%s: accepted as %+v", name, c)
		}
	}
	// Loopback http is the fetcher's business (AllowHTTPLoopback).
	if _, err := ParseCard([]byte(`{"client_id": "http://127.0.0.1:8080/card", "web_bot_auth": {"ips_uri": "http://[::1]/ips.json"}}`)); err != nil {
		t.Errorf("loopback http: %v", err)
	}
}

func FuzzParseCard(f *testing.F) {
	f.Add([]byte(`{"client_id": "https://agent.example/card", "web_bot_auth": {"purpose": "search"}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := ParseCard(b)
		if err == nil && c.URL == "" {
			t.Fatal("a card without client_id accepted")
		}
	})
}

// cardServer serves cards by path; a path not set answers 404. It counts
// the requests of each path.
type cardServer struct {
	*httptest.Server
	mu       sync.Mutex
	handlers map[string]http.HandlerFunc
	hits     map[string]int
}

func newCardServer(t *testing.T) *cardServer {
	cs := &cardServer{handlers: map[string]http.HandlerFunc{}, hits: map[string]int{}}
	cs.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cs.mu.Lock()
		cs.hits[r.URL.Path]++
		h := cs.handlers[r.URL.Path]
		cs.mu.Unlock()
		if h == nil {
			http.NotFound(w, r)
			return
		}
		h(w, r)
	}))
	t.Cleanup(cs.Close)
	return cs
}

func (cs *cardServer) set(path string, h http.HandlerFunc) {
	cs.mu.Lock()
	cs.handlers[path] = h
	cs.mu.Unlock()
}

// serve makes path answer body, with Cache-Control cc when not empty.
func (cs *cardServer) serve(path, body, cc string) {
	cs.set(path, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if cc != "" {
			w.Header().Set("Cache-Control", cc)
		}
		w.Write([]byte(body))
	})
}

func (cs *cardServer) count(path string) int {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.hits[path]
}

// draftCard is the section 3 example card as served at base+"/bot".
func draftCard(t *testing.T, base string) string {
	return strings.ReplaceAll(string(readCard(t, "section3-example.json")), "https://example.com", base)
}

func testCards(t *testing.T, agents ...string) (*cards, *logbuf.Buffer) {
	t.Helper()
	logs := &logbuf.Buffer{}
	f := &fetcher{client: defaultClient(), allowHTTPLoopback: true, maxBytes: MaxRangesBytes, now: time.Now}
	return newCards(agents, f, slog.New(slog.NewTextHandler(logs, nil)), time.Now), logs
}

func agentURL(t *testing.T, s string) string {
	t.Helper()
	u, err := webbotauth.AgentURL(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestCardsLoad(t *testing.T) {
	cs := newCardServer(t)
	bot := cs.URL + "/bot"
	cs.serve("/bot", draftCard(t, cs.URL), "")
	c, logs := testCards(t, bot)
	if _, ok := c.card(agentURL(t, bot)); ok {
		t.Fatal("a card before any load")
	}
	if err := c.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	got, ok := c.card(agentURL(t, bot))
	want := Card{URL: bot, Purpose: "user-agent", Trigger: "fetcher", ProductToken: "ExampleBot", IPsURI: cs.URL + "/ips.json"}
	if !ok || got != want {
		t.Fatalf("card = %+v, %v; want %+v", got, ok, want)
	}
	key := agentURL(t, bot)
	if n := testing.AllocsPerRun(100, func() { c.card(key) }); n != 0 {
		t.Errorf("card allocates %v times", n)
	}

	// A refresh that fails, however, keeps the last good copy, and each
	// failure is logged once.
	failures := map[string]func(){
		"404":      func() { cs.set("/bot", http.NotFound) },
		"503":      func() { cs.set("/bot", func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "down", 503) }) },
		"bad JSON": func() { cs.serve("/bot", `{"client_id": `, "") },
		"oversize": func() {
			cs.serve("/bot", strings.Replace(draftCard(t, cs.URL), `"client_name"`, `"x": "`+strings.Repeat("x", MaxCardBytes)+`", "client_name"`, 1), "")
		},
		"another client_id": func() { cs.serve("/bot", strings.ReplaceAll(draftCard(t, cs.URL), cs.URL+"/bot", cs.URL+"/other"), "") },
		"redirect": func() {
			cs.set("/bot", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/moved", http.StatusFound) })
			cs.serve("/moved", draftCard(t, cs.URL), "")
		},
	}
	for name, fail := range failures {
		fail()
		before := logs.Count("loading a Signature Agent Card failed")
		if err := c.Load(context.Background()); err == nil {
			t.Errorf("%s: loaded", name)
		}
		if n := logs.Count("loading a Signature Agent Card failed") - before; n != 1 {
			t.Errorf("%s: logged %d times", name, n)
		}
		if got, ok := c.card(agentURL(t, bot)); !ok || got != want {
			t.Errorf("%s: card = %+v, %v; want the last good copy", name, got, ok)
		}
	}
	if n := cs.count("/moved"); n != 0 {
		t.Errorf("a redirect was followed %d times", n)
	}
	// A new card replaces the old.
	cs.serve("/bot", strings.Replace(draftCard(t, cs.URL), `"trigger": "fetcher"`, `"trigger": "crawler"`, 1), "")
	if err := c.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got, _ := c.card(agentURL(t, bot)); got.Purpose != "search-crawler" || got.Trigger != "crawler" {
		t.Errorf("after a refresh: %+v", got)
	}
}

// A card never loaded is not served; the URL's other spellings find the
// same card.
func TestCardsNeverLoaded(t *testing.T) {
	cs := newCardServer(t)
	c, logs := testCards(t, cs.URL+"/missing")
	if err := c.Load(context.Background()); err == nil || logs.Count("loading a Signature Agent Card failed") != 1 {
		t.Fatalf("a 404: %v", err)
	}
	if _, ok := c.card(agentURL(t, cs.URL+"/missing")); ok {
		t.Error("a card that never loaded is served")
	}
	cs.serve("/missing", strings.ReplaceAll(draftCard(t, cs.URL), "/bot", "/missing"), "")
	if err := c.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	spelled := strings.Replace(cs.URL, "http://", "HTTP://", 1) + "/./missing?x=1"
	if _, ok := c.card(agentURL(t, spelled)); !ok {
		t.Errorf("%s does not find the card", spelled)
	}
}

// Only the agents given are fetched: not another URL a request names, not
// a key directory (no card to find), not a URL the fetcher refuses.
func TestCardsUntrustedNeverFetched(t *testing.T) {
	cs := newCardServer(t)
	cs.serve("/bot", draftCard(t, cs.URL), "")
	cs.serve("/other", strings.ReplaceAll(draftCard(t, cs.URL), "/bot", "/other"), "")
	cs.serve(webbotauth.DirectoryPath, `{"keys": []}`, "")
	c, _ := testCards(t, cs.URL+"/bot", cs.URL, cs.URL+webbotauth.DirectoryPath, "http://agent.example/card", "not a URL")
	if len(c.entries) != 1 {
		t.Fatalf("%d entries, want the one card URL", len(c.entries))
	}
	if err := c.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.card(agentURL(t, cs.URL+"/other")); ok {
		t.Error("an untrusted agent's card is served")
	}
	if _, ok := c.card(agentURL(t, cs.URL)); ok {
		t.Error("a key directory has a card")
	}
	if n := cs.count("/other") + cs.count(webbotauth.DirectoryPath) + cs.count("/"); n != 0 {
		t.Errorf("untrusted URLs fetched %d times", n)
	}
	if n := cs.count("/bot"); n != 1 {
		t.Errorf("the trusted card fetched %d times, want 1", n)
	}
}

func TestCardsRefreshAfter(t *testing.T) {
	c, _ := testCards(t)
	for cc, want := range map[string]time.Duration{
		"":                         24 * time.Hour,
		"max-age=7200":             2 * time.Hour,
		"public, max-age=86400000": 7 * 24 * time.Hour,
		"max-age=60":               time.Hour,
		"no-cache":                 time.Hour,
		"no-store, max-age=7200":   time.Hour,
		"max-age=-1":               24 * time.Hour,
		"max-age=nonsense":         24 * time.Hour,
	} {
		h := http.Header{}
		if cc != "" {
			h.Set("Cache-Control", cc)
		}
		if got := c.refreshAfter(h); got != want {
			t.Errorf("Cache-Control %q: %v, want %v", cc, got, want)
		}
	}
}

// run loads at once, refreshes when due (here: at once, as max-age=0 asks
// and a shortened minimum allows), keeps the last good copy when a refresh
// fails, and stops with its context.
func TestCardsRun(t *testing.T) {
	cs := newCardServer(t)
	bot := cs.URL + "/bot"
	cs.serve("/bot", draftCard(t, cs.URL), "max-age=0")
	c, _ := testCards(t, bot)
	c.minEvery = time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	var done atomic.Bool
	go func() { c.Run(ctx); done.Store(true) }()
	waitCard(t, func() bool { return cs.count("/bot") >= 3 })
	if _, ok := c.card(agentURL(t, bot)); !ok {
		t.Fatal("run loaded no card")
	}
	cs.set("/bot", http.NotFound)
	n := cs.count("/bot")
	waitCard(t, func() bool { return cs.count("/bot") >= n+2 })
	if got, ok := c.card(agentURL(t, bot)); !ok || got.ProductToken != "ExampleBot" {
		t.Errorf("after failed refreshes: %+v, %v", got, ok)
	}
	cancel()
	waitCard(t, done.Load)
}

func waitCard(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
		time.Sleep(time.Millisecond)
	}
}

// TestCardsRunPinnedClock: on a verifier's clock that stands still, run
// still refreshes (the interval passes on the runtime's clock), and a card
// loaded says the set clock's time.
func TestCardsRunPinnedClock(t *testing.T) {
	cs := newCardServer(t)
	bot := cs.URL + "/bot"
	cs.serve("/bot", draftCard(t, cs.URL), "max-age=0")
	c, _ := testCards(t, bot)
	pinned := time.Now().Add(-365 * 24 * time.Hour)
	c.now = func() time.Time { return pinned }
	c.minEvery = 20 * time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	var done atomic.Bool
	go func() { c.Run(ctx); done.Store(true) }()
	waitCard(t, func() bool { return cs.count("/bot") >= 3 })
	e := c.entries[agentURL(t, bot)]
	e.mu.Lock()
	loaded := e.loaded
	e.mu.Unlock()
	if !loaded.Equal(pinned) {
		t.Errorf("loaded at %v, the verifier's clock says %v", loaded, pinned)
	}
	cancel()
	waitCard(t, done.Load)
}
