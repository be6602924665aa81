package agenturi

import (
	"strings"
	"testing"
)

func TestParseAgentURI(t *testing.T) {
	tests := []struct {
		in, key, err string
	}{
		{"agent://planner.example.com/", "agent://planner.example.com", ""},
		{"agent+https://Planner.Example.com/gen-iti?x=1#frag", "agent://planner.example.com/gen-iti", ""},
		{"agent://did%3Aweb%3Aexample.com/get-article", "agent://did%3aweb%3aexample.com/get-article", ""},
		{"agent+local://my-agent", "agent://my-agent", ""},
		{"https://example.com/", "", "scheme"},
		{"agent+1x://example.com/", "", "scheme"},
		{"agent:///x", "", "empty authority"},
		{"agent:example.com", "", `lacks "://"`},
		{"agent://exa mple.com/", "", "not allowed"},
		{"agent://user:pw@example.com/", "", "user information"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			u, err := parseAgentURI(tt.in)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("parseAgentURI(%q) error = %v, want one containing %q", tt.in, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("parseAgentURI(%q): %v", tt.in, err)
			}
			if got := u.key(); got != tt.key {
				t.Errorf("key = %q, want %q", got, tt.key)
			}
		})
	}
}
