package awp

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/agentready/agentready/config"
)

// FuzzAgentJSON: arbitrary text in the declaration never panics, and the
// document is deterministic JSON with every action present.
func FuzzAgentJSON(f *testing.F) {
	f.Add("https://flights.example.com", "search_flights", "https://flights.example.com/api/{x}", "origin", "airport_code", "a & b")
	f.Add("", "", "", "", "", "")
	f.Fuzz(func(t *testing.T, url, id, endpoint, param, format, text string) {
		s := config.Site{
			Name: "x", URL: url, Description: text,
			Capabilities: []config.Capability{
				{ID: id, Description: text, Endpoint: endpoint, PollEndpoint: endpoint, Via: text, Requires: []string{text},
					Auth:   config.Auth{Type: string(text)},
					Params: []config.Param{{Name: param, Format: format, Enum: []any{text}, Default: text}}},
				{ID: id + "-2", Endpoint: text},
			},
			AWP: config.AWP{Errors: map[string]string{text: text}, Entities: map[string]config.Entity{text: {}}},
		}
		doc, err := AgentJSON(&s, "")
		if err != nil {
			return
		}
		again, _ := AgentJSON(&s, "")
		if !bytes.Equal(doc, again) {
			t.Fatal("not deterministic")
		}
		var v struct {
			Actions []map[string]any `json:"actions"`
		}
		if err := json.Unmarshal(doc, &v); err != nil {
			t.Fatalf("not JSON: %v\n%s", err, doc)
		}
		if len(v.Actions) != 2 {
			t.Fatalf("%d actions", len(v.Actions))
		}
	})
}
