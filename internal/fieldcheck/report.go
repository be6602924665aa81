// Package fieldcheck holds what config's rules and each discovery
// format's rules check fields with: a Report that collects problems by
// field path, in the Go spelling and a declaration file's, and the
// format-neutral checks of URLs, paths, credentials and names. It imports
// nothing of config, which imports it; the formats' rules
// (internal/publish) use it beside config's types.
package fieldcheck

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Problem is one problem: config.FieldError's fields, File being Msg as
// a declaration file spells it when it differs.
type Problem struct {
	Field, Format, Msg, File string
}

// Report collects problems while the rules run.
type Report struct {
	// AllowHTTP accepts plain http URLs anywhere (Formats.AllowHTTP).
	AllowHTTP bool
	// IDs maps each declared capability ID to its first index
	// (CapabilityRef).
	IDs      map[string]int
	Problems []Problem
}

// Add records a problem; msg may hold Alt spellings.
func (r *Report) Add(field, format, msg string) {
	p := Problem{Field: field, Format: format, Msg: msg}
	if strings.IndexByte(msg, altOpen) >= 0 {
		p.Msg, p.File = spell(msg, false), spell(msg, true)
	}
	r.Problems = append(r.Problems, p)
}

// Addf is Add with a format.
func (r *Report) Addf(field, format, msg string, args ...any) {
	r.Add(field, format, fmt.Sprintf(msg, args...))
}

// CapabilityRef reports a reference to an undeclared capability ID.
func (r *Report) CapabilityRef(field, id string) {
	if _, ok := r.IDs[id]; !ok || id == "" {
		r.Addf(field, "", "%q is not the ID of a declared capability", id)
	}
}

// A message names a field or a value as Go spells it and as a declaration
// file does: Alt and Ref mark the two spellings, Add splits them into
// Problem.Msg and Problem.File.
const (
	altOpen  = '\x00'
	altSep   = '\x01'
	altClose = '\x02'
)

// Alt is goText in Problem.Msg and fileText in a declaration file's
// report. Use it with %s, never %q.
func Alt(goText, fileText string) string {
	return string(altOpen) + goText + string(altSep) + fileText + string(altClose)
}

// Ref names the field at path (At("Agents", 2)) in either spelling.
func Ref(path string) string { return Alt(path, FilePath(path)) }

// spell keeps one spelling of each Alt in msg: the file's or Go's.
func spell(msg string, file bool) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(msg, altOpen)
		if i < 0 {
			b.WriteString(msg)
			return b.String()
		}
		b.WriteString(msg[:i])
		rest := msg[i+1:]
		j, k := strings.IndexByte(rest, altSep), strings.IndexByte(rest, altClose)
		if j < 0 || k < j {
			b.WriteString(rest) // not made by Alt
			return b.String()
		}
		if file {
			b.WriteString(rest[j+1 : k])
		} else {
			b.WriteString(rest[:j])
		}
		msg = rest[k+1:]
	}
}

// Sorted sorts and de-duplicates problems: sorted so that the output is
// deterministic and each field's problems sit together, stable so that a
// field's problems keep the order the rules found them in.
func Sorted(ps []Problem) []Problem {
	slices.SortStableFunc(ps, func(a, b Problem) int { return ComparePaths(a.Field, b.Field) })
	seen := make(map[Problem]bool, len(ps))
	out := ps[:0]
	for _, p := range ps {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// ComparePaths orders field paths case-insensitively, with runs of digits
// compared as numbers, so that Capabilities[2] sorts before
// Capabilities[10] and AWP sits between Audit and Capabilities.
func ComparePaths(a, b string) int {
	if c := compareNatural(strings.ToLower(a), strings.ToLower(b)); c != 0 {
		return c
	}
	return compareNatural(a, b)
}

func compareNatural(a, b string) int {
	for a != "" && b != "" {
		if isDigit(a[0]) && isDigit(b[0]) {
			na, nb := digitRun(a), digitRun(b)
			x, _ := strconv.ParseUint(a[:na], 10, 64)
			y, _ := strconv.ParseUint(b[:nb], 10, 64)
			if x != y {
				return cmp.Compare(x, y)
			}
			a, b = a[na:], b[nb:]
			continue
		}
		if a[0] != b[0] {
			return cmp.Compare(a[0], b[0])
		}
		a, b = a[1:], b[1:]
	}
	return len(a) - len(b)
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func digitRun(s string) int {
	n := 0
	for n < len(s) && isDigit(s[n]) {
		n++
	}
	return n
}

// At builds "field[i]".
func At(field string, i int) string { return field + "[" + strconv.Itoa(i) + "]" }

// JoinFormats joins format names for Problem.Format.
func JoinFormats(names ...string) string { return strings.Join(names, ", ") }

// Prose joins phrases as "a", "a and b", "a, b and c".
func Prose(items []string) string { return joinLast(items, " and ") }

// OrList joins alternatives as "a", "a or b", "a, b or c".
func OrList(items []string) string { return joinLast(items, " or ") }

func joinLast(items []string, last string) string {
	if len(items) <= 1 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + last + items[len(items)-1]
}
