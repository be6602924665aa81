package verifier

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentready/agentready/internal/clock"
	"github.com/agentready/agentready/internal/webbotauth"
)

// Signature Agent Cards, as draft-meunier-webbotauth-registry-04 defines
// them (read in the editor's copy, thibmeu/http-message-signatures-
// directory a28dfe8, whose changelog lists -04; no published -04 was found,
// the published -03 has the same card and discovery). A card is an OAuth
// Client ID Metadata Document (3) with a "web_bot_auth" object (3.2)
// holding what the agent's operator declares: its trigger, purpose,
// robots.txt product token and IP list.
//
// How a site finds one (4, 4.1, 4.5): a card is reached by dereferencing
// its client_id, an https URL, which an agent names in its Signature-Agent
// header member with type=cimd (draft-meunier-webbotauth-httpsig-protocol,
// editor's copy, 5.5: "Resolve the member value as a Client ID Metadata
// Document URI"), or which a registry or the site lists. A key directory
// (type=directory, the well-known URI) or a bare JWK Set (type=jwks_uri)
// links to no card: the draft keeps the card and the key set "distinct
// resources reached at different hops" (4.1), the card pointing at the
// keys (jwks_uri) and not the other way. So a card is fetched only for a
// trusted agent whose URL is a card's client_id; a trusted agent named by
// its origin (a key directory) has none to fetch.
//
// The fetch follows 3.1.1 and 4.1: GET, a 200 and nothing else, no
// redirect followed, and the document's client_id identical to the URL
// fetched (RFC 3986 6.2.1, simple string comparison), so that one agent's
// URL cannot serve another's card.

// MaxCardBytes bounds a card. The draft's examples are a few hundred bytes;
// an inline JWK Set of a few keys stays far below this.
const MaxCardBytes = 64 << 10

// Card is what a trusted agent's Signature Agent Card declares, in the
// terms agentready enforces.
type Card struct {
	// URL is the card's client_id, the URL it was fetched from.
	URL string
	// Purpose is the agent's purpose in agentready's names
	// ("training-crawler", "search-crawler", "user-agent"), "" when the
	// card declares none of these; see cardPurpose.
	Purpose string
	// Trigger is the card's trigger, "fetcher" or "crawler" (3.2.4), ""
	// when absent or another value (3: a value not understood is ignored).
	Trigger string
	// ProductToken is the card's rfc9309-product-token (3.2.2), the name
	// the agent answers to in robots.txt and its User-Agent.
	ProductToken string
	// IPsURI is the card's ips_uri (3.2.10): the agent's IP list, in the
	// JAFAR format parseRanges reads.
	IPsURI string
}

