package fieldcheck

import (
	"strconv"
	"strings"
	"unicode"
)

// FilePath spells a field path of a FieldError (Go field names) as a
// declaration file writes it: every field name its key (Key), indexes
// and map keys as they are. "Agents[0].Verify.IPRanges" is
// "agents[0].verify.ip_ranges".
func FilePath(path string) string {
	var b strings.Builder
	for path != "" {
		if path[0] == '[' {
			// An index or a map key, which may hold '.' or '[' when quoted.
			end := strings.IndexByte(path, ']')
			if path[1] == '"' {
				if q, err := strconv.QuotedPrefix(path[1:]); err == nil {
					end = 1 + len(q)
				}
			}
			if end < 0 {
				b.WriteString(path)
				break
			}
			b.WriteString(path[:end+1])
			path = path[end+1:]
			continue
		}
		if path[0] == '.' {
			b.WriteByte('.')
			path = path[1:]
			continue
		}
		i := strings.IndexAny(path, ".[")
		if i < 0 {
			i = len(path)
		}
		b.WriteString(Key(path[:i]))
		path = path[i:]
	}
	return b.String()
}

// Key is the declaration-file key of a Go field name: its words in
// snake_case, an acronym a word of its own, and a run of known acronyms
// split ("AgentsJSONURL" is agents_json_url, "IPRanges" ip_ranges,
// "JWKSURI" jwks_uri, "RequiresSession" requires_session). A digit
// after a capital is part of the acronym ("A2AVersion" is a2a_version).
func Key(name string) string {
	var words []string
	r := []rune(name)
	for i := 0; i < len(r); {
		j := i + 1
		if unicode.IsUpper(r[i]) && j < len(r) && upperOrDigit(r[j]) {
			// An acronym run; its last letter starts the next word when a
			// lower case letter follows it.
			for j < len(r) && upperOrDigit(r[j]) {
				j++
			}
			if j < len(r) && unicode.IsLower(r[j]) {
				j--
			}
			words = append(words, splitAcronyms(string(r[i:j]))...)
			i = j
			continue
		}
		for j < len(r) && !unicode.IsUpper(r[j]) {
			j++
		}
		words = append(words, string(r[i:j]))
		i = j
	}
	return strings.ToLower(strings.Join(words, "_"))
}

// upperOrDigit is whether r continues an acronym run.
func upperOrDigit(r rune) bool { return unicode.IsUpper(r) || unicode.IsDigit(r) }

// acronyms are those the field names run together.
var acronyms = []string{"JWKS", "JSON", "HTTP", "URL", "URI", "API", "MCP", "AWP", "TTL", "ID", "IP", "AI"}

// splitAcronyms splits a run of upper case letters into known acronyms,
// or returns it whole when it is not made of them.
func splitAcronyms(run string) []string {
	var out []string
	for run != "" {
		found := false
		for _, a := range acronyms {
			if strings.HasPrefix(run, a) {
				out, run, found = append(out, a), run[len(a):], true
				break
			}
		}
		if !found {
			return []string{strings.Join(out, "") + run}
		}
	}
	return out
}
