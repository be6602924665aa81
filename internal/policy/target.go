package policy

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// An agent's request target has one canonical form, and only that form is
// decided on and forwarded (docs/enforcement.md, "One canonical target").
// NormalPath computes it, or refuses a target that routers read
// differently; Canonical and Decoded then give the readings rules match.

// The reasons NormalPath gives, as values: a refusal wraps one with the
// part at fault (TargetError.Part), and errors.Is matches by Code.
var (
	ErrNotOriginForm = &TargetError{Code: "not-origin-form", Reason: `the path does not start with "/"`}
	ErrEncodedSlash  = &TargetError{Code: "encoded-slash", Reason: `the path holds an encoded "/" (%2F), which some routers take as a separator and others as data`}
	ErrBackslash     = &TargetError{Code: "backslash", Reason: `the path holds a backslash, raw or encoded (%5C), which some servers take as a separator`}
	ErrNUL           = &TargetError{Code: "control", Reason: "the path holds a NUL or another control character"}
	ErrDotSegment    = &TargetError{Code: "dot-segment", Reason: `the path holds a dot segment ("." or "..", raw or encoded as %2E, alone or before a ";" path parameter), which some routers resolve and others route as a name`}
	ErrEmptySegment  = &TargetError{Code: "empty-segment", Reason: `the path holds an empty segment ("//", or a segment that is only a ";" path parameter) before its last, which some routers collapse and others keep`}
	ErrBadEscape     = &TargetError{Code: "bad-escape", Reason: `the path holds a "%" that does not start a percent-encoding of two hex digits`}
	ErrNotUTF8       = &TargetError{Code: "not-utf8", Reason: "the path's percent-decoded bytes are not UTF-8 (a Latin-1 URL such as /caf%E9, or an overlong encoding)"}
)

// TargetError says why a request target is refused: its readings differ
// in a way no rule can reconcile, because routers route it differently.
type TargetError struct {
	// Code names the fault in one stable token (docs/enforcement.md), for
	// metrics and reports: "dot-segment", "empty-segment", ...
	Code   string
	Reason string
	// Part is the part of the target at fault, as sent (a segment, an
	// escape), "" when the reason names no part.
	Part string
}

func (e *TargetError) Error() string {
	if e.Part != "" {
		return "ambiguous request target: " + e.Reason + ": " + e.Part
	}
	return "ambiguous request target: " + e.Reason
}

// Is matches another TargetError of the same Code, so that a refusal
// naming its part is the reason it wraps.
func (e *TargetError) Is(target error) bool {
	t, ok := target.(*TargetError)
	return ok && t.Code == e.Code
}

// at returns the refusal reason with the part p of the target at fault.
func (e *TargetError) at(p string) *TargetError {
	return &TargetError{Code: e.Code, Reason: e.Reason, Part: p}
}

// NormalPath returns the canonical form of rawPath, the escaped path as
// sent (r.URL.EscapedPath(), or RawPath when set), or why it is refused.
// The canonical form is RFC 3986 6.2.2's: every percent-encoding's hex
// digits upper case (6.2.2.1), the encodings of unreserved characters
// decoded (6.2.2.2); and every byte that may not appear raw in a segment
// (RFC 3986 3.3's pchar, plus '[' and ']', which net/url leaves raw) is
// percent-encoded, as a WHATWG client encodes it ('|' and '^', which
// browsers send raw, become %7C and %5E). Nothing else changes. It is
// rawPath itself, not a copy, when rawPath is already canonical.
//
// It refuses, naming the part at fault, what routers read differently:
//
//   - a path that does not start with "/" (asterisk and authority forms,
//     RFC 9112 3.2);
//   - a dot segment, "." or ".." in any spelling (%2E), also once the
//     segment's ";" path parameter is removed ("..;x", as servlet
//     containers resolve it): RFC 3986 5.2.4 resolves them, ServeMux
//     redirects raw ones but routes encoded ones as names, chi resolves
//     none;
//   - an empty segment before the last one ("//", and ";x" once its
//     parameter is removed): ServeMux redirects to the collapsed path,
//     Tomcat and Werkzeug collapse it, chi routes it as it is;
//   - an encoded '/' (%2F), a backslash raw or encoded (%5C), a NUL or any
//     other control byte raw or encoded;
//   - a '%' that does not start two hex digits (net/url refuses it,
//     other servers pass it on as data);
//   - percent-decoded bytes that are not UTF-8 (Latin-1 /caf%E9, the
//     overlong %C0%AE that some decoders read as '.').
//
// A ";" and what follows it in a segment are kept: StripParams gives the
// reading without them.
func NormalPath(rawPath string) (string, error) {
	if plainPath(rawPath) {
		// Most paths: nothing to normalise, nothing to refuse. The scan
		// below costs three times as much; the pipeline of an agent's
		// request is about 5% faster for it (bench/compare).
		return rawPath, nil
	}
	return normalPath(rawPath)
}