// ParseCard parses a Signature Agent Card fetched through its client_id.
// It is strict where the draft says MUST: a JSON object of at most
// MaxCardBytes with at least one parameter (3); a client_id, since a card
// retrieved through its client_id MUST carry one (3.1.1); jwks_uri and
// ips_uri https (3.1.2, 3.2.10); not both jwks and jwks_uri (3.1.2: MUST
// NOT, clients SHOULD reject); web_bot_auth an object (3.2). Members it does
// not use are ignored, as 3 and 3.2 require. The URLs may also be plain
// http to a loopback host, which the fetcher only fetches when told to.
func ParseCard(body []byte) (Card, error) {
	var c Card
	if len(body) == 0 || len(body) > MaxCardBytes {
		return c, fmt.Errorf("verify: Signature Agent Card: %d bytes, want 1 to %d", len(body), MaxCardBytes)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(body, &doc); err != nil {
		return c, fmt.Errorf("verify: Signature Agent Card: %w", err)
	}
	if len(doc) == 0 {
		return c, errors.New("verify: Signature Agent Card: no parameter (3: there MUST be at least one)")
	}
	var err error
	if c.URL, err = cardString(doc, "client_id"); err != nil {
		return c, err
	}
	if c.URL == "" {
		return c, errors.New("verify: Signature Agent Card: no client_id (3.1.1: a card retrieved through its client_id MUST include it)")
	}
	if err := checkCardURL("client_id", c.URL); err != nil {
		return c, err
	}
	if _, both := doc["jwks"]; both {
		if _, uri := doc["jwks_uri"]; uri {
			return c, errors.New("verify: Signature Agent Card: both jwks and jwks_uri (3.1.2: a card MUST NOT contain both)")
		}
	}
	if u, err := cardString(doc, "jwks_uri"); err != nil {
		return c, err
	} else if u != "" {
		if err := checkCardURL("jwks_uri", u); err != nil {
			return c, err
		}
	}
	raw, ok := doc["web_bot_auth"]
	if !ok || string(raw) == "null" {
		return c, nil
	}
	var wba map[string]json.RawMessage
	if err := json.Unmarshal(raw, &wba); err != nil {
		return c, errors.New("verify: Signature Agent Card: web_bot_auth is not an object (3.2)")
	}
	trigger, err := cardString(wba, "trigger")
	if err != nil {
		return c, err
	}
	if trigger == "fetcher" || trigger == "crawler" {
		c.Trigger = trigger
	}
	// purpose is left open by -04 ("TODO: consider an array", 3.2.5): a
	// value other than a string is a value not understood, ignored (3).
	var purpose string
	if p, ok := wba["purpose"]; ok {
		_ = json.Unmarshal(p, &purpose)
	}
	c.Purpose = cardPurpose(purpose, c.Trigger)
	if c.ProductToken, err = cardString(wba, "rfc9309-product-token"); err != nil {
		return c, err
	}
	if c.ProductToken != "" && !productToken(c.ProductToken) {
		return c, fmt.Errorf("verify: Signature Agent Card: rfc9309-product-token %q is not a product token (RFC 9309 2.2.1: letters, \"-\" and \"_\")", c.ProductToken)
	}
	if c.IPsURI, err = cardString(wba, "ips_uri"); err != nil {
		return c, err
	}
	if c.IPsURI != "" {
		if err := checkCardURL("ips_uri", c.IPsURI); err != nil {
			return c, err
		}
	}
	return c, nil
}

// cardPurpose maps a card's purpose and trigger to agentready's purposes.
// The draft gives purpose no fixed vocabulary: it "describes the intended
// use of collected data", its example is "search", and it names the AI
// Preferences vocabulary as one candidate (3.2.5). The trigger is
// "fetcher", a request initiated by the user, or "crawler", autonomous
// scanning (3.2.4). So:
//
//   - purpose "train-ai" (draft-ietf-aipref-vocab-08 4.1) or "train-genai"
//     (its earlier revisions) -> "training-crawler", whatever the trigger:
//     the declared use of what is fetched is training, which is what a
//     train-ai=n preference refuses;
//   - otherwise trigger "fetcher" -> "user-agent", whatever the purpose: a
//     fetch a person asked for, as the known-agent data reads the
//     operators' user-triggered fetchers;
//   - otherwise purpose "search" (vocab-08 4.3; the draft's example) ->
//     "search-crawler", the trigger being "crawler" or not said;
//   - anything else ("ai-use", free text, none) -> "": no purpose
//     agentready enforces a preference against, as for an agent the
//     known-agent data gives none.
//
// Values are compared without regard to case or surrounding space.
func cardPurpose(purpose, trigger string) string {
	switch strings.ToLower(strings.TrimSpace(purpose)) {
	case "train-ai", "train-genai":
		return "training-crawler"
	case "search":
		if trigger != "fetcher" {
			return "search-crawler"
		}
	}
	if trigger == "fetcher" {
		return "user-agent"
	}
	return ""
}

// cardString reads an optional string member: "" when absent or null, an
// error when of another type.
func cardString(m map[string]json.RawMessage, name string) (string, error) {
	raw, ok := m[name]
	if !ok || string(raw) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("verify: Signature Agent Card: %s is not a string", name)
	}
	return s, nil
}

