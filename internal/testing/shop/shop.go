// Package shop is the Acme Ceramics demo shop behind examples/shop and the
// root package's session tests: a small ceramics catalog and per-session
// carts, answering in the agents.txt v0.1.0 interaction envelope
// ({"ok":true,"data":…} / {"ok":false,"error":…}).
//
// It serves the endpoints of internal/testing/fixtures.AcmeCeramics by path. Carts
// are scoped to the session the agentready middleware put in the request
// context (session.FromContext), so one agent's session never sees another's
// cart.
package shop

import (
	"crypto/rand"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentready/agentready/internal/clock"
	"github.com/agentready/agentready/session"
)

// API is the path prefix of the fixture's capability endpoints.
const API = "/.well-known/agents/api/"

// Item is one product of the catalog.
type Item struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Category string `json:"category"`
	Price    string `json:"price"` // a decimal string: money is not a float
	Detail   string `json:"description"`
}

// Catalog is the shop's fixed catalog, in display order.
var Catalog = []Item{
	{ID: "mug-blue", Name: "Blue glazed mug", Category: "mugs", Price: "24.00", Detail: "350 ml stoneware mug, cobalt glaze."},
	{ID: "mug-speckled", Name: "Speckled mug", Category: "mugs", Price: "22.00", Detail: "300 ml mug, speckled oatmeal glaze."},
	{ID: "bowl-ramen", Name: "Ramen bowl", Category: "bowls", Price: "38.00", Detail: "1.2 l bowl, tenmoku glaze."},
	{ID: "bowl-small", Name: "Small serving bowl", Category: "bowls", Price: "18.00", Detail: "12 cm bowl, celadon glaze."},
	{ID: "vase-bud", Name: "Bud vase", Category: "vases", Price: "29.00", Detail: "15 cm porcelain bud vase."},
}

// Shop serves the catalog and the carts. It is safe for concurrent use.
type Shop struct {
	// Origin prefixes handoff URLs ("https://acmeceramics.example.com").
	Origin string
	// Now is the clock of handoff expiry (default time.Now).
	Now func() time.Time

	mu    sync.Mutex
	carts map[string]map[string]int // session ID -> item ID -> quantity
}

// New returns a shop whose handoff URLs start with origin.
func New(origin string) *Shop {
	return &Shop{Origin: strings.TrimSuffix(origin, "/"), carts: map[string]map[string]int{}}
}

// ServeHTTP routes by path and method.
func (s *Shop) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.Method + " " + strings.TrimPrefix(r.URL.Path, API) {
	case "GET search":
		s.search(w, r)
	case "GET browse":
		s.browse(w, r)
	case "GET detail":
		s.detail(w, r)
	case "POST cart/add":
		s.withCart(w, r, s.cartAdd)
	case "GET cart":
		s.withCart(w, r, s.cartView)
	case "PATCH cart/update":
		s.withCart(w, r, s.cartUpdate)
	case "DELETE cart/remove":
		s.withCart(w, r, s.cartRemove)
	case "POST checkout":
		s.withCart(w, r, s.checkout)
	default:
		fail(w, http.StatusNotFound, "no such endpoint")
	}
}

func ok(w http.ResponseWriter, status int, data any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"ok": true, "data": data})
}

func fail(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"ok": false, "error": msg})
}

func find(id string) (Item, bool) {
	i := slices.IndexFunc(Catalog, func(it Item) bool { return it.ID == id })
	if i < 0 {
		return Item{}, false
	}
	return Catalog[i], true
}

func (s *Shop) search(w http.ResponseWriter, r *http.Request) {
	q := strings.ToLower(strings.TrimSpace(r.URL.Query().Get("q")))
	if q == "" {
		fail(w, http.StatusBadRequest, "q is required")
		return
	}
	limit := 20
	if l := r.URL.Query().Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 {
			fail(w, http.StatusBadRequest, "limit must be a positive integer")
			return
		}
		limit = n
	}
	res := []Item{}
	for _, it := range Catalog {
		if len(res) < limit && (strings.Contains(strings.ToLower(it.Name), q) || strings.Contains(strings.ToLower(it.Detail), q) || it.Category == q) {
			res = append(res, it)
		}
	}
	ok(w, http.StatusOK, map[string]any{"items": res})
}

