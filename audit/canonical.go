package audit

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"iter"
	"math"
	"slices"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/gowebpki/jcs"
)

// The canonical serialisation is RFC 8785 (JCS). This file writes it
// directly for the JSON data model that normalize produces, because the
// append path runs on every session-bound request and JCS by way of
// json.Marshal and jcs.Transform costs several times the budget. Numbers
// other than small integers are formatted by jcs.NumberToJSON, and the
// tests hold every output byte-identical to jcs.Transform(json.Marshal(v))
// (TestCanonicalMatchesJCS, FuzzCanonical); VerifyJSON checks the same
// identity on every event it is given.

// CanonicalEvent returns the RFC 8785 serialisation of e, the bytes its
// hash is taken over. Params are taken as encoding/json would write them;
// an error means they have no JSON form (ErrParams).
func CanonicalEvent(e Event) ([]byte, error) {
	b, err := appendEventHead(make([]byte, 0, 512), &e, redaction{}, false)
	if err != nil {
		return nil, err
	}
	b = appendString(b, e.PrevHash)
	return appendEventTail(b, e.ResponseStatus, e.Timestamp), nil
}

// EventHash returns the lowercase hex SHA-256 of CanonicalEvent(e): the
// value the next event's prev_hash must hold.
func EventHash(e Event) (string, error) {
	b, err := CanonicalEvent(e)
	if err != nil {
		return "", err
	}
	return hashHex(b), nil
}

// RootHash returns the lowercase hex SHA-256 of the RFC 8785 serialisation
// of the JSON array of the given event hashes, in order:
// ["<hash 0>","<hash 1>",...]. No events hash as "[]".
func RootHash(eventHashes []string) string {
	b := make([]byte, 0, 2+len(eventHashes)*(sha256.Size*2+3))
	b = append(b, '[')
	for i, h := range eventHashes {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, h)
	}
	return hashHex(append(b, ']'))
}

// SigningPayload returns the bytes an artifact's Ed25519 signature covers:
// the RFC 8785 serialisation of
//
//	{"agent":{"name":…,"purpose":…,"version":…},"created_at":…,"ended_at":…,
//	 "root_hash":…,"session_id":…,"site":…}
//
// that is, the artifact without events (bound by the root hash), signature
// and public_key (bound by the signature itself). Binding the metadata
// means an artifact cannot be re-labelled as another session, site or time.
func SigningPayload(m Meta, rootHash string) []byte {
	b := make([]byte, 0, 192+len(m.SessionID)+len(m.Site)+len(m.Agent.Name)+len(m.Agent.Purpose)+len(m.Agent.Version))
	b = appendHead(b, m.Agent, m.CreatedAt, m.EndedAt)
	b = append(b, `,"root_hash":`...)
	b = appendString(b, rootHash)
	b = append(b, `,"session_id":`...)
	b = appendString(b, m.SessionID)
	b = append(b, `,"site":`...)
	b = appendString(b, m.Site)
	return append(b, '}')
}

// appendHead opens an object with the members that sort first in both the
// signing payload and the whole artifact: agent, created_at, ended_at.
func appendHead(b []byte, ag Agent, createdAt, endedAt string) []byte {
	b = append(b, `{"agent":{"name":`...)
	b = appendString(b, ag.Name)
	b = append(b, `,"purpose":`...)
	b = appendString(b, ag.Purpose)
	b = append(b, `,"version":`...)
	b = appendString(b, ag.Version)
	b = append(b, `},"created_at":`...)
	b = appendString(b, createdAt)
	b = append(b, `,"ended_at":`...)
	return appendString(b, endedAt)
}

func hashHex(b []byte) string {
	sum := sha256.Sum256(b)
	var h [2 * sha256.Size]byte // on the stack: one allocation, the string
	hex.Encode(h[:], sum[:])
	return string(h[:])
}

