package policy

// Bounds of User-Agent tokenizing. A User-Agent is attacker-controlled;
// with these bounds one classification reads at most MaxUserAgentLen bytes
// and looks up at most MaxUserAgentTokens names, whatever is sent. Real
// User-Agents, agents' included, name themselves well within both: the
// longest published crawler strings are under 300 bytes and 16 tokens. A
// client that hides its name past the bounds is classified as if it had
// not sent it, which it could do anyway: User-Agent classification says
// who a client claims to be, it does not authenticate.
const (
	MaxUserAgentLen    = 512
	MaxUserAgentTokens = 32
)

// Byte classes of the tokenizer, as bit flags so that each scanning loop
// tests one mask. A byte of a product name has no flag.
const (
	uaSpace = 1 << iota // space, tab, control: ends a word
	uaList              // ';' or ',': ends a word, and a comment item
	uaOpen              // '(' opens a comment
	uaClose             // ')' closes a comment
	uaSlash             // '/' ends a name; its version follows

	uaEndWord = uaSpace | uaList | uaOpen | uaClose // ends a top-level word
	uaEndItem = uaList | uaOpen | uaClose           // ends a comment item
)

var uaClass = func() (t [256]uint8) {
	for c := 0; c < 0x20; c++ {
		t[c] = uaSpace
	}
	t[' '], t[0x7f] = uaSpace, uaSpace
	t[';'], t[','] = uaList, uaList
	t['('], t[')'], t['/'] = uaOpen, uaClose, uaSlash
	return t
}()

// Tokens yields the product-token names of a User-Agent without
// allocating. The zero value yields nothing; use ProductTokens.
//
// A User-Agent is a list of products "Name/version" and comments "(...)"
// (RFC 9110 10.1.5). Tokens yields, in order:
//
//   - every top-level word's name: the text before its '/', where words
//     are separated by whitespace, ';' and ',' (real agents separate
//     top-level products with ';', as in "...(KHTML, like Gecko);
//     compatible; ChatGPT-User/1.0; +https://openai.com/bot"); a product
//     need not have a version, so "Linguee Bot" yields "Linguee" and "Bot";
//   - inside comments, the name of every item: items are separated by ';'
//     and ',', and an item's name is its text up to the first '/' or
//     whitespace, leading whitespace skipped ("(compatible; ClaudeBot/1.0;
//     +https://...)" yields "compatible", "ClaudeBot", "+https:"). Nested
//     comments are items too.
//
// The first name yielded is the first product token (the text before the
// first '/' or whitespace). Unbalanced parentheses are tolerated: a stray
// ')' is a separator, an unclosed '(' runs to the end. Every name is a
// non-empty substring of the input; only the first MaxUserAgentLen bytes
// are read and at most MaxUserAgentTokens names are yielded.
type Tokens struct {
	s     string
	i     int
	depth int // comment nesting
	n     int // names yielded
}

// ProductTokens returns the tokenizer of ua.
func ProductTokens(ua string) Tokens {
	if len(ua) > MaxUserAgentLen {
		ua = ua[:MaxUserAgentLen]
	}
	return Tokens{s: ua}
}

// Next returns the next name, or ok == false when there is none.
func (t *Tokens) Next() (name string, ok bool) {
	if t.n >= MaxUserAgentTokens {
		return "", false
	}
	start, end, next, depth := nextName(t.s, t.i, t.depth)
	t.i, t.depth = next, depth
	if start == end {
		return "", false
	}
	t.n++
	return t.s[start:end], true
}

// nextName finds the next product name in s from index i at comment depth
// depth: it returns the name's bounds (start == end when there is none),
// the index after the name's word or item, and the depth there. It is the
// tokenizer's core, shared by Tokens and Classify; its state travels in
// registers rather than through a struct.
func nextName(s string, i, depth int) (start, end, next, newDepth int) {
	for i < len(s) {
		switch uaClass[s[i]] {
		case 0:
			start = i
			for i < len(s) && uaClass[s[i]] == 0 {
				i++
			}
			end = i
			return start, end, skipRest(s, i, depth), depth
		case uaOpen:
			depth++
			i++
		case uaClose:
			if depth > 0 {
				depth--
			}
			i++
		case uaSlash:
			// A word or item that starts with '/' has an empty name:
			// skip it whole, or its version would pass for a name.
			i = skipRest(s, i, depth)
		default:
			i++
		}
	}
	return i, i, i, depth
}

// skipRest returns the end of the word (top level: up to whitespace, ';',
// ',' or a parenthesis) or comment item (up to ';', ',' or a parenthesis)
// that continues at s[i].
func skipRest(s string, i, depth int) int {
	stop := uint8(uaEndWord)
	if depth > 0 {
		stop = uaEndItem
	}
	for i < len(s) && uaClass[s[i]]&stop == 0 {
		i++
	}
	return i
}
