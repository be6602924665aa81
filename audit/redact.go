package audit

import "strings"

// Redacted replaces a sensitive value.
const Redacted = "[REDACTED]"

// A Redactor decides what an audit log records of one object member of an
// event's params: it returns value, or a replacement for it. The stores
// call it for every member at every depth, before hashing, with the
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
	if sensitiveKey(key) {
		return Redacted
	}
	return value
}

// sensitiveKey reports whether DefaultRedactor redacts the value of a
// member called key.
func sensitiveKey(key string) bool {
	prev := ""
	for i := 0; i < len(key); {
		start, end := nextWord(key, i)
		if start < 0 {
			return false
		}
		w := key[start:end]
		if isSensitiveWord(w, "") || (prev != "" && isSensitiveWord(prev, w)) {
			return true
		}
		prev, i = w, end
	}
	return false
}

// isSensitiveWord reports whether a+b, ignoring case, is one of
// sensitiveWords.
func isSensitiveWord(a, b string) bool {
	for _, s := range sensitiveWords {
		if len(a)+len(b) == len(s) && strings.EqualFold(s[:len(a)], a) && strings.EqualFold(s[len(a):], b) {
			return true
		}
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

func class(c byte) charClass {
	switch {
	case 'a' <= c && c <= 'z':
		return lower
	case 'A' <= c && c <= 'Z':
		return upper
	case '0' <= c && c <= '9':
		return digit
	}
	return other
}
