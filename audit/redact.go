package audit

import (
	"slices"
	"strings"

	"github.com/agentready/agentready/internal/auditparams"
)

// Redacted replaces a sensitive value.
const Redacted = auditparams.Redacted

// A Redactor returns what an audit log records of one member of an
// event's params: value, or a replacement. Stores call it for every member
// at every depth, before hashing. It must be safe for concurrent use.
type Redactor func(key string, value any) any

// sensitiveWords are the names whose values DefaultRedactor hides, lower
// case, separators removed (api_key and apikey are one entry, as are card
// and card_number, which "card" covers).
var sensitiveWords = [...]string{
	"password", "passwd", "secret", "token", "apikey", "authorization",
	"card", "cardnumber", "cvv", "cvc", "ssn", "pin", "otp",
	// Session cookies and their ids, as frameworks name them (Django's
	// sessionid, Java's JSESSIONID, PHP's PHPSESSID, Express's
	// connect.sid), and credentials called auth.
	"cookie", "session", "sessionid", "sessid", "jsessionid", "phpsessid", "sid",
	"auth", "oauth",
}

// protocolNames are the members the v0.1.0 protocol itself names, kept
// whatever the words in them: the session header an agent sends (its
// value never reaches a params member: the token is hashed) and the
// session's id, which every event carries. Lower case.
var protocolNames = [...]string{"x-agent-session", "session_id"}

// DefaultRedactor replaces with Redacted the whole value of every member
// whose name has a word (or two adjacent words run together) that is,
// ignoring case, one of password, passwd, secret, token, api_key/apikey,
// authorization, card, card_number, cvv, cvc, ssn, pin, otp, cookie,
// session, session_id's spellings (sessionid, sessid, jsessionid,
// phpsessid, sid), auth or oauth. So "X-API-Key", "apiKey",
// "access_token", "newPassword", "CVV2", "Cookie", "JSESSIONID",
// "connect.sid" and "auth_code" are sensitive, and "spinner", "tokens",
// "discard", "author" and "side" are not; nor are the names the protocol
// records, X-Agent-Session and session_id.
func DefaultRedactor(key string, value any) any {
	if sensitiveKey(key) {
		return Redacted
	}
	return value
}

// sensitiveKey reports whether DefaultRedactor redacts the value of a
// member called key.
func sensitiveKey(key string) bool {
	for _, n := range protocolNames {
		if strings.EqualFold(key, n) {
			return false
		}
	}
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
	return slices.ContainsFunc(sensitiveWords[:], func(s string) bool {
		return len(a)+len(b) == len(s) && strings.EqualFold(s[:len(a)], a) && strings.EqualFold(s[len(a):], b)
	})
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
