package fieldcheck

import (
	"math"
	"net/url"
	"regexp"
	"slices"
	"strings"
)

// draft-car 5.3: "Capability declarations MUST NOT include actual
// credentials, API keys, tokens, or secrets of any kind." A declaration is
// published to everyone, so a credential pasted into it leaks. These checks
// catch the common shapes; messages never echo the suspected secret.

const CredentialRule = "declarations are public and MUST NOT include credentials (draft-car 5.3)"

// URLCredentials rejects user information, credential-like query
// parameters and fragment members in a URL, and a JWT or a known key
// format anywhere in it (URLCredentialKind). It does not apply the
// high-entropy test: paths and queries hold document ids.
func (r *Report) URLCredentials(field string, u *url.URL) {
	if u.User != nil {
		r.Add(field, "", "carries user information (user:password@); "+CredentialRule)
	}
	for _, k := range CredentialMembers(u.RawQuery, false) {
		r.Addf(field, "", "has the query parameter %q, which carries a credential; %s", k, CredentialRule)
	}
	for _, k := range CredentialMembers(u.EscapedFragment(), true) {
		r.Addf(field, "", "has the fragment member %q, which carries a credential (a page's script reads it); %s", k, CredentialRule)
	}
	for _, part := range []struct{ where, raw string }{
		{"host", u.Host}, {"path", u.EscapedPath()}, {"query", u.RawQuery}, {"fragment", u.EscapedFragment()},
	} {
		if kind := URLCredentialKind(part.raw); kind != "" {
			r.Addf(field, "", "has %s in its %s; %s", kind, part.where, CredentialRule)
		} else if part.where == "path" {
			if kind := CredentialKind(part.raw, false); kind != "" {
				r.Addf(field, "", "has %s in its path; %s", kind, CredentialRule)
			}
		}
	}
}

// CredentialMembers are the names, decoded and sorted, of the members of
// a query or fragment (name=value, separated by "&" or ";", as servers
// and scripts split them) that carry a credential (CredentialParam). In
// a fragment only a member with "=" counts: "#token" is an anchor.
func CredentialMembers(raw string, needValue bool) []string {
	var bad []string
	for _, m := range strings.FieldsFunc(raw, func(r rune) bool { return r == '&' || r == ';' }) {
		name, _, hasValue := strings.Cut(m, "=")
		if needValue && !hasValue {
			continue
		}
		if n, err := url.QueryUnescape(name); err == nil {
			name = n
		}
		if CredentialParam(name) && !slices.Contains(bad, name) {
			bad = append(bad, name)
		}
	}
	slices.Sort(bad)
	return bad
}

// URLCredentialKind says what credential one part of a URL holds, as
// written or percent-decoded: a JSON Web Token, an AWS access key ID, or
// a known key prefix (KeyPrefixes) starting a word (letters, digits, "_"
// and "-": in a URL "/", "." and "=" separate words) whose rest is as
// long as a key's and looks random, mixing upper and lower case letters
// and digits, as keys do and slugs ("sk-hynix-earnings-2024") do not.
func URLCredentialKind(raw string) string {
	forms := []string{raw}
	if d, err := url.PathUnescape(raw); err == nil && d != raw {
		forms = append(forms, d)
	}
	for _, s := range forms {
		if JWTPattern.MatchString(s) {
			return "a JSON Web Token"
		}
		if AWSKeyPattern.MatchString(s) {
			return "an AWS access key ID"
		}
		for _, w := range strings.FieldsFunc(s, func(r rune) bool { return !urlKeyChar(r) }) {
			for _, p := range KeyPrefixes {
				if rest, ok := strings.CutPrefix(w, p.Prefix); ok && len(rest) >= p.Rest && mixed(rest) {
					return "an API key (" + p.Prefix + "...)"
				}
			}
		}
	}
	return ""
}

// urlKeyChar is the alphabet of the keys of KeyPrefixes.
func urlKeyChar(r rune) bool {
	return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_' || r == '-'
}

// mixed reports whether s holds an upper-case letter, a lower-case letter
// and a digit.
func mixed(s string) bool {
	var upper, lower, digit bool
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case 'A' <= c && c <= 'Z':
			upper = true
		case 'a' <= c && c <= 'z':
			lower = true
		case '0' <= c && c <= '9':
			digit = true
		}
	}
	return upper && lower && digit
}

