package config

import (
	"errors"
	"fmt"
	"strconv"
	"unicode"
	"unicode/utf8"
)

// maxPatternLen bounds a path pattern. Patterns are matched against
// attacker-chosen paths; 2048 bytes is longer than any sensible rule and
// keeps the matcher's worst case small.
const maxPatternLen = 2048

// ValidatePattern checks one Access path pattern in robots.txt syntax as
// Google's robots.txt parser applies it (RFC 9309 2.2.2): a pattern is
// non-empty, starts with "/" or "*", may use "*" anywhere and "$" only as
// its last character (where it anchors the end of the path), and holds no
// whitespace, control characters or "#" (which starts a comment in
// robots.txt-style files). Percent signs must start a valid escape, since
// request paths are compared in canonical percent-encoded form. Patterns
// are at most 2048 bytes of valid UTF-8.
//
// The error does not name a field; Validate adds the field path.
func ValidatePattern(p string) error {
	if p == "" {
		return errors.New(`empty pattern; use "/" to match every path`)
	}
	if len(p) > maxPatternLen {
		return fmt.Errorf("pattern is %d bytes long; at most %d are allowed", len(p), maxPatternLen)
	}
	if !utf8.ValidString(p) {
		return fmt.Errorf("pattern %q is not valid UTF-8", p)
	}
	if p[0] != '/' && p[0] != '*' {
		return fmt.Errorf(`pattern %q must start with "/" or "*"`, p)
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

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// access checks every Allow and Disallow pattern.
func (r *report) access() {
	for _, list := range []struct {
		name     string
		patterns []string
	}{{"Access.Allow", r.site.Access.Allow}, {"Access.Disallow", r.site.Access.Disallow}} {
		for i, p := range list.patterns {
			if err := ValidatePattern(p); err != nil {
				r.add(at(list.name, i), "", err.Error()+" (draft-car 2.6: robots.txt path syntax)")
			}
		}
	}
}
