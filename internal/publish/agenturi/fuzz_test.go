package agenturi

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/agentready/agentready/config"
)

// FuzzDescriptor: arbitrary text never panics; a rendered descriptor is
// deterministic JSON with the required members.
func FuzzDescriptor(f *testing.F) {
	f.Add("planner.example.com", "3.1.4", "gen-iti", "Generate & plan", "https://x.example")
	f.Add("", "", "", "", "")
	f.Fuzz(func(t *testing.T, name, version, id, text, ctx string) {
		a := config.HostedAgent{Name: name, Version: version, Description: text, Context: []string{ctx, text},
			SupportedVersions: map[string]string{text: ctx},
			Skills:            []config.Skill{{ID: id, Name: text, Description: text, Input: map[string]any{text: ctx}}}}
		doc, err := Descriptor(a)
		if err != nil {
			return
		}
		again, _ := Descriptor(a)
		if !bytes.Equal(doc, again) {
			t.Fatal("not deterministic")
		}
		var v map[string]any
		if err := json.Unmarshal(doc, &v); err != nil {
			t.Fatalf("not JSON: %v\n%s", err, doc)
		}
		for _, k := range []string{"name", "version", "skills"} {
			if _, ok := v[k]; !ok {
				t.Fatalf("%s missing", k)
			}
		}
	})
}
