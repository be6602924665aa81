package publish

import (
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/publish/cards"
)

func cardEntry(t testing.TB) *entry {
	t.Helper()
	e, errs := compile(&Document{Name: "card", Paths: []string{"/mcp/server-card"}, ContentType: contentTypeMCPServerCard,
		Body: []byte("{}"), Alternates: []string{contentTypeJSON}}, "card")
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	return e
}

// TestNegotiateAlternates: the media type Accept weighs highest is served,
// the card type on a tie and when Accept admits neither; a more specific
// range overrides a less specific one (RFC 9110 12.5.1).
func TestNegotiateAlternates(t *testing.T) {
	e := cardEntry(t)
	for accept, want := range map[string]string{
		"":                                 contentTypeMCPServerCard,
		"application/mcp-server-card+json": contentTypeMCPServerCard,
		"application/json":                 contentTypeJSON,
		"APPLICATION/JSON":                 contentTypeJSON,
		"application/json; charset=utf-8":  contentTypeJSON,
		"*/*":                              contentTypeMCPServerCard,
		"application/*":                    contentTypeMCPServerCard,
		"application/json, */*;q=0.1":      contentTypeJSON,
		"application/json;q=0.5, application/mcp-server-card+json": contentTypeMCPServerCard,
		"application/json, application/mcp-server-card+json;q=0.9": contentTypeJSON,
		"application/json, application/mcp-server-card+json":       contentTypeMCPServerCard,
		"text/html,application/xhtml+xml,*/*;q=0.8":                contentTypeMCPServerCard, // a browser
		"text/html": contentTypeMCPServerCard, // nothing acceptable: disregarded
		"*/*, application/mcp-server-card+json;q=0":                    contentTypeJSON,
		"application/json;q=2, application/mcp-server-card+json;q=0.1": contentTypeMCPServerCard, // invalid weight skipped
		`application/json;foo="a,b;q=0"`:                               contentTypeJSON,
	} {
		var lines []string
		if accept != "" {
			lines = []string{accept}
		}
		ct, etag := e.negotiate(lines)
		if ct != want {
			t.Errorf("Accept %q: %s, want %s", accept, ct, want)
		}
		if (ct == contentTypeJSON) != (etag != e.etag) {
			t.Errorf("Accept %q: ETag %s for %s (the card's is %s)", accept, etag, ct, e.etag)
		}
	}
}

// TestAlternatesRefused: what an alternate cannot be.
func TestAlternatesRefused(t *testing.T) {
	for _, tc := range []struct {
		doc  Document
		want string
	}{
		{Document{ContentType: contentTypeAgentJSON, Profiles: []string{"https://agent-uri.org/profile/v3"}, Alternates: []string{contentTypeJSON}}, "cannot be combined"},
		{Document{ContentType: contentTypeMCPServerCard, Alternates: []string{"application/json; charset"}}, "alternate content type"},
		{Document{ContentType: contentTypeMCPServerCard, Alternates: []string{"application/*"}}, "is a range"},
		{Document{ContentType: contentTypeMCPServerCard, Alternates: []string{"Application/MCP-Server-Card+JSON"}}, "offered twice"},
	} {
		tc.doc.Name, tc.doc.Paths, tc.doc.Body = "d", []string{"/d"}, []byte("{}")
		_, errs := compile(&tc.doc, "d")
		if len(errs) == 0 || !strings.Contains(errs[0].Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.doc, errs, tc.want)
		}
	}
}

// contentTypeMCPServerCard is the MCP server card's media type, the one
// these tests negotiate against application/json.
const contentTypeMCPServerCard = cards.TypeMCPServerCard