// checkCardURL accepts an absolute https URL (the draft's MUST for
// client_id, jwks_uri and ips_uri), or http to a loopback host.
func checkCardURL(name, s string) error {
	if _, err := webbotauth.AgentURL(s); err != nil {
		return fmt.Errorf("verify: Signature Agent Card: %s %q: %v", name, s, err)
	}
	scheme, rest, _ := strings.Cut(s, "://")
	if strings.EqualFold(scheme, "https") {
		return nil
	}
	host, _, _ := strings.Cut(rest, "/")
	host, _, _ = strings.Cut(host, "?")
	if webbotauth.IsLoopback(host) {
		return nil
	}
	return fmt.Errorf("verify: Signature Agent Card: %s %q is not an https URL", name, s)
}

// productToken reports whether s is an RFC 9309 2.2.1 identifier.
func productToken(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '-' || c == '_') {
			return false
		}
	}
	return s != ""
}

// Refresh intervals of a card: every 24 hours unless its response says
// otherwise in Cache-Control (registry-04 4.4.3: clients SHOULD respect
// it and not poll more often than it indicates), never more often than
// hourly nor less than weekly; a failed fetch is retried after the minimum.
const (
	defaultCardRefresh = 24 * time.Hour
	minCardRefresh     = time.Hour
	maxCardRefresh     = 7 * 24 * time.Hour
)

// cards holds the Signature Agent Cards of the trusted agents whose URL is
// a card's client_id, fetched by Load and refreshed by Run, never on the
// request path: card reads the copy loaded last, without a lock. An agent
// URL not given to newCards is never fetched. A card that fails to load or
// parse is logged, once per failed fetch, and the last good copy keeps
// serving.
type cards struct {
	f       *fetcher
	log     *slog.Logger
	now     func() time.Time
	entries map[string]*cardEntry // by AgentURL form; not written after newCards

	// Refresh bounds, fields so that tests can shorten them.
	every, minEvery, maxEvery time.Duration
}

type cardEntry struct {
	url string // as configured: fetched as it is, compared with client_id
	cur atomic.Pointer[Card]

	mu     sync.Mutex    // serialises loads of this card
	tried  clock.Stamp   // the last load; zero: run fetches it at once
	after  time.Duration // run fetches it again this long after tried (clock.Stamp.Sub)
	loaded time.Time     // last successful load, by the verifier's clock
	err    error         // last load's error
}

// newCards makes the cards of agents, the Signature-Agent URLs the site or
// the shipped operator data trusts. Entries that are not a card's URL are
// skipped, with a log line saying why: one that does not parse or that
// the fetcher would not fetch, and a key directory (a bare origin or the
// well-known URI), which has no card (see above). Nothing is fetched here.
func newCards(agents []string, f *fetcher, log *slog.Logger, now func() time.Time) *cards {
	now = clock.Or(now)
	c := &cards{f: f, log: log, now: now, entries: make(map[string]*cardEntry, len(agents)),
		every: defaultCardRefresh, minEvery: minCardRefresh, maxEvery: maxCardRefresh}
	for _, a := range agents {
		key, err := webbotauth.AgentURL(a)
		if err == nil {
			err = f.checkURL(a)
		}
		if err != nil {
			log.Warn("agentready: a trusted agent URL is not fetched for a Signature Agent Card", "url", a, "err", err)
			continue
		}
		if !strings.Contains(strings.TrimPrefix(strings.TrimPrefix(key, "https://"), "http://"), "/") {
			log.Debug("agentready: a key directory has no Signature Agent Card (draft-meunier-webbotauth-registry-04 4.1)", "url", a)
			continue
		}
		if _, dup := c.entries[key]; !dup {
			c.entries[key] = &cardEntry{url: a}
		}
	}
	return c
}

