package webbotauth

import (
	"errors"
	"testing"
)

// TestAgentURL: the identifier of a Signature-Agent value
// (draft-ietf-webbotauth-httpsig-protocol-01 5.5: normalised per RFC 3986
// 6.2.2 and 6.2.3, the query discarded), an origin for the well-known
// directory, and what is fetched for it.
func TestAgentURL(t *testing.T) {
	cases := []struct {
		in, want, fetch string // want "" for an error
	}{
		{"https://chatgpt.com", "https://chatgpt.com", "https://chatgpt.com" + DirectoryPath},
		{"https://chatgpt.com/", "https://chatgpt.com", "https://chatgpt.com" + DirectoryPath},
		{"HTTPS://ChatGPT.com:443", "https://chatgpt.com", "https://chatgpt.com" + DirectoryPath},
		{"https://a.example" + DirectoryPath, "https://a.example", "https://a.example" + DirectoryPath},
		{"https://a.example/.well-known/http-message-signatures-%64irectory", "https://a.example", "https://a.example" + DirectoryPath},
		{"https://a.example/?q=1", "https://a.example", "https://a.example" + DirectoryPath},
		{"https://a.example/jwks.json", "https://a.example/jwks.json", "https://a.example/jwks.json"},
		{"https://a.example/jwks.json?v=1&w=%20", "https://a.example/jwks.json", "https://a.example/jwks.json?v=1&w=%20"},
		{"https://a.example/a/./b/../c/%7euser/%2f%41", "https://a.example/a/c/~user/%2FA", "https://a.example/a/c/~user/%2FA"},
		{"https://a.example/..", "https://a.example", "https://a.example" + DirectoryPath},
		{"https://a.example/a/..", "https://a.example", "https://a.example" + DirectoryPath},
		{"https://a.example/a/b/", "https://a.example/a/b/", "https://a.example/a/b/"},
		{"https://a.example:8443/k", "https://a.example:8443/k", "https://a.example:8443/k"},
		{"http://127.0.0.1:80/k", "http://127.0.0.1/k", "http://127.0.0.1/k"},
		{"https://[2001:DB8::1]/k", "https://[2001:db8::1]/k", "https://[2001:db8::1]/k"},
		{"https://a.example/a b", "", ""},
		{"https://a.example/a\"b", "", ""},
		{"https://a.example/%zz", "", ""},
		{"https://a.example/%4", "", ""},
		{"https://a.example/k?%zz", "", ""},
		{"https://a.example/k#frag", "", ""},
		{"https://u:p@a.example/k", "", ""},
		{"ftp://a.example/k", "", ""},
		{"//a.example/k", "", ""},
		{"https:a.example", "", ""},
		{"https:///k", "", ""},
		{"https://a.example:0/k", "", ""},
		{"https://a.exam%70le/k", "", ""},
		{"", "", ""},
	}
	for _, c := range cases {
		u, err := parseAgentURL(c.in)
		if c.want == "" {
			if err == nil {
				t.Errorf("%q accepted as %q", c.in, u.canonical())
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		if u.canonical() != c.want || u.fetchURL() != c.fetch {
			t.Errorf("%q: %q fetching %q, want %q fetching %q", c.in, u.canonical(), u.fetchURL(), c.want, c.fetch)
		}
		if got, err := AgentURL(c.in); err != nil || got != c.want {
			t.Errorf("AgentURL(%q) = %q, %v", c.in, got, err)
		}
	}
	for in, want := range map[string]string{
		"https://a.example": "https://a.example", "https://A.example:443/": "https://a.example",
		"https://a.example/.": "", "https://a.example/x": "", "https://a.example?q": "", "https://a.example" + DirectoryPath: "",
	} {
		got, err := NormalizeOrigin(in)
		if (err == nil) != (want != "") || got != want {
			t.Errorf("NormalizeOrigin(%q) = %q, %v", in, got, err)
		}
	}
}

// NormalizeOrigin checks that s is the ASCII serialisation of an http or
// https origin (RFC 6454 6.2; a "/" path is tolerated) and returns it
// normalised: scheme and host lowercased, default port and "/" removed.
// Userinfo, a query, a fragment or any other path is an error.
func NormalizeOrigin(s string) (string, error) {
	u, err := parseAgentURL(s)
	if err != nil {
		return "", err
	}
	if (u.rawPath != "" && u.rawPath != "/") || u.hasQuery {
		return "", errors.New("an origin has no path or query")
	}
	return u.origin(), nil
}
