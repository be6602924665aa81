package trail

import (
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentready/agentready/audit"
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/auditparams"
	"github.com/agentready/agentready/internal/policy"
	"github.com/agentready/agentready/internal/testing/fixtures"
)

// Secrets the sensitive path params of cardsTrail's capabilities carry;
// DefaultRedactor hides card_number and token.
const (
	cardSecret  = "4111111111111111"
	tokenSecret = "tok5ecret9"
)

// sensitiveTemplates are the endpoints of cardsTrail's capabilities with a
// sensitive path param, filled with its secret.
var sensitiveTemplates = []struct{ id, path string }{
	{"card.get", "/api/cards/" + cardSecret},
	{"card.details", "/api/cards/" + cardSecret + "/details"},
	{"token.revoke", "/api/users/ada/tokens/" + tokenSecret + "/"},
	{"pin.check", "/v/p/" + tokenSecret + "/x"},
}

// cardsTrail is a Trail of a site whose capabilities take a card number
// and a token in the path (one endpoint with a trailing slash), recording
// to nothing: events are read from the recording.
func cardsTrail(t testing.TB) *Trail {
	t.Helper()
	site := fixtures.OutdoorSupply()
	in := func(names ...string) []config.Param {
		var ps []config.Param
		for _, n := range names {
			ps = append(ps, config.Param{Name: n, In: config.InPath, Type: config.TypeString, Required: true})
		}
		return ps
	}
	site.Capabilities = append(site.Capabilities,
		config.Capability{ID: "card.get", Description: "A card.", Endpoint: site.URL + "/api/cards/{card_number}", Method: "GET",
			Params: in("card_number")},
		config.Capability{ID: "card.details", Description: "A card's details.", Endpoint: site.URL + "/api/cards/{card_number}/details", Method: "GET",
			Params: in("card_number")},
		config.Capability{ID: "token.revoke", Description: "Revoke a token.", Endpoint: site.URL + "/api/users/{user}/tokens/{token}/", Method: "POST",
			Params: in("user", "token")},
		// One-letter literals and a template param that is not declared.
		config.Capability{ID: "pin.check", Description: "Check a PIN.", Endpoint: site.URL + "/v/p/{pin}/{other}", Method: "POST",
			Params: in("pin")},
	)
	p, err := policy.Compile(&site)
	if err != nil {
		t.Fatal(err)
	}
	return &Trail{p: p}
}

// The respellings of spell, bits of its mask.
const (
	spellSlash uint16 = 1 << iota
	spellParamFirst
	spellParamLast
	spellParamValue
	spellExtension
	spellUpper
	spellEncode
	spellLowerHex
	spellDotPrefix
	spellDotSuffix
	spellEmptySeg
	spellDotSeg
	spellEncodedSemicolon
	spellings // one more than the largest mask
)

// spell respells the escaped path as a client may send it: bit by bit of
// mask, a reading the enforcer decides on (a trailing slash, ";…" path
// parameters, a format extension, case, percent-encoding) or one a
// normalising router resolves (dot and empty segments). junk, escaped, is
// the value of one path parameter.
func spell(path string, mask uint16, junk string) string {
	semi := ";"
	if mask&spellEncodedSemicolon != 0 {
		semi = "%3B"
	}
	segs := strings.Split(path, "/")[1:]
	trailing := segs[len(segs)-1] == ""
	if trailing {
		segs = segs[:len(segs)-1]
	}
	isSecret := func(s string) bool { return s == cardSecret || s == tokenSecret }
	firstLit, lastLit := -1, -1
	for i, s := range segs {
		if !isSecret(s) {
			if firstLit < 0 {
				firstLit = i
			}
			lastLit = i
		}
	}
	for i, s := range segs {
		if isSecret(s) {
			if mask&spellParamValue != 0 {
				segs[i] = s + semi + "v=1"
			}
			continue
		}
		if mask&spellUpper != 0 {
			s = strings.ToUpper(s)
		}
		if mask&spellEncode != 0 {
			hex := fmt.Sprintf("%%%02X", s[0])
			if mask&spellLowerHex != 0 {
				hex = strings.ToLower(hex)
			}
			s = hex + s[1:]
		}
		if i == firstLit && mask&spellParamFirst != 0 {
			s += semi + "x"
		}
		if i == lastLit && mask&spellParamLast != 0 {
			s += semi + "jsessionid=" + url.PathEscape(junk)
		}
		segs[i] = s
	}
	if mask&spellEmptySeg != 0 {
		segs = append(segs[:1], append([]string{""}, segs[1:]...)...)
	}
	if mask&spellDotSeg != 0 {
		segs = append(segs[:1], append([]string{"."}, segs[1:]...)...)
	}
	if mask&spellDotPrefix != 0 {
		segs = append([]string{"static", ".." + semi}, segs...)
	}
	out := "/" + strings.Join(segs, "/")
	if mask&spellExtension != 0 {
		out += ".json"
	}
	if mask&spellDotSuffix != 0 {
		out += "/.."
	}
	if trailing != (mask&spellSlash != 0) {
		out += "/"
	}
	return out
}

