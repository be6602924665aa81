package trail

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentready/agentready/internal/auditparams"
	"github.com/agentready/agentready/internal/reqbody"
)

// Limits on a recorded request body besides its size (the capability's
// BodyLimit, resolve.DefaultBodyLimit by default). A JSON object body is
// recorded member by member, and the audit trail's canonical form takes at
// most 64 levels of nesting; counting its values bounds the work.
const (
	// maxBodyDepth is the deepest a recorded JSON body may nest: the body
	// object is level 1, as the params object is in the audit trail.
	maxBodyDepth = auditparams.MaxDepth
	// maxBodyValues is the most values (members and array elements, at
	// every level) a recorded JSON body may hold.
	maxBodyValues = 10000
)

// BodyMember is the params member that records a request body that is not
// recorded member by member: one that is not exactly one JSON object
// (another content, invalid JSON, data after the object, a repeated member
// name, invalid UTF-8). Its value is an object with the body's
// content_type (as sent, at most 256 bytes), length and sha256 (lowercase
// hex), so the trail is faithful to the bytes the handler acted on.
const BodyMember = "$body"

// ruleBodyLimits is the Decision.Rule of a DenyBody.
const ruleBodyLimits = "body limits of recorded requests"

// Body errors, refused before the handler runs (DenyBody); the others are
// reqbody's.
var (
	errBodyDepth  = fmt.Errorf("the JSON body nests deeper than %d levels", maxBodyDepth)
	errBodyValues = fmt.Errorf("the JSON body holds more than %d values", maxBodyValues)
	// errBodyReserved refuses a JSON body with a member of a name the
	// audit trail records something else under (reservedMembers).
	errBodyReserved = errors.New("the JSON body has a member of a name the audit trail reserves")
)

// reservedMembers are the params names the trail records the target
// (auditparams.TargetMember), a query that collides with the body (QueryMember)
// and a body not recorded member by member (BodyMember) under.
var reservedMembers = [...]string{auditparams.TargetMember, QueryMember, BodyMember}

// readBody reads r's body, at most limit bytes, before the handler runs,
// and puts it back byte for byte for the handler. It returns the params to
// record (nil for an empty body) or why the request is refused, and the
// status to refuse it with (413 or 400).
func readBody(r *http.Request, limit int64) (params map[string]any, n int64, status int, err error) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, 0, 0, nil
	}
	b, err := reqbody.Buffer(r, limit)
	if err != nil {
		return nil, 0, http.StatusBadRequest, reqbody.ErrRead
	}
	n = int64(len(b))
	if n > limit {
		return nil, n, http.StatusRequestEntityTooLarge, reqbody.ErrTooLarge
	}
	if n == 0 {
		return nil, 0, 0, nil
	}
	params, err = normalizeBody(b, r.Header.Get("Content-Type"))
	if err != nil {
		return nil, n, http.StatusBadRequest, err
	}
	return params, n, 0, nil
}

// normalizeBody returns the params that record body: its members when it
// is exactly one JSON object that records faithfully, else BodyMember with
// its digest. The error is a body limit (depth, values) exceeded, or a
// member of a name the trail reserves (reservedMembers). A body
// sent as a form is recorded by its digest, even when it parses as JSON:
// the handler reads it as '&'-separated pairs, which its members do not
// show ({"id":"mug","note":"&qty=1000&"} is qty=1000 to r.FormValue). Any
// content type that mentions a form counts, however a framework parses it.
func normalizeBody(body []byte, contentType string) (map[string]any, error) {
	if utf8.Valid(body) && !strings.Contains(strings.ToLower(contentType), "form") {
		m, ok, err := decodeObject(body)
		if err != nil {
			return nil, err
		}
		if ok {
			for _, name := range reservedMembers {
				if _, ok := m[name]; ok {
					// The trail records something else under this name (the
					// target, a colliding query, a body's digest): it would
					// be overwritten, or read as that.
					return nil, fmt.Errorf("%w: %s", errBodyReserved, name)
				}
			}
			return m, nil
		}
	}
	sum := sha256.Sum256(body)
	if len(contentType) > 256 {
		contentType = contentType[:256]
	}
	return map[string]any{BodyMember: map[string]any{
		"content_type": strings.ToValidUTF8(contentType, "\uFFFD"),
		"length":       float64(len(body)),
		"sha256":       hex.EncodeToString(sum[:]),
	}}, nil
}

