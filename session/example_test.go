package session_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/agentready/agentready/session"
)

// A handler behind a session-required capability scopes its state to the
// session the middleware found; its test puts a session in the request's
// context as the middleware does.
func ExampleFromContext() {
	carts := map[string][]string{} // by session ID
	addToCart := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s, ok := session.FromContext(r.Context())
		if !ok {
			http.Error(w, "no session", http.StatusUnauthorized)
			return
		}
		carts[s.ID] = append(carts[s.ID], r.URL.Query().Get("item"))
		fmt.Fprintf(w, "%d item(s) in the cart of %s, until %s", len(carts[s.ID]), s.AgentName, s.ExpiresAt.Format(time.RFC3339))
	})

	s := &session.Session{ID: "s1", AgentName: "ShopBot", ExpiresAt: time.Date(2026, 3, 1, 12, 30, 0, 0, time.UTC)}
	req := httptest.NewRequest(http.MethodPost, "/cart?item=mug", nil)
	rec := httptest.NewRecorder()
	addToCart.ServeHTTP(rec, req.WithContext(session.NewContext(req.Context(), s)))
	fmt.Println(rec.Body.String())

	rec = httptest.NewRecorder()
	addToCart.ServeHTTP(rec, req)
	fmt.Print(rec.Code, " ", rec.Body.String())
	// Output:
	// 1 item(s) in the cart of ShopBot, until 2026-03-01T12:30:00Z
	// 401 no session
}