// recordedEvent is the event the trail records of target, decided as d,
// redacted by DefaultRedactor, in its canonical serialisation.
func recordedEvent(t testing.TB, tr *Trail, target string, d enforce.Decision) string {
	t.Helper()
	u, err := url.ParseRequestURI(target)
	if err != nil {
		t.Fatalf("%s: %v", target, err)
	}
	r := &http.Request{Method: "GET", URL: u, Header: http.Header{}, RequestURI: target, Body: http.NoBody}
	rec := &recording{t: tr, seq: -1}
	if _, err := rec.start(r, &d, time.Now()); err != nil {
		t.Fatalf("%s: start: %v", target, err)
	}
	rec.ev.ResponseStatus = 200
	ev, err := audit.Prepare(rec.ev, audit.DefaultRedactor)
	if err != nil {
		t.Fatalf("%s: %v", target, err)
	}
	b, err := audit.CanonicalEvent(ev)
	if err != nil {
		t.Fatalf("%s: %v", target, err)
	}
	return string(b)
}

// leaks reports whether the recorded text holds a secret, as is or
// percent-decoded.
func leaks(recorded string) bool {
	for _, s := range []string{recorded, looseUnescape(recorded)} {
		if strings.Contains(s, cardSecret) || strings.Contains(s, tokenSecret) {
			return true
		}
	}
	return false
}

// looseUnescape decodes every valid %XX of s, leaving the rest.
func looseUnescape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
				b.WriteByte(byte(v))
				i += 2
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// decisions are the decisions a target may get: its capability, allowed
// or refused, and no capability (a refusal before routing, a reading no
// capability has).
func decisions(id string) []enforce.Decision {
	return []enforce.Decision{
		{Outcome: enforce.Allow, Capability: id},
		{Outcome: enforce.DenyTarget, Capability: id},
		{Outcome: enforce.DenyTarget},
		{Outcome: enforce.Allow},
	}
}

// TestSensitivePathParamRedacted: a sensitive path param is redacted
// from the recorded event however the path is spelled, and so is a
// jsessionid in a path parameter (found by review:
// a path without its template's shape, /api/cards;x/4111… or
// /api/cards/4111…/details.json, was recorded as sent, card number and
// all, and an event of no capability named the path in its capability).
// Every spelling spell makes of every sensitive endpoint, decided every
// way, is checked.
func TestSensitivePathParamRedacted(t *testing.T) {
	tr := cardsTrail(t)
	n := 0
	for _, tt := range sensitiveTemplates {
		for mask := uint16(0); mask < spellings; mask++ {
			target := spell(tt.path, mask, "A1B2")
			// The servlet session id in a path parameter is hidden too
			// (an escaped ";" is data: no parameter follows it).
			session := mask&spellEncodedSemicolon == 0
			for _, d := range decisions(tt.id) {
				if got := recordedEvent(t, tr, target, d); leaks(got) || (session && strings.Contains(got, "A1B2")) {
					if n++; n <= 20 {
						t.Errorf("%s decided %s %q: recorded %s", target, d.Outcome, d.Capability, got)
					}
				}
			}
		}
	}
	if n > 20 {
		t.Errorf("... %d leaks in all", n)
	}
}

