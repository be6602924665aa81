package main

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/agentready/agentready"
)

// The README's chi recipe.
func chiRouter(m *agentready.Middleware) {
	r := chi.NewRouter()
	r.Use(m.Handler) // documents first, then enforcement, then your routes
	r.With(m.Capability("product-search")).Get("/api/search", search)
	r.With(m.Capability("store-assistant")).Post("/mcp", mcp)
	http.ListenAndServe(":8080", r)
}

// docs/enforcement.md, "Binding routes".
func bindRoutes(m *agentready.Middleware, mux *http.ServeMux, r chi.Router) {
	mux.Handle("GET /api/search", m.Capability("product-search")(search)) // net/http
	r.With(m.Capability("store-assistant")).Post("/mcp", mcp)             // chi
}
