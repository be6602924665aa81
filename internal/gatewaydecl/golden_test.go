package gatewaydecl_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentready/agentready/internal/gatewaydecl"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden (read the diff before committing)")

// mcpTool is a Tool as tools/list shows it, with where its arguments go.
type mcpTool struct {
	Name         string                  `json:"name"`
	Title        string                  `json:"title,omitempty"`
	Description  string                  `json:"description"`
	InputSchema  json.RawMessage         `json:"inputSchema"`
	OutputSchema json.RawMessage         `json:"outputSchema,omitempty"`
	Annotations  gatewaydecl.Annotations `json:"annotations"`
	Meta         map[string]any          `json:"_meta,omitempty"`
	Calls        string                  `json:"x-calls"`
	Method       string                  `json:"x-method"`
	Args         []gatewaydecl.Arg       `json:"x-args"`
}

// TestGolden compares the tools, prompts and resources of each site with
// testdata/golden/<site>/; `go test ./internal/gatewaydecl -update`
// rewrites them.
func TestGolden(t *testing.T) {
	for _, s := range sites(t) {
		t.Run(s.name, func(t *testing.T) {
			g, docs := load(t, s)
			var tools []mcpTool
			for _, tl := range g.Tools {
				tools = append(tools, mcpTool{tl.Name, tl.Title, tl.Description, tl.InputSchema, tl.OutputSchema, tl.Annotations, tl.Meta, tl.Calls, tl.Method, tl.Args})
			}
			for name, v := range map[string]any{
				"tools.json":     tools,
				"prompts.json":   g.Prompts,
				"resources.json": gatewaydecl.Resources(&s.site, docs),
			} {
				got, err := json.MarshalIndent(v, "", "  ")
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, '\n')
				path := filepath.Join("testdata", "golden", s.name, name)
				if *update {
					if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(path, got, 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (run go test ./internal/gatewaydecl -update)", err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%s differs:\n--- got\n%s\n--- want\n%s", path, got, want)
				}
			}
		})
	}
}