// plainPath reports whether p is canonical with nothing NormalPath
// refuses: it starts with "/", holds only bytes a segment holds raw but
// ';' (no '%', nothing to encode), and no segment but the last is empty
// and none is "." or "..".
func plainPath(p string) bool {
	if len(p) == 0 || p[0] != '/' {
		return false
	}
	seg, dots := 1, 0
	for i := 1; i < len(p); i++ {
		switch c := p[i]; {
		case c == '/':
			if n := i - seg; n == 0 || dots == n && n <= 2 {
				return false
			}
			seg, dots = i+1, 0
		case c == '.':
			dots++
		case !plainByte[c]:
			return false
		}
	}
	n := len(p) - seg
	return n == 0 || dots != n || n > 2
}

// plainByte marks the bytes plainPath takes: unreserved but '.', the
// sub-delims but ';', ':', '@', '[' and ']'.
var plainByte = func() (t [256]bool) {
	for c := range 256 {
		t[c] = urlClass[c]&(clsUnreserved|clsPath) != 0 && c != '.' && c != ';' && c != '/' || c == '*' || c == '$' || c == '[' || c == ']'
	}
	return t
}()

// normalPath is NormalPath's scan.
func normalPath(rawPath string) (string, error) {
	if len(rawPath) == 0 || rawPath[0] != '/' {
		return "", ErrNotOriginForm
	}
	// b stays nil while the output is rawPath's prefix up to i: most
	// targets are canonical and cost no allocation.
	var b []byte
	emit := func(i int, s ...byte) {
		if b == nil {
			b = make([]byte, 0, len(rawPath)+16)
			b = append(b, rawPath[:i]...)
		}
		b = append(b, s...)
	}
	seg := 1       // where the current segment starts in rawPath
	dots := 0      // dots before the segment's parameter
	other := false // something other than a dot before the parameter
	param := false // the segment's ";" parameter has started
	high := false  // the segment holds a byte >= 0x80, raw or encoded
	for i := 1; i <= len(rawPath); {
		if i == len(rawPath) || rawPath[i] == '/' {
			last := i == len(rawPath)
			switch {
			case !other && dots == 0 && !last:
				return "", ErrEmptySegment.at(rawPath[seg-1 : i+1]) // with its two "/"
			case !other && (dots == 1 || dots == 2):
				return "", ErrDotSegment.at(rawPath[seg:i])
			case high && !validUTF8(rawPath[seg:i]):
				return "", ErrNotUTF8.at(rawPath[seg:i])
			}
			if b != nil && !last {
				b = append(b, '/')
			}
			i++
			seg, dots, other, param, high = i, 0, false, false, false
			continue
		}
		c, n, escaped := rawPath[i], 1, false
		if c == '%' {
			v, ok := escapeAt(rawPath, i)
			if !ok {
				end := min(i+3, len(rawPath))
				return "", ErrBadEscape.at(rawPath[i:end])
			}
			c, n, escaped = v, 3, true
		}
		switch {
		case c == '/':
			return "", ErrEncodedSlash.at(rawPath[i : i+n])
		case c == '\\':
			return "", ErrBackslash.at(rawPath[i : i+n])
		case c < 0x20 || c == 0x7f:
			return "", ErrNUL.at(rawPath[i : i+n])
		case c >= 0x80:
			high = true
		}
		// What the dot and empty checks see: a ';' raw or encoded (%3B,
		// which some decoders strip as a parameter too) starts the
		// parameter.
		if !param {
			switch c {
			case ';':
				param = true
			case '.':
				dots++
			default:
				other = true
			}
		}
		switch raw := urlClass[c]&(clsUnreserved|clsPath) != 0 || c == '*' || c == '$' || c == '[' || c == ']'; {
		case escaped && urlClass[c]&clsUnreserved != 0:
			emit(i, c) // 6.2.2.2: an unreserved character is itself
		case escaped:
			if rawPath[i+1] != upperHex[c>>4] || rawPath[i+2] != upperHex[c&15] {
				emit(i, '%', upperHex[c>>4], upperHex[c&15]) // 6.2.2.1
			} else if b != nil {
				b = append(b, rawPath[i:i+3]...)
			}
		case raw:
			if b != nil {
				b = append(b, c)
			}
		default:
			emit(i, '%', upperHex[c>>4], upperHex[c&15])
		}
		i += n
	}
	if b == nil {
		return rawPath, nil
	}
	return string(b), nil
}