// scratch holds the buffers prepareUnlinked serialises into.
var scratch = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// record is an event as a store keeps it, unlinked: its canonical head
// (the members before prev_hash, through `"prev_hash":`), its timestamp
// and its status apart, since the store sets both (the timestamp is
// clamped to keep the chain's order, the status bound when the outcome is
// known), and no prev_hash at all: the links are computed when the events
// are read back (relink), so that appending needs no hash and no read of
// the chain's head, and appends never contend.
type record struct {
	head   []byte                // the store's to keep
	ts     [len(TimeLayout)]byte // the timestamp, its own copy
	status int                   // StatusUnrecorded until the outcome is bound
}

// prepareUnlinked validates e and serialises its head, params redacted by
// rd, into a slice of its own (the store keeps it). final says e carries
// its outcome (Append); otherwise its status is StatusUnrecorded (Begin).
func prepareUnlinked(e *Event, rd redaction, final bool) (record, error) {
	if !final {
		e.ResponseStatus = StatusUnrecorded
	}
	if err := checkEvent(e, final); err != nil {
		return record{}, err
	}
	bp := scratch.Get().(*[]byte)
	head, err := appendEventHead((*bp)[:0], e, rd, true)
	if err != nil {
		scratch.Put(bp)
		return record{}, err
	}
	r := record{head: slices.Clone(head), status: e.ResponseStatus}
	copy(r.ts[:], e.Timestamp) // checkEvent: exactly TimeLayout's length
	putScratch(bp, head)
	return r, nil
}

// prepareOutcome checks Complete's arguments and serialises amend's head
// (nil when amend is nil). The amended event's timestamp is not used:
// the store keeps the one Begin recorded.
func prepareOutcome(sessionID string, status int, amend *Event, rd redaction) ([]byte, error) {
	if sessionID == "" {
		return nil, ErrSessionID
	}
	if !validStatus(status) {
		return nil, fmt.Errorf("%w: response_status %d is not an HTTP status", ErrInvalidEvent, status)
	}
	if amend == nil {
		return nil, nil
	}
	e := *amend
	e.ResponseStatus = status
	if err := checkEvent(&e, true); err != nil {
		return nil, err
	}
	return appendEventHead(nil, &e, rd, true)
}

// relink links events kept unlinked in order, each its head, its prev_hash
// (the hash of the event before, "" for the first), its status and its
// timestamp, and decodes them.
func relink(stored iter.Seq[record], n int) ([]Event, error) {
	events := make([]Event, 0, n)
	var prev [2 * sha256.Size]byte
	var buf []byte
	for r := range stored {
		buf = append(buf[:0], r.head...)
		buf = append(buf, '"')
		if len(events) > 0 {
			buf = append(buf, prev[:]...)
		}
		buf = append(buf, '"')
		buf = appendEventTail(buf, r.status, string(r.ts[:]))
		var e Event
		if err := decodeStrictJSON(buf, &e); err != nil {
			return nil, fmt.Errorf("event %d: %w", len(events), err)
		}
		events = append(events, e)
		h := sha256.Sum256(buf)
		hex.Encode(prev[:], h[:])
	}
	if len(events) != n {
		return nil, fmt.Errorf("%d events read back, %d recorded", len(events), n)
	}
	return events, nil
}

// putScratch returns a buffer to the pool unless it grew too large to be
// worth keeping.
func putScratch(bp *[]byte, b []byte) {
	if cap(b) > 64<<10 {
		return
	}
	*bp = b[:0]
	scratch.Put(bp)
}