// TestSensitivePathParamSpellings names the spellings found by review,
// each decided as the enforcer decides it, so that a regression says
// which.
func TestSensitivePathParamSpellings(t *testing.T) {
	tr := cardsTrail(t)
	for _, tt := range []struct {
		name, target, capability string
	}{
		{"as declared", "/api/cards/" + cardSecret, "card.get"},
		{"trailing slash", "/api/cards/" + cardSecret + "/", "card.get"},
		{"path parameter in a literal segment", "/api/cards;jsessionid=A1/" + cardSecret, "card.get"},
		{"path parameter, unrouted", "/api/cards;x/" + cardSecret, ""},
		{"format extension", "/api/cards/" + cardSecret + "/details.json", "card.details"},
		{"upper case", "/API/Cards/" + cardSecret, "card.get"},
		{"percent-encoded literal", "/api/%63ards/" + cardSecret, "card.get"},
		{"template with a trailing slash, path without", "/api/users/ada/tokens/" + tokenSecret, "token.revoke"},
		{"dot segment after the param", "/api/cards/" + cardSecret + "/..", ""},
		{"dot segment before", "/x/../api/cards/" + cardSecret, ""},
		{"dot segment hidden behind ;", "/x/..;/api/cards/" + cardSecret, ""},
		{"empty segment", "/api//cards/" + cardSecret, ""},
		{"after a dot segment", "/api/cards/%2e%2e/" + cardSecret, ""},
		{"after a dot segment hidden behind ;", "/api/cards/..;x/" + cardSecret, ""},
		{"in a dot-like segment", "/api/cards/.;" + cardSecret, "card.get"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := enforce.Decision{Outcome: enforce.Allow, Capability: tt.capability}
			if tt.capability == "" {
				d.Outcome = enforce.DenyTarget
			}
			if got := recordedEvent(t, tr, tt.target, d); leaks(got) {
				t.Errorf("recorded %s", got)
			}
		})
	}
}

// TestPathParamTags: a param is recorded by the segment of the path as
// sent that holds it, and an event of no capability names the path with
// that segment written as the param; a path no reading gives a template's
// shape records none.
func TestPathParamTags(t *testing.T) {
	tr := cardsTrail(t)
	for _, tt := range []struct {
		target, capability string
		want               []auditparams.PathParam
		eventCapability    string
	}{
		{"/api/cards/42", "card.get", []auditparams.PathParam{{Name: "card_number", Segment: 3}}, "card.get"},
		{"/api/cards;x/42/Details.json", "card.details", []auditparams.PathParam{{Name: "card_number", Segment: 3}}, "card.details"},
		{"/api/users/ada/tokens/t1", "token.revoke", []auditparams.PathParam{{Name: "user", Segment: 3}, {Name: "token", Segment: 5}}, "token.revoke"},
		{"/v/p/1234/x", "pin.check", []auditparams.PathParam{{Name: "pin", Segment: 3}}, "pin.check"},
		// A literal is not read without an extension: only the path is.
		{"/v/p.json/1234/x", "", []auditparams.PathParam{{Name: "pin", Segment: 3}}, "/v/p.json/{pin}/x"},
		// No capability decided: every template a reading has.
		{"/x/../api/cards/42/details", "", []auditparams.PathParam{{Name: "card_number", Segment: 5}},
			"/x/../api/cards/{card_number}/details"},
		{"/api/cards", "", nil, "/api/cards"},
		{"/api/search", "", nil, "/api/search"},
		{"/api/carts/42", "", nil, "/api/carts/42"},
		{"/cart;jsessionid=A1/x%20y", "", nil, "/cart/x y"},
		{"/api/cards/%2e%2e/42", "", []auditparams.PathParam{{Name: "card_number", Segment: 3}, {Name: "card_number", Segment: 4}},
			"/api/cards/{card_number}/{card_number}"},
	} {
		u, _ := url.ParseRequestURI(tt.target)
		r := &http.Request{Method: "GET", URL: u, Header: http.Header{}, Body: http.NoBody}
		rec := &recording{t: tr, seq: -1}
		if _, err := rec.start(r, &enforce.Decision{Outcome: enforce.Allow, Capability: tt.capability}, time.Now()); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(rec.target.PathParams, tt.want) || rec.ev.Capability != tt.eventCapability {
			t.Errorf("%s (%q): path params %v, capability %q; want %v, %q", tt.target, tt.capability,
				rec.target.PathParams, rec.ev.Capability, tt.want, tt.eventCapability)
		}
	}
}

