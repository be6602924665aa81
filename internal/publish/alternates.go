package publish

import (
	"crypto/sha256"
	"encoding/hex"
	"mime"
	"strings"
)

// This file serves a document under one of several media types, for the
// documents whose format names its own media type while clients written
// before it ask for application/json: an MCP server card
// (application/mcp-server-card+json, which a client SHOULD ask for with
// Accept; discovery.md, "Hosted Server Card Location") and the AI Catalog
// (application/ai-catalog+json; a client MAY accept application/json, AI
// Catalog "Link Relation Discovery").

// compileAlternates checks d.Alternates and computes their ETags. The
// body is the same, but the representation is not: a strong validator
// changes when representation metadata such as Content-Type does (RFC 9110
// 8.8.1), so each media type has its own, the SHA-256 of the media type
// and the body.
func (e *entry) compileAlternates(d *Document, mediatype string, fail func(string, ...any)) {
	if len(d.Alternates) == 0 {
		return
	}
	if len(d.Profiles) > 0 {
		fail("alternates and profiles cannot be combined")
	}
	seen := map[string]bool{strings.ToLower(mediatype): true}
	for _, ct := range d.Alternates {
		mt, _, err := mime.ParseMediaType(ct)
		switch {
		case err != nil:
			fail("alternate content type %q: %v", ct, err)
			continue
		case strings.ContainsAny(ct, "\r\n"):
			fail("alternate content type %q contains a line break", ct)
			continue
		case strings.Contains(mt, "*"):
			fail("alternate content type %q is a range", ct)
			continue
		case seen[mt]:
			fail("media type %s is offered twice", mt)
			continue
		}
		seen[mt] = true
		sum := sha256.Sum256(append([]byte(mt+"\n"), e.body...))
		e.alternates = append(e.alternates, variant{mediaType: mt, contentType: ct, etag: `"` + hex.EncodeToString(sum[:etagBytes]) + `"`})
	}
	if e.alternates != nil {
		mt, _, _ := mime.ParseMediaType(e.contentType)
		e.alternates = append([]variant{{mediaType: mt, contentType: e.contentType, etag: e.etag}}, e.alternates...)
	}
}

// negotiate picks the content type and ETag for the Accept field lines:
// the media type Accept weighs highest, the first (ContentType) on a tie.
// A media type's weight is that of the most specific range matching it
// (type/subtype, then type/*, then */*; RFC 9110 12.5.1), zero when none
// does. No Accept, or one that admits none of them, gets ContentType: RFC
// 9110 12.5.1 lets a server disregard Accept instead of answering 406, and
// a card or catalog is more use to a client that asked badly than an error.
func (e *entry) negotiate(lines []string) (contentType, etag string) {
	best, bestQ := 0, 0
	members := acceptMembers(lines)
	for i, v := range e.alternates {
		q := weigh(v.mediaType, members)
		if q > bestQ {
			best, bestQ = i, q
		}
	}
	v := e.alternates[best]
	return v.contentType, v.etag
}

// weigh is the weight, in thousandths, Accept's members give the media
// type mt: that of the most specific member matching it, the largest among
// equally specific ones. Parameters other than q are ignored; a member
// with an invalid weight is skipped.
func weigh(mt string, members []string) int {
	typ, _, _ := strings.Cut(mt, "/")
	rank, q := 0, 0
	for _, m := range members {
		parts := splitUnquoted(m, ';')
		r := strings.ToLower(strings.Trim(parts[0], " \t"))
		var mr int
		switch {
		case r == mt:
			mr = 3
		case r == typ+"/*":
			mr = 2
		case r == "*/*":
			mr = 1
		default:
			continue
		}
		mq, ok := 1000, true
		for _, p := range parts[1:] {
			if name, value := parameter(p); strings.EqualFold(name, "q") {
				mq, ok = parseQ(value)
			}
		}
		if !ok {
			continue
		}
		if mr > rank || mr == rank && mq > q {
			rank, q = mr, mq
		}
	}
	return q
}
