// Package discovery is what every discovery format implements: a Format
// renders its documents from a validated Site, checks the Site against its
// own rules and adds its part to the declaration file's JSON Schema.
// internal/publish holds the list of formats (Formats, in the order the
// documents are served) and loops over it; config knows none of them
// (docs/design.md, "Architecture").
package discovery

import (
	"crypto/ecdsa"
	"fmt"
	"net/http"
	"time"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/fieldcheck"
)

// Format is one discovery format.
type Format interface {
	// Kind is the document kind Formats.Disabled and Options.MaxAge name.
	Kind() config.Document
	// Render renders the format's documents; it is called only when the
	// kind is served.
	Render(s *config.Site, env *Env) ([]Doc, error)
	// Check reports the problems of the Site under the format's rules;
	// it is called whatever is served, and each rule says when it holds.
	Check(c *Check)
	// TagRules explains the validate tags of the fields the format's
	// rules own (fieldcheck.TagRule), by field path without indices.
	TagRules() map[string]fieldcheck.TagRule
	// Schema is the format's part of the declaration file's JSON Schema.
	Schema() Schema
}

// NoRules is embedded by a format with no rules of its own (its documents
// are derived from what the other formats check).
type NoRules struct{}

// Check checks nothing.
func (NoRules) Check(*Check) {}

// TagRules explains no tag.
func (NoRules) TagRules() map[string]fieldcheck.TagRule { return nil }

// Schema adds nothing to the file's schema.
func (NoRules) Schema() Schema { return Schema{} }

// One is a format's one document d with body b, or err naming d.
func One(d Doc, b []byte, err error) ([]Doc, error) {
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.Name, err)
	}
	d.Body = b
	return []Doc{d}, nil
}

// Schema is a format's part of the declaration file's JSON Schema: what
// its rules say that JSON Schema can.
type Schema struct {
	// Fields add keywords to fields, by "Type.Field" ("File.Field" for
	// the Site's own), as schemagen.Generator.Rules.
	Fields map[string]map[string]any
	// File are rules of the whole file, added to its def's allOf.
	File []any
}

// Env is what a format renders with besides the Site.
type Env struct {
	Formats config.Formats
	// LastModified is the documents' Last-Modified, whole seconds, UTC.
	LastModified time.Time
	// DescriptorURL is the URL an agent:// descriptor is served at.
	DescriptorURL func(name string) string
	// DescriptorPath is the path an agent:// descriptor is served at.
	DescriptorPath func(name string) string
	// Key signs descriptors and the A2A card when set; KeyID is its RFC
	// 7638 thumbprint and JWKS the JWK Set of its public half.
	Key   *ecdsa.PrivateKey
	KeyID string
	JWKS  []byte
	// SignDescriptor signs a descriptor response: get the GET response's
	// header fields, head HEAD's (agent-uri-03 10.3).
	SignDescriptor func(get, head http.Header, body []byte, ctype string) error
	// A2AVersion is the A2A agent card's version ("" the default).
	A2AVersion string
}

// Doc is one rendered discovery document and how it is served: a format
// renders it, publish.Render sets its MaxAge (the format's default unless
// Options.MaxAge names another) and LastModified, and publish.NewHandler
// serves it (publish.Document). NewHandler copies what it needs, so a Doc
// may be reused or changed afterwards without affecting a
// publish.Handler.
type Doc struct {
	// Name identifies the document in errors and logs ("agents.txt").
	Name string
	// Paths are the URL paths the document is served at, each starting with
	// "/" and matched exactly against the request path
	// ("/.well-known/agents.txt", "/agents.txt").
	Paths []string
	// ContentType is the Content-Type, e.g. TypeText.
	ContentType string
	// Body is the document, served as is.
	Body []byte
	// MaxAge is sent as "Cache-Control: public, max-age=N", N in whole
	// seconds (fractions are dropped). Zero sends max-age=0, so caches
	// revalidate every time, which the ETag makes a 304.
	MaxAge time.Duration
	// LastModified is sent as Last-Modified, truncated to seconds, and
	// answers If-Modified-Since. The zero time sends no Last-Modified and
	// makes the date conditionals inapplicable. It must not lie in the
	// future (RFC 9110 8.8.2.1); renderers set it once, from the declaration.
	LastModified time.Time
	// Profiles are the RFC 6906 profiles an application/agent+json
	// descriptor conforms to, first the one it is labelled with
	// (agent:// 7.4). Non-empty Profiles require a ContentType of
	// application/agent+json and switch on Accept negotiation: see
	// publish.Handler.
	Profiles []string
	// Header holds fields a 200 response carries besides the standard
	// ones: a signed descriptor's Content-Digest, Signature-Input and
	// Signature, a deprecated one's Deprecation, Sunset and Link. They are
	// left off 206 and 304 responses: the signature covers "@status" 200
	// and the digest of the whole body (agent-uri-03 10.3).
	Header http.Header
	// HeadHeader, when not nil, replaces Header in a 200 answering HEAD.
	// A field whose value is computed from the content, as Content-Digest
	// is (RFC 9530 2), differs there: a HEAD response has no content (RFC
	// 9110 9.3.2, 6.4.1), so its Content-Digest is the digest of nothing,
	// and a signature covering it is another signature.
	HeadHeader http.Header
	// Alternates are media types the document is also served as, to a
	// request whose Accept prefers one of them to ContentType (RFC 9110
	// 12.5.1; see publish.Handler). They cannot be combined with Profiles.
	Alternates []string
}

// Content types of the published documents.
const (
	// TypeText is agents.txt's: draft-car 2.1 says it MUST be served
	// as "text/plain; charset=utf-8".
	TypeText = "text/plain; charset=utf-8"
	// TypeJSON is for the JSON documents without a media type of their
	// own (agents.json, AWP agent.json). draft-car 3.1 says agents.json
	// MUST carry the charset parameter, so all of them do.
	TypeJSON = "application/json; charset=utf-8"
	// TypeMarkdown is agents.md's (agents.md 1 allows text/markdown or
	// text/plain; RFC 7763 makes charset required for text/markdown).
	TypeMarkdown = "text/markdown; charset=utf-8"
	// TypeAgentJSON is the agent:// descriptor media type
	// (draft-narvaneni-agent-uri-03 7.5, 12.3). A Doc with Profiles is
	// served with the first profile as its profile parameter (7.4).
	TypeAgentJSON = "application/agent+json"
)

// Default Cache-Control max-ages.
const (
	// MaxAgeAgentsTxt is draft-car 5.1's RECOMMENDED 300 s, for agents.txt
	// and its agents.json companion.
	MaxAgeAgentsTxt = 300 * time.Second
	// MaxAgeAgentsMD is agents.md 1's "Cache-Control: public, max-age=86400".
	MaxAgeAgentsMD = 24 * time.Hour
	// MaxAgeAgentJSON is for AWP's agent.json, agent:// descriptors and the
	// cards. Neither draft names a lifetime (agent:// 5.3 only asks for
	// Cache-Control plus ETag or Last-Modified), so agentready uses
	// draft-car's 300 s: short enough that an edited declaration reaches
	// agents within minutes, and revalidation is a cheap 304 thanks to
	// the ETag.
	MaxAgeAgentJSON = 300 * time.Second
)