// appendEventHead writes the members of e that sort before prev_hash, and
// its name. RFC 8785 sorts members by UTF-16 code units, which for these
// ASCII names is: capability, event_id, method, params, policy_result,
// prev_hash, response_status, timestamp. Splitting at prev_hash lets a
// store serialise the event before it takes its lock and write only the
// link under it. Params (with Query) are redacted by rd on the way; nil
// params are written as {} when emptyNil is set (a producer records {}),
// else as null (Verify hashes what it is given).
func appendEventHead(b []byte, e *Event, rd redaction, emptyNil bool) ([]byte, error) {
	b = append(b, `{"capability":`...)
	b = appendString(b, e.Capability)
	b = append(b, `,"event_id":`...)
	b = appendString(b, e.EventID)
	b = append(b, `,"method":`...)
	b = appendString(b, e.Method)
	b = append(b, `,"params":`...)
	var err error
	switch {
	case len(e.Query) > 0:
		if len(e.Params) == 0 {
			var ok bool
			var out []byte
			if out, ok, err = appendQuery(b, e.Query, rd, e.Target); err != nil {
				return nil, err
			} else if ok {
				b = out
				break
			}
		}
		if b, err = appendParams(b, e.queryParams(), e.Target, rd); err != nil {
			return nil, err
		}
	case e.Params != nil || e.Target != nil:
		if b, err = appendParams(b, e.Params, e.Target, rd); err != nil {
			return nil, err
		}
	case emptyNil:
		b = append(b, "{}"...)
	default:
		b = append(b, "null"...)
	}
	b = append(b, `,"policy_result":{"decision":`...)
	b = appendString(b, e.PolicyResult.Decision)
	b = append(b, `,"rule":`...)
	b = appendString(b, e.PolicyResult.Rule)
	return append(b, `},"prev_hash":`...), nil
}

// appendEventTail writes the members after prev_hash's value.
func appendEventTail(b []byte, status int, timestamp string) []byte {
	b = append(b, `,"response_status":`...)
	if status >= 100 && status <= 999 { // an HTTP status: three digits
		b = append(b, byte('0'+status/100), byte('0'+status/10%10), byte('0'+status%10))
	} else {
		b = strconv.AppendInt(b, int64(status), 10)
	}
	b = append(b, `,"timestamp":`...)
	b = appendString(b, timestamp)
	return append(b, '}')
}

// appendRaw writes a value as the caller passed it, redacting object
// members with r (nil: none) on the way. Its output is by construction
// that of appendValue(normalize(v, r, depth)), which it mirrors for the
// common types without building the normalised copy; the rest (float32,
// json.Number, typed containers, structs) it normalises first.
func appendRaw(b []byte, v any, r Redactor, depth int) ([]byte, error) {
	if depth > MaxParamsDepth {
		return nil, fmt.Errorf("%w: nested deeper than %d levels", ErrParams, MaxParamsDepth)
	}
	if out, ok, err := appendScalar(b, v); ok {
		return out, err
	}
	switch x := v.(type) {
	case int:
		return appendNumber(b, float64(x))
	case int64:
		return appendNumber(b, float64(x))
	case int32:
		return appendNumber(b, float64(x))
	case uint:
		return appendNumber(b, float64(x))
	case uint64:
		return appendNumber(b, float64(x))
	case uint32:
		return appendNumber(b, float64(x))
	case map[string]any:
		return appendRawMap(b, x, r, depth+1)
	case []any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendRaw(b, e, r, depth+1); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	}
	n, err := normalize(v, r, depth)
	if err != nil {
		return nil, err
	}
	return appendValue(b, n)
}

// appendRawMap writes m as appendObject(normalizeMap(m, r, depth)) would.
func appendRawMap(b []byte, m map[string]any, r Redactor, depth int) ([]byte, error) {
	return appendMembers(b, m, r, depth, nil, redaction{})
}

// appendParams writes an event's params: m, and t (when not nil) as the
// member TargetMember, which m must not hold.
func appendParams(b []byte, m map[string]any, t *Target, rd redaction) ([]byte, error) {
	if t != nil {
		if _, ok := m[TargetMember]; ok {
			return nil, errTargetCollision
		}
	}
	return appendMembers(b, m, rd.fn, 1, t, rd)
}

// errTargetCollision reports a member of the reserved name beside a Target.
var errTargetCollision = fmt.Errorf("%w: the params member %q is reserved for the event's Target", ErrParams, TargetMember)