// decodeObject decodes body as one JSON object. ok is false when it is not
// exactly one (another value, invalid JSON, trailing data) or repeats a
// member name, even in another case, which parsers resolve differently, so that its members
// could not be recorded as the handler reads them. Numbers that a double
// holds exactly, as the audit trail's canonical form writes them, are
// recorded as numbers; any other is recorded as its text, a string.
func decodeObject(body []byte) (m map[string]any, ok bool, err error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	t, terr := dec.Token()
	if terr != nil || t != json.Delim('{') {
		return nil, false, nil
	}
	values := 0
	v, ok, err := decodeValue(dec, json.Delim('{'), 1, &values)
	if !ok || err != nil {
		return nil, false, err
	}
	if _, terr := dec.Token(); terr != io.EOF {
		return nil, false, nil // data after the object
	}
	return v.(map[string]any), true, nil
}

// decodeValue decodes the value whose first token t the decoder has just
// read, at nesting level depth.
func decodeValue(dec *json.Decoder, t json.Token, depth int, values *int) (any, bool, error) {
	switch t := t.(type) {
	case json.Delim:
		if depth > maxBodyDepth {
			return nil, false, errBodyDepth
		}
		switch t {
		case '{':
			m := map[string]any{}
			folded := map[string]bool{}
			for {
				k, err := dec.Token()
				if err != nil {
					return nil, false, nil
				}
				if k == json.Delim('}') {
					return m, true, nil
				}
				key, isKey := k.(string)
				if !isKey {
					return nil, false, nil
				}
				// A repeated name, or one that differs only in case:
				// encoding/json matches struct fields case-insensitively,
				// the last member winning, so a Go handler may read the
				// member the trail would not show.
				f := foldName(key)
				if folded[f] {
					return nil, false, nil
				}
				folded[f] = true
				if *values++; *values > maxBodyValues {
					return nil, false, errBodyValues
				}
				vt, err := dec.Token()
				if err != nil {
					return nil, false, nil
				}
				v, ok, err := decodeValue(dec, vt, depth+1, values)
				if !ok || err != nil {
					return nil, false, err
				}
				m[key] = v
			}
		case '[':
			a := []any{}
			for {
				et, err := dec.Token()
				if err != nil {
					return nil, false, nil
				}
				if et == json.Delim(']') {
					return a, true, nil
				}
				if *values++; *values > maxBodyValues {
					return nil, false, errBodyValues
				}
				v, ok, err := decodeValue(dec, et, depth+1, values)
				if !ok || err != nil {
					return nil, false, err
				}
				a = append(a, v)
			}
		}
		return nil, false, nil
	case json.Number:
		return exactNumber(string(t)), true, nil
	case string, bool, nil:
		return t, true, nil
	}
	return nil, false, nil
}

// foldName is key under Unicode case folding, as near as ToUpper then
// ToLower gets ("ID", "id", "Id" and "ıd" alike).
func foldName(key string) string { return strings.ToLower(strings.ToUpper(key)) }

// exactNumber returns a JSON number as the audit trail records it: a
// float64 when that double, written as the trail writes it (the shortest
// decimal that reads back as it, RFC 8785 3.2.2.3), denotes the same value
// as the text; the text itself, a string, otherwise
// ("12345678901234567891", which a double would round, or "1e400").
func exactNumber(s string) any {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || !sameDecimal(s, strconv.FormatFloat(f, 'e', -1, 64)) {
		return s
	}
	return f
}

// sameDecimal reports whether two decimal numbers in JSON or Go 'e'
// syntax denote the same value.
func sameDecimal(a, b string) bool {
	na, da, ea, oka := decimalParts(a)
	nb, db, eb, okb := decimalParts(b)
	if !oka || !okb {
		return false
	}
	if da == "" || db == "" {
		return da == db // zeros, whatever their sign
	}
	return na == nb && da == db && ea == eb
}

// decimalParts splits a decimal number into its sign, its significant
// digits (no leading or trailing zeros) and the exponent e such that the
// value is 0.digits × 10^e. ok is false for an exponent too large to
// compare (no double is that far out).
func decimalParts(s string) (neg bool, digits string, exp int, ok bool) {
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg, s = s[0] == '-', s[1:]
	}
	mant, e, hasE := strings.Cut(strings.ToLower(s), "e")
	if hasE {
		n, err := strconv.Atoi(e)
		if err != nil || n > 1e6 || n < -1e6 {
			return false, "", 0, false
		}
		exp = n
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	all := intPart + frac
	exp += len(intPart)
	lead := len(all) - len(strings.TrimLeft(all, "0"))
	all, exp = all[lead:], exp-lead
	all = strings.TrimRight(all, "0")
	if all == "" {
		exp = 0
	}
	return neg, all, exp, true
}