// validUTF8 reports whether the segment seg, whose percent-encodings are
// valid, decodes to UTF-8. url.PathUnescape and utf8.ValidString would say
// the same, with an allocation for every non-ASCII path.
func validUTF8(seg string) bool {
	var pending [utf8.UTFMax]byte
	n := 0
	for i := 0; i < len(seg); i++ {
		c := seg[i]
		if c == '%' {
			c, _ = escapeAt(seg, i)
			i += 2
		}
		if c < utf8.RuneSelf {
			if n > 0 {
				return false // a sequence cut short
			}
			continue
		}
		pending[n] = c
		n++
		if !utf8.FullRune(pending[:n]) {
			continue
		}
		if r, size := utf8.DecodeRune(pending[:n]); r == utf8.RuneError && size <= 1 {
			return false
		}
		n = 0 // a full rune is always the whole of pending: it began at 0
	}
	return n == 0
}

// StripParams returns the canonical path p with each segment's path
// parameter (from its first ';' to its end) removed: the path a servlet
// container (Tomcat, Jetty, Spring) routes, "/admin;x/users" as
// "/admin/users" and "/cart;jsessionid=A1" as "/cart". It is p itself
// when p holds no ';'.
func StripParams(p string) string {
	if strings.IndexByte(p, ';') < 0 {
		return p
	}
	var b strings.Builder
	b.Grow(len(p))
	for seg := range strings.SplitSeq(p[1:], "/") {
		b.WriteByte('/')
		name, _, _ := strings.Cut(seg, ";")
		b.WriteString(name)
	}
	return b.String()
}

// scriptExtensions are the extensions of the scripts a server runs with
// the rest of the path as PATH_INFO (RFC 3875 4.1.5): PHP's (Debian's
// handler takes .pht too), CGI's, mod_wsgi's, ISAPI's, ASP.NET's and
// ColdFusion's (ColdBox and FW/1 route /index.cfm/handler/action).
// Compared without case (IIS's file system has none).
var scriptExtensions = []string{
	".php", ".php3", ".php4", ".php5", ".php7", ".php8", ".pht", ".phtml", ".phar",
	".cgi", ".fcgi", ".pl", ".py", ".rb", ".wsgi", ".exe", ".dll",
	".asp", ".aspx", ".asmx", ".ashx", ".svc", ".cfm", ".cfml", ".cfc",
}

// PathInfo returns the PATH_INFO a server may route the canonical path p
// by: what follows the first and the last segment (but the last) that
// names a script ("/index.php/admin/users" is "/admin/users" to a PHP
// front controller; nginx's fastcgi_split_path_info splits at the last
// ".php/", PHP's built-in server at the first script it finds), "" for
// none. A segment's ";" parameter is not part of its name.
func PathInfo(p string) (first, last string) {
	if strings.IndexByte(p, '.') < 0 {
		return "", "" // no script without an extension
	}
	for i := 1; i < len(p); {
		end := strings.IndexByte(p[i:], '/')
		if end < 0 {
			break
		}
		end += i
		name, _, _ := strings.Cut(p[i:end], ";")
		if isScript(name) {
			if first == "" {
				first = p[end:]
			}
			last = p[end:]
		}
		i = end + 1
	}
	if last == first {
		last = ""
	}
	return first, last
}

func isScript(name string) bool {
	dot := strings.LastIndexByte(name, '.')
	if dot <= 0 {
		return false
	}
	return slices.ContainsFunc(scriptExtensions, func(ext string) bool { return strings.EqualFold(name[dot:], ext) })
}

// CutParams returns the canonical path p up to its first ';': the path a
// router that takes ";" as the start of the query routes (Fastify 4's
// find-my-way, useSemicolonDelimiter), "/api/search" for
// "/api/search;/x". It is p itself when p holds no ';'.
func CutParams(p string) string {
	p, _, _ = strings.Cut(p, ";")
	return p
}

// StripCookieless returns the canonical path p without its ASP.NET
// cookieless-state segments, "(S(id))", "(A(id))", "(F(ticket))" and their
// combinations ("(A(x)S(y))"), which ASP.NET removes before it routes:
// "/(S(x))/admin" is "/admin" there. It is p itself when p has none.
func StripCookieless(p string) string {
	if !strings.Contains(p, "/(") {
		return p
	}
	var b strings.Builder
	for seg := range strings.SplitSeq(p[1:], "/") {
		if !cookieless(seg) {
			b.WriteByte('/')
			b.WriteString(seg)
		}
	}
	if b.Len() == 0 || strings.HasSuffix(p, "/") && !strings.HasSuffix(b.String(), "/") {
		b.WriteByte('/')
	}
	return b.String()
}

// cookieless reports whether seg is one of ASP.NET's cookieless-state
// segments: "(" then one or more of a letter and "(...)", then ")".
func cookieless(seg string) bool {
	if len(seg) < 5 || seg[0] != '(' || seg[len(seg)-1] != ')' {
		return false
	}
	in := seg[1 : len(seg)-1]
	for in != "" {
		if len(in) < 3 || !('A' <= in[0] && in[0] <= 'Z') || in[1] != '(' {
			return false
		}
		end := strings.IndexByte(in, ')')
		if end < 0 || strings.IndexByte(in[2:end], '(') >= 0 {
			return false
		}
		in = in[end+1:]
	}
	return true
}