// card returns the last good card of agentURL, in the form
// webbotauth.AgentURL returns. It does not lock or allocate.
func (c *cards) card(agentURL string) (Card, bool) {
	e, ok := c.entries[agentURL]
	if !ok {
		return Card{}, false
	}
	p := e.cur.Load()
	if p == nil {
		return Card{}, false
	}
	return *p, true
}

// Load fetches every card once, at the same time, and returns their errors
// joined. A card that fails keeps its last good copy.
func (c *cards) Load(ctx context.Context) error {
	errs := make([]error, len(c.entries))
	var wg sync.WaitGroup
	i := 0
	for _, e := range c.entries {
		err := &errs[i]
		wg.Go(func() { *err = c.loadOne(ctx, e) })
		i++
	}
	wg.Wait()
	return errors.Join(errs...)
}

// loadOne fetches and parses one card and, on success, makes it the copy
// served.
func (c *cards) loadOne(ctx context.Context, e *cardEntry) error {
	var card Card
	_, h, body, err := webbotauth.Get(ctx, c.f.client, e.url, "application/json", MaxCardBytes)
	if err == nil {
		card, err = ParseCard(body)
	}
	if err == nil && card.URL != e.url {
		// 3.1.1: identical to the URL used to retrieve it.
		err = fmt.Errorf("client_id %q is not the URL fetched (draft-meunier-webbotauth-registry-04 3.1.1)", card.URL)
	}
	now := clock.Read(c.now)
	e.mu.Lock()
	defer e.mu.Unlock()
	e.err, e.tried = err, now
	if err != nil {
		e.after = c.minEvery
		c.log.Warn("agentready: loading a Signature Agent Card failed; the last good copy keeps serving",
			"url", e.url, "err", err, "loaded", e.loaded)
		return fmt.Errorf("verify: Signature Agent Card %s: %w", e.url, err)
	}
	e.cur.Store(&card)
	e.loaded, e.after = now.Wall, c.refreshAfter(h)
	return nil
}

// dueIn is how long from now run waits before it fetches e again (0 or
// less: now).
func (c *cards) dueIn(e *cardEntry, now clock.Stamp) time.Duration {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.tried.IsZero() {
		return 0
	}
	return e.after - now.Sub(e.tried)
}

// refreshAfter is how long a card is kept before it is fetched again: its
// Cache-Control max-age (RFC 9111 5.2.2.1) when it has one, else the
// default, within the bounds. no-cache and no-store ask for the minimum.
func (c *cards) refreshAfter(h http.Header) time.Duration {
	d := c.every
	for _, dir := range strings.Split(h.Get("Cache-Control"), ",") {
		name, val, _ := strings.Cut(strings.TrimSpace(dir), "=")
		switch strings.ToLower(name) {
		case "no-cache", "no-store":
			return c.minEvery
		case "max-age":
			if n, err := strconv.ParseInt(strings.Trim(val, `"`), 10, 64); err == nil && n >= 0 {
				d = time.Duration(min(n, int64(c.maxEvery/time.Second))) * time.Second
			}
		}
	}
	return max(c.minEvery, min(d, c.maxEvery))
}

// Run fetches each card when it is due (at once for a card never loaded),
// until ctx is done. A refresh interval passes on either clock
// (clock.Stamp.Sub): a verifier's clock that stands still does not stop
// them.
func (c *cards) Run(ctx context.Context) {
	if len(c.entries) == 0 {
		return
	}
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		for _, e := range c.entries {
			if c.dueIn(e, clock.Read(c.now)) <= 0 && ctx.Err() == nil {
				_ = c.loadOne(ctx, e)
			}
		}
		now := clock.Read(c.now)
		wait := c.maxEvery
		for _, e := range c.entries {
			wait = min(wait, c.dueIn(e, now))
		}
		t.Reset(max(0, wait))
	}
}
