// Package demo is the application behind the example sites (the Outdoor
// Supply Co. of draft-car Appendix A): a small in-memory product catalog
// behind /api/search, a token endpoint and
// pages agents must not reach, with the little both programs share beyond
// agentready (a decision log, a Redis limit store, a graceful server).
// The declaration and agentready's wiring are in each example's main.go.
// Copy it along with the example you start from.
package demo

import (
	"sort"
	"strings"
)

// Product is one catalog entry.
type Product struct {
	ID       string  `json:"id"`
	Name     string  `json:"name"`
	Category string  `json:"category"`
	PriceUSD float64 `json:"price_usd"`
}

// Catalog is a read-only, in-memory product catalog.
type Catalog struct{ products []Product }

// NewCatalog returns the demo catalog.
func NewCatalog() *Catalog {
	return &Catalog{products: []Product{
		{"tent-2p", "Ridgeline 2-Person Tent", "tents", 249.00},
		{"tent-4p", "Basecamp 4-Person Tent", "tents", 429.00},
		{"bag-20f", "Summit 20°F Sleeping Bag", "sleeping-bags", 189.00},
		{"bag-40f", "Trail 40°F Sleeping Bag", "sleeping-bags", 119.00},
		{"pack-45", "Switchback 45L Backpack", "packs", 179.00},
		{"pack-65", "Expedition 65L Backpack", "packs", 259.00},
		{"stove-can", "Canister Camp Stove", "cooking", 59.00},
		{"filter-sq", "Squeeze Water Filter", "water", 39.00},
		{"lamp-300", "Headlamp 300 lm", "lighting", 34.00},
		{"boots-mid", "Ridge Mid Hiking Boots", "footwear", 165.00},
	}}
}

// Search returns up to limit products whose name or category contains every
// word of q (case-insensitive), optionally restricted to one category.
func (c *Catalog) Search(q, category string, limit int) []Product {
	words := strings.Fields(strings.ToLower(q))
	out := []Product{}
	for _, p := range c.products {
		if category != "" && !strings.EqualFold(p.Category, category) {
			continue
		}
		hay := strings.ToLower(p.Name + " " + p.Category)
		ok := true
		for _, w := range words {
			if !strings.Contains(hay, w) {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, p)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out
}