// appendMembers is appendRawMap with, when t is not nil, t as one more
// member, TargetMember, redacted by rd (whose fn is r).
func appendMembers(b []byte, m map[string]any, r Redactor, depth int, t *Target, rd redaction) ([]byte, error) {
	if depth > MaxParamsDepth {
		return nil, fmt.Errorf("%w: nested deeper than %d levels", ErrParams, MaxParamsDepth)
	}
	// The members are taken with their values in one pass over the map,
	// which saves a lookup per member after sorting.
	var small [16]member
	members := small[:0]
	for k, v := range m {
		if !utf8.ValidString(k) {
			// Repaired keys may collide; normalizeMap sorts that out.
			n, err := normalizeMap(m, r, depth)
			if err != nil {
				return nil, err
			}
			if t != nil {
				if _, ok := n[TargetMember]; ok {
					return nil, errTargetCollision
				}
				var tv any = t.value(rd)
				if r != nil {
					tv = r(TargetMember, tv)
				}
				if n[TargetMember], err = normalize(tv, r, depth); err != nil {
					return nil, err
				}
			}
			return appendObject(b, n)
		}
		members = append(members, member{k, v})
	}
	if t != nil {
		members = append(members, member{TargetMember, t})
	}
	slices.SortFunc(members, func(x, y member) int { return compareUTF16(x.key, y.key) })
	b = append(b, '{')
	for i, mb := range members {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, mb.key)
		b = append(b, ':')
		var err error
		if tt, ok := mb.value.(*Target); ok && t != nil && tt == t {
			if b, err = appendTarget(b, t, rd); err != nil {
				return nil, err
			}
			continue
		}
		v := mb.value
		if r != nil {
			v = r(mb.key, v)
		}
		if b, err = appendRaw(b, v, r, depth); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// maxQuickQuery bounds the Query params appendQuery writes; it groups
// them by name in quadratic time.
const maxQuickQuery = 16

// appendQuery writes Query params as appendRawMap writes the map
// Event.AllParams makes of them, without making it: it groups repeated
// names, sorts the names and redacts by name alone. It declines (ok false,
// nothing written) when that would not be the same: more than
// maxQuickQuery params, a name that is not valid UTF-8 (repaired names may
// collide) or a Redactor other than DefaultRedactor.
func appendQuery(b []byte, q []Param, rd redaction, t *Target) (out []byte, ok bool, err error) {
	if len(q) > maxQuickQuery || (rd.fn != nil && !rd.byName) {
		return b, false, nil
	}
	var first [maxQuickQuery]int // the first param of each name
	names := first[:0]
params:
	for i := range q {
		if !utf8.ValidString(q[i].Name) {
			return b, false, nil
		}
		if t != nil && q[i].Name == TargetMember {
			return nil, false, errTargetCollision
		}
		for _, j := range names {
			if q[j].Name == q[i].Name {
				continue params
			}
		}
		names = append(names, i)
	}
	for i := 1; i < len(names); i++ { // insertion sort: the names are few
		for j := i; j > 0 && compareUTF16(q[names[j-1]].Name, q[names[j]].Name) > 0; j-- {
			names[j-1], names[j] = names[j], names[j-1]
		}
	}
	b = append(b, '{')
	for n, i := range names {
		name := q[i].Name
		if n > 0 {
			b = append(b, ',')
		}
		if t != nil && compareUTF16(TargetMember, name) < 0 {
			// The target's member sorts here.
			if b, err = appendTarget(append(b, `"`+TargetMember+`":`...), t, rd); err != nil {
				return nil, false, err
			}
			b = append(b, ',')
			t = nil
		}
		b = appendString(b, name)
		b = append(b, ':')
		if rd.byName && SensitiveKey(name) {
			b = appendString(b, Redacted) // the whole list of a repeated name too
			continue
		}
		last := i
		for j := i + 1; j < len(q); j++ {
			if q[j].Name == name {
				last = j
			}
		}
		if last == i {
			b = appendString(b, q[i].Value)
			continue
		}
		b = append(b, '[')
		for j := i; j <= last; j++ {
			if q[j].Name == name {
				if j > i {
					b = append(b, ',')
				}
				b = appendString(b, q[j].Value)
			}
		}
		b = append(b, ']')
	}
	if t != nil {
		if len(names) > 0 {
			b = append(b, ',')
		}
		if b, err = appendTarget(append(b, `"`+TargetMember+`":`...), t, rd); err != nil {
			return nil, false, err
		}
	}
	return append(b, '}'), true, nil
}

type member struct {
	key   string
	value any
}

// appendScalar writes the scalars of the data model: null, booleans,
// strings (UTF-8 repaired as validString does) and float64 numbers. ok is
// false, and nothing written, for any other value.
func appendScalar(b []byte, v any) (out []byte, ok bool, err error) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), true, nil
	case bool:
		if x {
			return append(b, "true"...), true, nil
		}
		return append(b, "false"...), true, nil
	case string:
		return appendString(b, x), true, nil
	case float64:
		out, err = appendNumber(b, x)
		return out, true, err
	}
	return b, false, nil
}