// FuzzSensitivePathParam: whatever a path parameter holds and however the
// path is spelled, no sensitive path param reaches the recorded event.
func FuzzSensitivePathParam(f *testing.F) {
	f.Add(uint8(0), uint16(0), "A1")
	f.Add(uint8(1), uint16(0x0fff), "x;y=z")
	f.Add(uint8(2), uint16(0x1234), "%2e%2e")
	tr := cardsTrail(f)
	f.Fuzz(func(t *testing.T, which uint8, mask uint16, junk string) {
		if strings.Contains(junk, cardSecret) || strings.Contains(junk, tokenSecret) {
			t.Skip()
		}
		tt := sensitiveTemplates[int(which)%len(sensitiveTemplates)]
		target := spell(tt.path, mask%spellings, junk)
		for _, d := range decisions(tt.id) {
			if got := recordedEvent(t, tr, target, d); leaks(got) {
				t.Fatalf("%s decided %s %q: recorded %s", target, d.Outcome, d.Capability, got)
			}
		}
	})
}

// TestBoundPathParams: a route binding that names another capability
// than the endpoint resolved records that capability's path params too.
func TestBoundPathParams(t *testing.T) {
	tr := cardsTrail(t)
	target := "/api/cards/" + cardSecret
	u, _ := url.ParseRequestURI(target)
	r := &http.Request{Method: "GET", URL: u, Header: http.Header{}, Body: http.NoBody}
	rec := &recording{t: tr, seq: -1}
	if _, err := rec.start(r, &enforce.Decision{Outcome: enforce.Allow, Capability: "product-search"}, time.Now()); err != nil {
		t.Fatal(err)
	}
	if len(rec.target.PathParams) != 0 {
		t.Fatalf("product-search has no path param, recorded %v", rec.target.PathParams)
	}
	rec.Bind(enforce.Decision{Outcome: enforce.Allow, Capability: "card.get"})
	if want := []auditparams.PathParam{{Name: "card_number", Segment: 3}}; !reflect.DeepEqual(rec.target.PathParams, want) {
		t.Errorf("bound: path params %v, want %v", rec.target.PathParams, want)
	}
	rec.ev.ResponseStatus = 200
	ev, err := audit.Prepare(rec.ev, audit.DefaultRedactor)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := audit.CanonicalEvent(ev); leaks(string(b)) {
		t.Errorf("bound event recorded %s", b)
	}
}

// FuzzParamTags: any endpoint template and any path are read without a
// panic (found by review: a one-letter literal, /v/{id}, panicked), and
// every tag names a non-empty segment of the path and a param the
// template declares.
func FuzzParamTags(f *testing.F) {
	for _, s := range [][2]string{
		{"/v/{id}", "/v/1"}, {"/api/cards/{n}/", "/api/cards/4111"}, {"//{x}", "//a"}, {"/{a}/{b}", "/x;y/../%2e/z"},
		{"/a/{}/b", "/a/x/b"}, {"{x}", "x"}, {"/a%2/{x}", "/a%2/y"}, {"/{x}.json", "/4111.json"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, tmpl, path string) {
		decl := &config.Capability{}
		for _, seg := range strings.Split(tmpl, "/") {
			if isParam(seg) {
				decl.Params = append(decl.Params, config.Param{Name: seg[1 : len(seg)-1], In: config.InPath})
			}
		}
		c := &policy.Capability{Path: tmpl, Decl: decl}
		parts := strings.Split(path, "/")
		tags := readSegments(path).paramTags(nil, c)
		for _, tag := range tags {
			if tag.Segment < 1 || tag.Segment >= len(parts) || parts[tag.Segment] == "" {
				t.Fatalf("%q on %q: tag %+v names no segment", tmpl, path, tag)
			}
			if !strings.Contains(tmpl, "{"+tag.Name+"}") {
				t.Fatalf("%q on %q: tag %+v names no param of the template", tmpl, path, tag)
			}
		}
		_ = pathLabel(path, tags)
	})
}
