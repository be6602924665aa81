package agentsjson

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestOriginRelative(t *testing.T) {
	const origin = "https://shop.example"
	tests := []struct{ endpoint, want string }{
		{"", ""},
		{"https://shop.example/api/search", "/api/search"},
		{"HTTPS://SHOP.example/api/search", "/api/search"},
		{"https://shop.example", "/"},
		{"https://shop.example?q=1", "/?q=1"},
		{"https://shop.example/api/jobs/{job_id}", "/api/jobs/{job_id}"},
		{"https://shop.example/a%20b?x=%2F#frag", "/a%20b?x=%2F"},
		{"/already/a/path", "/already/a/path"},
		{"http://shop.example/api", "http://shop.example/api"},
		{"https://shop.example:8443/api", "https://shop.example:8443/api"},
		{"https://mcp.shop.example/", "https://mcp.shop.example/"},
		{"https://user@shop.example/api", "https://user@shop.example/api"},
		{"mailto:ops@shop.example", "mailto:ops@shop.example"},
		{"https://shop.example/%zz", "https://shop.example/%zz"},
	}
	for _, tt := range tests {
		t.Run(tt.endpoint, func(t *testing.T) {
			if got := originRelative(origin, tt.endpoint); got != tt.want {
				t.Errorf("originRelative(%q) = %q, want %q", tt.endpoint, got, tt.want)
			}
		})
	}
}

// equalJSON compares two decoded JSON values after a JSON round trip, so
// that Go literals in tests compare equal to decoded documents.
func equalJSON(a, b any) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	if errA != nil || errB != nil {
		return false
	}
	var va, vb any
	_ = json.Unmarshal(ja, &va)
	_ = json.Unmarshal(jb, &vb)
	return reflect.DeepEqual(va, vb)
}