// appendValue writes a value of the data model normalize produces.
func appendValue(b []byte, v any) ([]byte, error) {
	if out, ok, err := appendScalar(b, v); ok {
		return out, err
	}
	switch x := v.(type) {
	case map[string]any:
		return appendObject(b, x)
	case []any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendValue(b, e); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	}
	return nil, fmt.Errorf("%w: %T is not normalised", ErrParams, v) // unreachable after normalize
}

// appendObject writes m with its members sorted by the UTF-16 code units
// of their names (RFC 8785 §3.2.3).
func appendObject(b []byte, m map[string]any) ([]byte, error) {
	var small [16]string
	keys := small[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, compareUTF16)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, k)
		b = append(b, ':')
		var err error
		if b, err = appendValue(b, m[k]); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// appendNumber writes f as ECMAScript's Number.prototype.toString does
// (RFC 8785 §3.2.2.3). Integers below 2^53 in magnitude print as their
// digits, which is what that algorithm yields for them, without a detour
// through a string.
func appendNumber(b []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, fmt.Errorf("%w: %v is not a JSON number", ErrParams, f)
	}
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return strconv.AppendInt(b, int64(f), 10), nil
	}
	s, err := jcs.NumberToJSON(f)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrParams, err)
	}
	return append(b, s...), nil
}

const hexDigits = "0123456789abcdef"

// plain marks the bytes appendString copies as they are: printable ASCII
// other than '"' and '\'. Bytes from 0x80 are checked as UTF-8.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// plainPrefix returns a length, a multiple of 8, of a prefix of s whose
// bytes are all plain, testing 8 bytes at a time: the strings of an event
// are mostly plain ASCII, and the byte loop of appendString then starts
// near their end. It may stop early, never late.
func plainPrefix(s string) int {
	const (
		ones = 0x0101010101010101
		high = 0x8080808080808080
	)
	i := 0
	for ; i+8 <= len(s); i += 8 {
		t := s[i : i+8] // one bounds check; the compiler makes the eight loads one
		x := uint64(t[0]) | uint64(t[1])<<8 | uint64(t[2])<<16 | uint64(t[3])<<24 |
			uint64(t[4])<<32 | uint64(t[5])<<40 | uint64(t[6])<<48 | uint64(t[7])<<56
		q := x ^ ('"' * ones)
		bs := x ^ ('\\' * ones)
		// A byte of 0x80 or more, a byte below 0x20, a '"' (q has a zero
		// byte) or a '\' (bs has one): the tests for "below n" have no
		// false negatives, only false positives, which merely stop early.
		if (x|(x-0x20*ones)&^x|(q-ones)&^q|(bs-ones)&^bs)&high != 0 {
			break
		}
	}
	return i
}

