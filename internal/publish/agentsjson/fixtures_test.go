package agentsjson

import (
	"bytes"
	"testing"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/testing/fixtures"
	"github.com/agentready/agentready/internal/testing/schematest"
)

// TestFixturesValidate renders the agents.json companion of every fixture
// whose Formats publish one and validates it against its dialect's schema.
// Fixtures whose ids fit only their own dialect are rendered only in it.
func TestFixturesValidate(t *testing.T) {
	schemas := map[config.Dialect]string{
		config.DialectIETFDraft: "draft-car_agents-json.schema.json",
		config.DialectV010:      "agents-protocol_agents.schema.json",
	}
	renderers := map[config.Dialect]func(*config.Site) ([]byte, error){
		config.DialectIETFDraft: DraftCar,
		config.DialectV010:      V010,
	}
	rendered := map[config.Dialect]int{}
	for _, f := range fixtures.All() {
		if !f.Formats.Serves(config.DocAgentsJSON) || f.Formats.AgentsJSON != config.AgentsJSONCompanion {
			continue
		}
		t.Run(f.Name+"/"+f.Formats.Dialect.String(), func(t *testing.T) {
			doc, err := renderers[f.Formats.Dialect](&f.Site)
			if err != nil {
				t.Fatal(err)
			}
			schematest.Validate(t, schemas[f.Formats.Dialect], doc)
			if !bytes.HasSuffix(doc, []byte("}\n")) {
				t.Error("document does not end with a newline")
			}
		})
		rendered[f.Formats.Dialect]++
	}
	for d := range schemas {
		if rendered[d] == 0 {
			t.Errorf("no fixture exercises the %s agents.json", d)
		}
	}
}

// TestDeterministic renders every fixture twice in both dialects it fits
// and wants identical bytes: ETags must agree across replicas.
func TestDeterministic(t *testing.T) {
	for _, f := range fixtures.All() {
		for name, render := range map[string]func(*config.Site) ([]byte, error){"draft-car": DraftCar, "v0.1.0": V010} {
			t.Run(f.Name+"/"+name, func(t *testing.T) {
				a, errA := render(&f.Site)
				for range 5 {
					site := f.Site // a fresh copy: no state may leak between calls
					b, errB := render(&site)
					if (errA == nil) != (errB == nil) || !bytes.Equal(a, b) {
						t.Fatalf("two renderings differ:\n%s\n%s", a, b)
					}
				}
			})
		}
	}
}
