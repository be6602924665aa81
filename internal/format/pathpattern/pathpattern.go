// Package pathpattern is the syntax of an Access path pattern, the
// robots.txt syntax of RFC 9309 2.2.2 as agentready applies it. config
// validates every Allow and Disallow pattern with Check; the policy
// compiler checks again only the patterns it is handed directly.
package pathpattern

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxLen bounds a path pattern. Patterns are matched against
// attacker-chosen paths; 2048 bytes is longer than any sensible rule and
// keeps the matcher's worst case small.
const MaxLen = 2048

// Check checks one Access path pattern in robots.txt syntax as
// Google's robots.txt parser applies it (RFC 9309 2.2.2): a pattern is
// non-empty, starts with "/" or "*", may use "*" anywhere and "$" only as
// its last character (where it anchors the end of the path), and holds no
// whitespace, control characters or "#" (which starts a comment in
// robots.txt-style files). Percent signs must start a valid escape, since
// request paths are compared in canonical percent-encoded form. Patterns
// are at most 2048 bytes of valid UTF-8.
//
// Patterns are matched as published, never resolved (RFC 9309 2.2.2), and
// agentready refuses, with 400, request paths that routers read in
// different ways (an encoded "/", a backslash, a control character, a dot
// or empty segment). A pattern's path part holding one of those could
// never match a request, or would match a different resource than it
// reads, so it is rejected: %2F, "\" and %5C, %00-%1F and %7F, "." and
// ".." segments (with their dots raw or encoded as %2E), and "//". Escapes
// of the characters that may appear raw in a path ("!&'()+,;=:@") are
// rejected too: Go's routers decode them, so "/a%3Bb" is served by the
// handler for "/a;b"; write the character. Only "*" and "$" are written
// encoded (%2A, %24) to be matched literally (RFC 9309 2.2.3).
//
// The error does not name a field; config.Validate adds the field path.
func Check(p string) error {
	if p == "" {
		return errors.New(`empty pattern; use "/" to match every path`)
	}
	if len(p) > MaxLen {
		return fmt.Errorf("pattern is %d bytes long; at most %d are allowed", len(p), MaxLen)
	}
	if !utf8.ValidString(p) {
		return fmt.Errorf("pattern %q is not valid UTF-8", p)
	}
	if p[0] != '/' && p[0] != '*' {
		return fmt.Errorf(`pattern %q must start with "/" or "*"`, p)
	}
	if err := patternSegments(p); err != nil {
		return err
	}
	for i, r := range p {
		switch {
		case unicode.IsControl(r):
			return fmt.Errorf("pattern %q contains the control character %U", p, r)
		case unicode.IsSpace(r):
			return fmt.Errorf("pattern %q contains whitespace (%U); encode a space in a path as %%20", p, r)
		case r == '$' && i != len(p)-1:
			return fmt.Errorf(`pattern %q has "$" before its end; "$" may only be the last character, where it anchors the end of the path`, p)
		case r == '#':
			return fmt.Errorf(`pattern %q contains "#", which starts a comment in robots.txt-style files and never reaches the server in a request path`, p)
		case r == '%':
			if i+2 >= len(p) || !isHex(p[i+1]) || !isHex(p[i+2]) {
				return fmt.Errorf(`pattern %q has a "%%" at byte %s that does not start a %%XX escape; write a literal "%%" as %%25`, p, strconv.Itoa(i))
			}
		}
	}
	return nil
}

// patternSegments rejects, in the path part of p (before any '?'), what
// routers read in different ways (see Check).
func patternSegments(p string) error {
	path, _, _ := strings.Cut(strings.TrimSuffix(p, "$"), "?")
	for i, seg := range strings.Split(path, "/") {
		if i == 0 {
			continue // before the leading '/' ("" or a leading '*')
		}
		if seg == "" && i < strings.Count(path, "/") {
			return fmt.Errorf(`pattern %q holds an empty segment ("//"); routers collapse or keep it, and agentready refuses such request paths (400), so write the path with single slashes`, p)
		}
		dots, other := 0, false
		for j := 0; j < len(seg); j++ {
			c := seg[j]
			if c == '%' && j+2 < len(seg) && isHex(seg[j+1]) && isHex(seg[j+2]) {
				v, _ := strconv.ParseUint(seg[j+1:j+3], 16, 8)
				c = byte(v)
				j += 2
				switch {
				case c == '/':
					return fmt.Errorf(`pattern %q holds an encoded "/" (%%2F); routers disagree on whether it separates segments, and agentready refuses such request paths (400), so the rule could never apply`, p)
				case c == '\\':
					return fmt.Errorf(`pattern %q holds an encoded backslash (%%5C), which agentready refuses in request paths (400); the rule could never apply`, p)
				case c < 0x20 || c == 0x7f:
					return fmt.Errorf(`pattern %q holds an encoded control character (%%%02X), which agentready refuses in request paths (400); the rule could never apply`, p, c)
				case strings.IndexByte("!&'()+,;=:@", c) >= 0:
					return fmt.Errorf(`pattern %q encodes %q as %s; Go's routers decode it and serve the same handler for both spellings, so write %q itself (only "*" and "$" are written encoded, as %%2A and %%24)`, p, c, seg[j-2:j+1], c)
				}
			}
			switch {
			case c == '\\':
				return fmt.Errorf(`pattern %q holds a backslash, which some servers take as "/"; agentready refuses it in request paths (400)`, p)
			case c == '.':
				dots++
			default:
				other = true
			}
		}
		if !other && (dots == 1 || dots == 2) {
			return fmt.Errorf(`pattern %q holds the dot segment %q; patterns are matched as written (RFC 9309 2.2.2), never resolved, and agentready refuses request paths with dot segments (400): write the path the rule means`, p, seg)
		}
	}
	return nil
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
