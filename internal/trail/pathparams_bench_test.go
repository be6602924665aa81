package trail

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/policy"
	"github.com/agentready/agentready/internal/testing/fixtures"
)

// BenchmarkParamTags: what the trail spends finding the path params of a
// recorded call of no capability (every templated endpoint is matched),
// on paths an attacker with a session may send: 100 KB of segments,
// plain, repeating an endpoint, percent-encoded, and with dot segments
// (three readings), against the cards site's four templated endpoints
// and against twenty.
func BenchmarkParamTags(b *testing.B) {
	many := fixtures.OutdoorSupply()
	for i := range 20 {
		many.Capabilities = append(many.Capabilities, config.Capability{ID: fmt.Sprintf("c%d", i), Description: "x",
			Endpoint: fmt.Sprintf("%s/api/v%d/items/{item_id}/parts/{part}", many.URL, i), Method: "GET",
			Params: []config.Param{{Name: "item_id", In: config.InPath}, {Name: "part", In: config.InPath}}})
	}
	p, err := policy.Compile(&many)
	if err != nil {
		b.Fatal(err)
	}
	sites := []struct {
		name string
		p    *policy.Policy
	}{{"4-templates", cardsTrail(b).p}, {"20-templates", p}}
	paths := []struct{ name, path string }{
		{"plain", "/" + strings.Repeat("a/", 50_000)},
		{"endpoint-repeated", "/" + strings.Repeat("api/cards/", 10_000)},
		{"encoded", "/" + strings.Repeat("%41/", 25_000)},
		{"dot-segments", "/" + strings.Repeat("a/../", 20_000)},
	}
	for _, site := range sites {
		for _, path := range paths {
			b.Run(site.name+"/"+path.name, func(b *testing.B) {
				b.SetBytes(int64(len(path.path)))
				for b.Loop() {
					segs := readSegments(path.path)
					for i := range site.p.Capabilities {
						segs.paramTags(nil, &site.p.Capabilities[i])
					}
				}
			})
		}
	}
}
