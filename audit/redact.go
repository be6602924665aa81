package audit

import "reflect"

// Redacted replaces a sensitive value.
const Redacted = "[REDACTED]"

// A Redactor decides what an audit log records of one object member of an
// event's params: it returns value, or a replacement for it. Chain and the
// stores call it for every member at every depth, before hashing, with the
// member's name and its value as the caller passed it; members of objects
// inside the returned value (inside arrays too) are visited in turn. It
// must be safe for concurrent use.
type Redactor func(key string, value any) any

// sensitiveWords are the names whose values DefaultRedactor hides, lower
// case, separators removed (api_key and apikey are one entry, as are card
// and card_number, which "card" covers).
var sensitiveWords = [...]string{
	"password", "passwd", "secret", "token", "apikey", "authorization",
	"card", "cardnumber", "cvv", "cvc", "ssn", "pin", "otp",
}

// DefaultRedactor replaces with Redacted the value of every member whose
// name is sensitive, whatever the value (an object or array under such a
// name goes whole). A name is sensitive when one of its words, or two
// adjacent words run together, is, ignoring case, one of password, passwd,
// secret, token, api_key/apikey, authorization, card, card_number, cvv,
// cvc, ssn, pin or otp. Words are split at every character that is not an
// ASCII letter or digit, between a lower-case letter and an upper-case
// one, before the last capital of a run followed by a lower-case letter,
// and between letters and digits. So "password", "X-API-Key", "apiKey",
// "access_token", "newPassword", "CVV2" and "card_number" are sensitive,
// and "shipping", "spinner", "tokens" and "discard" are not.
func DefaultRedactor(key string, value any) any {
	if SensitiveKey(key) {
		return Redacted
	}
	return value
}

// SensitiveKey reports whether DefaultRedactor redacts the value of a
// member called key. It does not allocate.
func SensitiveKey(key string) bool {
	if len(key) < minSensitiveLen {
		return false // too short to hold any sensitive word ("q", "id")
	}
	var prevStart, prevEnd int = -1, -1
	for i := 0; i < len(key); {
		start, end := nextWord(key, i)
		if start < 0 {
			return false
		}
		w := key[start:end]
		if isSensitiveWord(w, "") {
			return true
		}
		if prevStart >= 0 && isSensitiveWord(key[prevStart:prevEnd], w) {
			return true
		}
		prevStart, prevEnd = start, end
		i = end
	}
	return false
}

// sensitiveByLen lists sensitiveWords by length: most words are rejected
// by their length alone, the rest compared with a few candidates.
// minSensitiveLen is the length of the shortest sensitive word.
var minSensitiveLen = func() int {
	n := len(sensitiveWords[0])
	for _, w := range sensitiveWords {
		n = min(n, len(w))
	}
	return n
}()

var sensitiveByLen = func() (t [16][]string) {
	for _, s := range sensitiveWords {
		t[len(s)] = append(t[len(s)], s)
	}
	return t
}()

// isSensitiveWord reports whether a+b, ignoring ASCII case, is one of
// sensitiveWords. a and b hold only ASCII letters and digits, so OR-ing
// 0x20 lowers a letter and leaves a digit alone.
func isSensitiveWord(a, b string) bool {
	n := len(a) + len(b)
	if n >= len(sensitiveByLen) {
		return false
	}
words:
	for _, s := range sensitiveByLen[n] {
		for i := 0; i < len(a); i++ {
			if a[i]|0x20 != s[i] {
				continue words
			}
		}
		for i := 0; i < len(b); i++ {
			if b[i]|0x20 != s[len(a)+i] {
				continue words
			}
		}
		return true
	}
	return false
}

// nextWord returns the bounds of the first word of key at or after i, or
// -1, -1 when there is none.
func nextWord(key string, i int) (int, int) {
	for i < len(key) && class(key[i]) == other {
		i++
	}
	if i == len(key) {
		return -1, -1
	}
	start := i
	for i++; i < len(key); i++ {
		prev, cur := class(key[i-1]), class(key[i])
		switch {
		case cur == other:
			return start, i
		case prev == lower && cur == upper:
			return start, i
		case (prev == digit) != (cur == digit):
			return start, i
		case prev == upper && cur == upper && i+1 < len(key) && class(key[i+1]) == lower:
			return start, i // "APIKey": API | Key
		}
	}
	return start, i
}

type charClass uint8

const (
	other charClass = iota
	lower
	upper
	digit
)

var classes = func() (t [256]charClass) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = lower
	}
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = upper
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = digit
	}
	return t
}()

func class(c byte) charClass { return classes[c] }

// redaction is a store's Redactor with what the append path may assume of
// it.
type redaction struct {
	fn Redactor // nil: nothing is redacted
	// byName: fn is DefaultRedactor, whose answer depends on the member's
	// name alone, so that Event.Query params are redacted without a call
	// (which would box each value).
	byName bool
}

// redactWith returns the redaction r does. Telling DefaultRedactor by its
// code pointer errs only one way: a function that merely calls it is not
// recognised, and takes the general path.
func redactWith(r Redactor) redaction {
	return redaction{fn: r, byName: r != nil && reflect.ValueOf(r).Pointer() == reflect.ValueOf(DefaultRedactor).Pointer()}
}

// Redact returns a copy of params in the JSON data model (see Event.Params)
// with r applied as a Chain or store applies it (DefaultRedactor when r is
// nil). The caller's map is never modified.
func Redact(params map[string]any, r Redactor) (map[string]any, error) {
	if r == nil {
		r = DefaultRedactor
	}
	return normalizeParams(params, r, false)
}
