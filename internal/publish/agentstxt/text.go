package agentstxt

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/format/txtgrammar"
)

// trim is the one whitespace rule of renderer, parser and Project: values
// are trimmed (draft-car 2.2, v0.1.0 "Format Rules" 3).
func trim(s string) string { return strings.TrimSpace(s) }

// canon matches s, trimmed, to one of vocab in any ASCII case; empty is
// def, the draft's default, when there is one, and an unknown value is
// kept as written.
func canon(s, def string, vocab ...string) (string, bool) {
	s = trim(s)
	if s == "" && def != "" {
		return def, true
	}
	for _, v := range vocab {
		if asciiEqualFold(s, v) {
			return v, true
		}
	}
	return s, false
}

// canonProtocol matches the draft-car 2.5 protocols (empty: REST),
// canonAuth its auth types (empty: none), canonDeclarationType the 2.3
// declaration types.
func canonProtocol(s string) (string, bool) {
	return canon(s, config.ProtocolREST, config.ProtocolREST, config.ProtocolMCP, config.ProtocolA2A, config.ProtocolGraphQL, config.ProtocolWebSocket)
}

func canonAuth(s string) (string, bool) {
	return canon(s, config.AuthNone, config.AuthNone, config.AuthAPIKey, config.AuthBearerToken, config.AuthOAuth2, config.AuthHMAC)
}

func canonDeclarationType(s string) (string, bool) {
	return canon(s, "", config.DeclarationPlatform, config.DeclarationAgent)
}

// paramLocations and paramTypes are the vocabularies of the draft-car 2.5
// Param form; array and object cannot be written there.
var (
	paramLocations = [...]string{config.InQuery, config.InPath, config.InHeader, config.InBody}
	paramTypes     = [...]string{config.TypeString, config.TypeInteger, config.TypeNumber, config.TypeBoolean}
)

// splitList splits a comma-separated value (Scopes, Capabilities), trims
// each item and drops empty ones. The result is never nil, so that an
// Agent block's present-but-empty Capabilities ("none permitted") stays
// distinct from an absent one ("all permitted", draft-car 2.7).
func splitList(v string) []string {
	out := make([]string, 0, strings.Count(v, ",")+1)
	for item := range strings.SplitSeq(v, ",") {
		if item = trim(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// formatParam writes the draft-car 2.5 form
// "name (location, type[, required]) [- description]" of a projected Param.
func formatParam(p config.Param) string {
	var b strings.Builder
	b.WriteString(p.Name)
	b.WriteString(" (")
	b.WriteString(string(p.In))
	b.WriteString(", ")
	b.WriteString(string(p.Type))
	if p.Required {
		b.WriteString(", required")
	}
	b.WriteByte(')')
	if p.Description != "" {
		b.WriteString(" - ")
		b.WriteString(p.Description)
	}
	return b.String()
}

// parseParam reads the draft-car 2.5 Param form. problem is non-empty when
// the value is not one (the Param is then dropped); note is a non-fatal
// remark about a value that was still understood.
func parseParam(v string) (p config.Param, problem, note string) {
	open := strings.IndexByte(v, '(')
	if open < 0 {
		return p, `want "name (location, type[, required]) [- description]"`, ""
	}
	end := strings.IndexByte(v[open:], ')')
	if end < 0 {
		return p, `missing ")" after the location and type`, ""
	}
	end += open
	p.Name = trim(v[:open])
	if p.Name == "" {
		return p, "missing parameter name", ""
	}
	var parts []string
	for part := range strings.SplitSeq(v[open+1:end], ",") {
		parts = append(parts, strings.ToLower(trim(part)))
	}
	if len(parts) < 2 {
		return p, "want both a location and a type in the parentheses", ""
	}
	p.In = parts[0]
	if !slices.Contains(paramLocations[:], p.In) {
		return p, "location " + quote(parts[0]) + " is not one of query, path, header, body", ""
	}
	p.Type = parts[1]
	if !slices.Contains(paramTypes[:], p.Type) {
		return p, "type " + quote(parts[1]) + " is not one of string, integer, number, boolean", ""
	}
	for _, tok := range parts[2:] {
		if tok == "required" {
			p.Required = true
		} else {
			note = "unknown token " + quote(tok) + " in the parentheses ignored"
		}
	}
	rest := trim(v[end+1:])
	if d, ok := strings.CutPrefix(rest, "-"); ok {
		p.Description = trim(d)
	} else if rest != "" {
		// Not the documented form, but the intent is plain.
		p.Description = rest
		note = `description without the " - " separator`
	}
	return p, "", note
}

// cutFlow splits "name → step, step" at the first arrow (either of
// txtgrammar.FlowArrows).
func cutFlow(v string) (name, steps string, ok bool) {
	at, width := -1, 0
	for _, a := range txtgrammar.FlowArrows {
		if i := strings.Index(v, a); i >= 0 && (at < 0 || i < at) {
			at, width = i, len(a)
		}
	}
	if at < 0 {
		return "", "", false
	}
	return trim(v[:at]), v[at+width:], true
}

// quote quotes s for a message, shortened: keys and values come from
// untrusted files of up to MaxSize bytes.
func quote(s string) string {
	const limit = 64
	if len(s) > limit {
		cut := limit
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		return strconv.Quote(s[:cut]) + "..."
	}
	return strconv.Quote(s)
}