// CredentialParam reports whether a query parameter name is one that
// carries a secret (token, access_token, api_key, apikey, key, secret,
// client_secret, password, sig, signature, jwt, auth, authorization and
// their spellings).
func CredentialParam(name string) bool {
	n := strings.NewReplacer("-", "", "_", "").Replace(strings.ToLower(name))
	if slices.Contains(CredentialParamNames, n) {
		return true
	}
	for _, suffix := range CredentialParamSuffixes {
		if strings.HasSuffix(n, suffix) {
			return true
		}
	}
	return false
}

// CredentialParamNames are the names CredentialParam refuses, lower case
// and without "-" and "_"; CredentialParamSuffixes the ends it refuses.
var (
	CredentialParamNames = []string{"token", "accesstoken", "apikey", "key", "secret", "clientsecret",
		"password", "passwd", "pwd", "sig", "signature", "xapikey", "jwt", "auth", "authorization"}
	CredentialParamSuffixes = []string{"token", "secret", "password", "apikey", "signature", "jwt"}
)

// CredentialField rejects a string field that looks like a credential.
func (r *Report) CredentialField(field, value string) {
	if kind := CredentialKind(value, true); kind != "" {
		r.Addf(field, "", "looks like %s; %s", kind, CredentialRule)
	}
}

var (
	JWTPattern    = regexp.MustCompile(`eyJ[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]*`)
	AWSKeyPattern = regexp.MustCompile(`AKIA[0-9A-Z]{16}`)
	uuidPattern   = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
)

// KeyPrefixes are the published prefixes of common API keys, with the
// least number of characters that follow them in a real key (so that a
// scope such as "sk-read" is not mistaken for one).
var KeyPrefixes = []struct {
	Prefix string
	Rest   int
}{
	{"sk_live_", 16}, {"sk_test_", 16}, {"rk_live_", 16}, {"sk-", 16},
	{"ghp_", 20}, {"gho_", 20}, {"ghs_", 20}, {"github_pat_", 20},
	{"xoxb-", 10}, {"xoxp-", 10}, {"AIza", 20},
}

// CredentialKind says what kind of credential s looks like, "" when none.
// strict adds the high-entropy test, which is only meaningful for short
// fields (scopes, header names), not for URLs whose paths may hold ids.
func CredentialKind(s string, strict bool) string {
	l := strings.ToLower(strings.TrimSpace(s))
	if strings.HasPrefix(l, "bearer ") || strings.HasPrefix(l, "basic ") {
		return "an Authorization header value"
	}
	if JWTPattern.MatchString(s) {
		return "a JSON Web Token"
	}
	if AWSKeyPattern.MatchString(s) {
		return "an AWS access key ID"
	}
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return !credentialChar(r) }) {
		for _, p := range KeyPrefixes {
			if strings.HasPrefix(w, p.Prefix) && len(w)-len(p.Prefix) >= p.Rest {
				return "an API key (" + p.Prefix + "...)"
			}
		}
		if strict && highEntropy(w) {
			return "a secret (a long random-looking string)"
		}
	}
	return ""
}

// credentialChar is the alphabet of keys and tokens: base64, base64url and
// hex, with "." for the parts of a JWT.
func credentialChar(r rune) bool {
	return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' ||
		r == '+' || r == '/' || r == '=' || r == '_' || r == '-' || r == '.'
}

// highEntropy reports whether w looks like a random secret: at least 32
// characters of the base64/hex alphabet, mixing letters and digits, with
// at least 3 bits of entropy per character. UUIDs are identifiers, not
// secrets, and are let through.
func highEntropy(w string) bool {
	if len(w) < 32 || strings.Contains(w, ".") || uuidPattern.MatchString(w) {
		return false
	}
	var letters, digits bool
	counts := map[rune]int{}
	for _, r := range w {
		switch {
		case '0' <= r && r <= '9':
			digits = true
		case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z':
			letters = true
		}
		counts[r]++
	}
	if !letters || !digits {
		return false
	}
	var h float64
	n := float64(len(w))
	for _, c := range counts {
		p := float64(c) / n
		h -= p * math.Log2(p)
	}
	return h >= 3
}
