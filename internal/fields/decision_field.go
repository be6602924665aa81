package fields

import (
	"maps"
	"net/http"
	"strings"

	"github.com/dunglas/httpsfv"

	"github.com/agentready/agentready/enforce"
)

// DropDecision removes from h every field a client may have sent as
// the decision: Agentready-Decision in any case and with '_', '.' or ' '
// for '-', the spellings CGI, WSGI and PHP read as that field (serve
// removes such names whatever they are; see its forward).
//
// A client that names the field in Connection would have a proxy behind
// (httputil.ReverseProxy, serve's) remove the one agentready sets: such a
// Connection token goes. A trailer of that name (trailer, r.Trailer's
// announced keys) is no longer announced, so that a proxy behind does not
// forward it to an upstream that merges trailers into the header; an
// application that reads trailers must not take one for the decision.
func DropDecision(h, trailer http.Header) {
	decision := func(k string, _ []string) bool { return sameName(k, enforce.HeaderDecision) }
	maps.DeleteFunc(trailer, decision)
	maps.DeleteFunc(h, decision)
	conn := h["Connection"]
	for i, v := range conn {
		if !containsFieldName(v, enforce.HeaderDecision) {
			continue
		}
		var keep []string
		for tok := range strings.SplitSeq(v, ",") {
			if tok = strings.TrimSpace(tok); tok != "" && !sameName(tok, enforce.HeaderDecision) {
				keep = append(keep, tok)
			}
		}
		conn[i] = strings.Join(keep, ", ")
	}
}

// containsFieldName reports whether the list v may hold name, compared
// without case ('_', '.' and ' ' read as '-').
func containsFieldName(v, name string) bool {
	for tok := range strings.SplitSeq(v, ",") {
		if sameName(strings.TrimSpace(tok), name) {
			return true
		}
	}
	return false
}

// sameName compares two field names without case, reading '_', '.' and
// ' ' in a as '-'.
func sameName(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x := a[i]
		if x == '_' || x == '.' || x == ' ' {
			x = '-'
		}
		if lower(x) != lower(b[i]) {
			return false
		}
	}
	return true
}

// SetDecision sets the decision field of d in h: policy (the agent
// policy's name), class, grade, purpose, capability and tool (absent when
// none), rule and outcome (docs/enforcement.md, "The decision, handed on").
func SetDecision(h http.Header, d *enforce.Decision) {
	var buf [256]byte
	if b, ok := appendDecision(buf[:0], d); ok {
		h[enforce.HeaderDecision] = []string{string(b)}
		return
	}
	v, err := marshalDecision(d)
	if err != nil {
		// Unreachable: its Tokens are names of agentready's.
		// The field is absent, never one a client wrote.
		return
	}
	h[enforce.HeaderDecision] = []string{v}
}

// marshalDecision renders the decision field of d with httpsfv: the
// dictionary of SetDecision, Display Strings for what is not
// printable ASCII.
func marshalDecision(d *enforce.Decision) (string, error) {
	dict := httpsfv.NewDictionary()
	dict.Add("policy", httpsfv.NewItem(sfBareString(d.Agent)))
	dict.Add("class", httpsfv.NewItem(httpsfv.Token(d.Class.Kind)))
	dict.Add("grade", httpsfv.NewItem(httpsfv.Token(d.Grade)))
	dict.Add("purpose", httpsfv.NewItem(httpsfv.Token(d.Class.Purpose)))
	if d.Capability != "" {
		dict.Add("capability", httpsfv.NewItem(sfBareString(d.Capability)))
	}
	if d.Tool != "" {
		dict.Add("tool", httpsfv.NewItem(sfBareString(d.Tool)))
	}
	dict.Add("rule", httpsfv.NewItem(sfBareString(d.Rule)))
	dict.Add("outcome", httpsfv.NewItem(httpsfv.Token(d.Outcome.String())))
	return httpsfv.Marshal(dict)
}

// appendDecision appends to b what httpsfv marshals SetDecision's
// dictionary to, when every String is printable ASCII and every Token one
// (ok); otherwise httpsfv renders it (Display Strings). Built with httpsfv
// every time, the field was a quarter of serve's own work on a request
// and 40 of its 70 allocations (cmd/agentready BenchmarkServeHandler);
// TestDecisionFieldAsHTTPSFV holds the two to the same bytes.
func appendDecision(b []byte, d *enforce.Decision) ([]byte, bool) {
	ok := true
	str := func(key, v string) {
		b = append(b, key...)
		b = append(b, '=', '"')
		for i := 0; i < len(v); i++ {
			switch c := v[i]; {
			case c < 0x20 || c > 0x7e:
				ok = false
			case c == '"' || c == '\\':
				b = append(b, '\\', c) // RFC 9651 4.1.6
			default:
				b = append(b, c)
			}
		}
		b = append(b, '"', ',', ' ')
	}
	tok := func(key, v string) {
		ok = ok && isSFToken(v)
		b = append(b, key...)
		b = append(b, '=')
		b = append(b, v...)
		b = append(b, ',', ' ')
	}
	str("policy", d.Agent)
	tok("class", d.Class.Kind)
	tok("grade", d.Grade)
	tok("purpose", d.Class.Purpose)
	if d.Capability != "" {
		str("capability", d.Capability)
	}
	if d.Tool != "" {
		str("tool", d.Tool)
	}
	str("rule", d.Rule)
	tok("outcome", d.Outcome.String())
	return b[:len(b)-2], ok
}

// isSFToken reports whether s is an RFC 9651 Token (3.3.4): ALPHA or
// "*", then tchar (RFC 9110 5.6.2), ":" or "/".
func isSFToken(s string) bool {
	if s == "" || !('a' <= s[0]|0x20 && s[0]|0x20 <= 'z' || s[0] == '*') {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !('a' <= c|0x20 && c|0x20 <= 'z' || '0' <= c && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~:/", c) >= 0) {
			return false
		}
	}
	return true
}

// sfBareString is s as an RFC 9651 String (3.3.3) when it is printable
// ASCII, else as a Display String (3.3.8), which carries any Unicode: a
// declaration's names and patterns may hold it.
func sfBareString(s string) any {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return httpsfv.DisplayString(s)
		}
	}
	return s
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