func (s *Shop) browse(w http.ResponseWriter, r *http.Request) {
	cat := r.URL.Query().Get("category")
	res := []Item{}
	for _, it := range Catalog {
		if cat == "" || it.Category == cat {
			res = append(res, it)
		}
	}
	ok(w, http.StatusOK, map[string]any{"items": res, "page": 1})
}

func (s *Shop) detail(w http.ResponseWriter, r *http.Request) {
	it, found := find(r.URL.Query().Get("id"))
	if !found {
		fail(w, http.StatusNotFound, "no such item")
		return
	}
	ok(w, http.StatusOK, it)
}

// withCart runs f with the cart of the request's session. The middleware
// answers 401 before a session-required capability without a session; the
// check here guards a handler mounted without it.
func (s *Shop) withCart(w http.ResponseWriter, r *http.Request, f func(http.ResponseWriter, *http.Request, string, map[string]int)) {
	sess, found := session.FromContext(r.Context())
	if !found {
		fail(w, http.StatusUnauthorized, "this capability needs a session (X-Agent-Session)")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	cart := s.carts[sess.ID]
	if cart == nil {
		cart = map[string]int{}
		s.carts[sess.ID] = cart
	}
	f(w, r, sess.ID, cart)
}

type line struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Price    string `json:"price"`
	Quantity int    `json:"quantity"`
}

func view(cart map[string]int) map[string]any {
	lines := []line{}
	for _, it := range Catalog {
		if q := cart[it.ID]; q > 0 {
			lines = append(lines, line{ID: it.ID, Name: it.Name, Price: it.Price, Quantity: q})
		}
	}
	return map[string]any{"items": lines}
}

type cartBody struct {
	ID       string `json:"id"`
	Quantity *int   `json:"quantity"`
}

func readBody(w http.ResponseWriter, r *http.Request, needQty bool) (cartBody, bool) {
	var b cartBody
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 16<<10)).Decode(&b); err != nil {
		fail(w, http.StatusBadRequest, "body must be a JSON object: "+err.Error())
		return b, false
	}
	if _, found := find(b.ID); !found {
		fail(w, http.StatusNotFound, "no such item")
		return b, false
	}
	if needQty && b.Quantity == nil {
		fail(w, http.StatusBadRequest, "quantity is required")
		return b, false
	}
	if b.Quantity != nil && (*b.Quantity < 0 || *b.Quantity > 99) {
		fail(w, http.StatusBadRequest, "quantity must be between 0 and 99")
		return b, false
	}
	return b, true
}

func (s *Shop) cartAdd(w http.ResponseWriter, r *http.Request, _ string, cart map[string]int) {
	b, good := readBody(w, r, false)
	if !good {
		return
	}
	q := 1
	if b.Quantity != nil {
		q = *b.Quantity
	}
	cart[b.ID] = min(cart[b.ID]+q, 99)
	ok(w, http.StatusOK, view(cart))
}

func (s *Shop) cartView(w http.ResponseWriter, _ *http.Request, _ string, cart map[string]int) {
	ok(w, http.StatusOK, view(cart))
}

func (s *Shop) cartUpdate(w http.ResponseWriter, r *http.Request, _ string, cart map[string]int) {
	b, good := readBody(w, r, true)
	if !good {
		return
	}
	if *b.Quantity == 0 {
		delete(cart, b.ID)
	} else {
		cart[b.ID] = *b.Quantity
	}
	ok(w, http.StatusOK, view(cart))
}

func (s *Shop) cartRemove(w http.ResponseWriter, r *http.Request, _ string, cart map[string]int) {
	b, good := readBody(w, r, false)
	if !good {
		return
	}
	delete(cart, b.ID)
	ok(w, http.StatusOK, view(cart))
}

// checkout answers the v0.1.0 human-handoff envelope: the agent must pass
// handoff_url to a human, who completes the purchase. The middleware ends
// the session after this 2xx answer (the capability is human_handoff),
// which seals the audit trail.
func (s *Shop) checkout(w http.ResponseWriter, _ *http.Request, id string, cart map[string]int) {
	if len(cart) == 0 {
		fail(w, http.StatusConflict, "the cart is empty")
		return
	}
	now := clock.Or(s.Now)
	ok(w, http.StatusOK, map[string]any{
		"handoff_url": s.Origin + "/checkout/" + rand.Text(),
		"expires_at":  now().UTC().Add(15 * time.Minute).Format("2006-01-02T15:04:05Z"),
		"message":     "Open this link to review the cart and pay; it is valid for 15 minutes.",
	})
	delete(s.carts, id)
}