// appendString writes s as a JSON string the way RFC 8785 §3.2.2.2 (after
// ECMAScript JSON.stringify) does: '"' and '\' escaped, the control
// characters U+0008, U+0009, U+000A, U+000C and U+000D as \b \t \n \f \r,
// the other controls below U+0020 as \u00xx in lowercase hex, and every
// other character as itself in UTF-8. A byte that is not valid UTF-8 is
// written as U+FFFD, as encoding/json would have.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start, i := 0, plainPrefix(s)
	for i < len(s) {
		c := s[i]
		if plain[c] {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\t':
				b = append(b, '\\', 't')
			case '\n':
				b = append(b, '\\', 'n')
			case '\f':
				b = append(b, '\\', 'f')
			case '\r':
				b = append(b, '\\', 'r')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, "\uFFFD"...)
			i++
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// compareUTF16 orders strings by their UTF-16 code units (RFC 8785
// §3.2.3). UTF-8 byte order is code point order, which differs from UTF-16
// order only between U+E000..U+FFFF and the supplementary planes, whose
// surrogates sort below U+E000.
func compareUTF16(a, b string) int {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		ca, cb := a[i], b[j]
		if ca < utf8.RuneSelf && cb < utf8.RuneSelf {
			if ca != cb {
				return int(ca) - int(cb)
			}
			i++
			j++
			continue
		}
		ra, na := utf8.DecodeRuneInString(a[i:])
		rb, nb := utf8.DecodeRuneInString(b[j:])
		if ra != rb {
			ha, la := utf16Units(ra)
			hb, lb := utf16Units(rb)
			if ha != hb {
				return int(ha) - int(hb)
			}
			return int(la) - int(lb)
		}
		i += na
		j += nb
	}
	return (len(a) - i) - (len(b) - j)
}

// utf16Units returns r's UTF-16 code units; the second is 0 for a rune of
// the Basic Multilingual Plane.
func utf16Units(r rune) (uint16, uint16) {
	if r < 0x10000 {
		return uint16(r), 0
	}
	r -= 0x10000
	return uint16(0xD800 + r>>10), uint16(0xDC00 + r&0x3FF)
}

// canonicalArtifact returns the RFC 8785 serialisation of a whole
// artifact, which VerifyJSON compares with jcs.Transform of the document
// it was decoded from. Members sort as agent, created_at, ended_at,
// events, public_key, root_hash, session_id, signature, site.
func canonicalArtifact(a *Artifact) ([]byte, error) {
	b := make([]byte, 0, 512+len(a.Events)*384)
	b = appendHead(b, a.Agent, a.CreatedAt, a.EndedAt)
	b = append(b, `,"events":`...)
	if a.Events == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, e := range a.Events {
			if i > 0 {
				b = append(b, ',')
			}
			c, err := CanonicalEvent(e)
			if err != nil {
				return nil, fmt.Errorf("event %d: %w", i, err)
			}
			b = append(b, c...)
		}
		b = append(b, ']')
	}
	b = append(b, `,"public_key":`...)
	b = appendString(b, a.PublicKey)
	b = append(b, `,"root_hash":`...)
	b = appendString(b, a.RootHash)
	b = append(b, `,"session_id":`...)
	b = appendString(b, a.SessionID)
	b = append(b, `,"signature":`...)
	b = appendString(b, a.Signature)
	b = append(b, `,"site":`...)
	b = appendString(b, a.Site)
	return append(b, '}'), nil
}

// CanonicalArtifact returns the RFC 8785 serialisation of a: the bytes an
// audit endpoint serves, which VerifyJSON accepts as they are.
func CanonicalArtifact(a *Artifact) ([]byte, error) {
	if a == nil {
		return nil, fmt.Errorf("audit: nil artifact")
	}
	return canonicalArtifact(a)
}
