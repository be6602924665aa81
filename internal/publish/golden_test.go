package publish_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/agentready/agentready/internal/publish"
	"github.com/agentready/agentready/internal/testing/fixtures"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden (read the diff before committing)")

// goldenName is the file a document's golden copy lives in.
func goldenName(d publish.Document) string {
	if name, ok := strings.CutPrefix(d.Name, "descriptor "); ok {
		return "descriptor-" + name + ".json"
	}
	if name, ok := strings.CutPrefix(d.Name, "MCP server card "); ok {
		// The legacy path serves the same card: one file for both.
		return "mcp-server-card-" + strings.TrimSuffix(name, " (legacy path)") + ".json"
	}
	if d.Name == "A2A agent card" {
		return "agent-card.json"
	}
	if name, ok := strings.CutPrefix(d.Name, "protected resource metadata "); ok {
		return "oauth-protected-resource-" + name + ".json"
	}
	return d.Name
}

// TestGolden renders every document of every fixture (the examples of the
// five specifications) and compares it with testdata/golden/<fixture>/.
// `go test ./publish -update` rewrites them.
func TestGolden(t *testing.T) {
	lm := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	for _, fx := range fixtures.All() {
		t.Run(fx.Name, func(t *testing.T) {
			if err := publish.Validate(&fx.Site, fx.Formats); err != nil {
				t.Fatalf("fixture does not validate: %v", err)
			}
			docs, err := publish.Render(&fx.Site, publish.Options{Formats: fx.Formats, LastModified: lm})
			if err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join("testdata", "golden", fx.Name)
			want := map[string]bool{}
			for _, d := range docs {
				name := goldenName(d)
				want[name] = true
				path := filepath.Join(dir, name)
				if *update {
					if err := os.MkdirAll(dir, 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(path, d.Body, 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
				golden, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%s: %v (run go test ./publish -update)", d.Name, err)
				}
				if !bytes.Equal(golden, d.Body) {
					t.Errorf("%s differs from %s:\n--- got\n%s\n--- want\n%s", d.Name, path, d.Body, golden)
				}
			}
			// A golden file no document produces any more is stale.
			entries, _ := os.ReadDir(dir)
			var stale []string
			for _, e := range entries {
				if !want[e.Name()] {
					stale = append(stale, e.Name())
					if *update {
						_ = os.Remove(filepath.Join(dir, e.Name()))
					}
				}
			}
			sort.Strings(stale)
			if len(stale) > 0 && !*update {
				t.Errorf("stale golden files in %s: %v (run go test ./publish -update)", dir, stale)
			}
		})
	}
}

// TestRenderDeterministic: the same declaration renders identical bytes.
func TestRenderDeterministic(t *testing.T) {
	for _, fx := range fixtures.All() {
		a, err := publish.Render(&fx.Site, publish.Options{Formats: fx.Formats, LastModified: time.Unix(1, 0)})
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 5; i++ {
			b, err := publish.Render(&fx.Site, publish.Options{Formats: fx.Formats, LastModified: time.Unix(1, 0)})
			if err != nil {
				t.Fatal(err)
			}
			for j := range a {
				if !bytes.Equal(a[j].Body, b[j].Body) {
					t.Fatalf("%s/%s: rendering is not deterministic", fx.Name, a[j].Name)
				}
			}
		}
	}
}
