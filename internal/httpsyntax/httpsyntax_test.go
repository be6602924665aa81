package httpsyntax

import "testing"

func TestTrimOWS(t *testing.T) {
	for in, want := range map[string]string{
		"": "", " ": "", "\t \t": "", "a": "a", " a ": "a", "\ta b\t": "a b", "a\n": "a\n", " \r": "\r",
	} {
		if got := TrimOWS(in); got != want {
			t.Errorf("TrimOWS(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestIsLoopbackHost(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost": true, "LOCALHOST": true, "127.0.0.1": true, "127.255.0.9": true, "::1": true,
		"::ffff:127.0.0.1": true, "128.0.0.1": false, "example.com": false, "::2": false, "localhost.example": false,
	} {
		if got := IsLoopbackHost(host); got != want {
			t.Errorf("IsLoopbackHost(%q) = %v, want %v", host, got, want)
		}
	}
}

func TestDomainName(t *testing.T) {
	for in, want := range map[string]string{"crawl.example.com": "crawl.example.com", ".googlebot.com.": "googlebot.com", "..a.b..": "a.b"} {
		if got, ok := DomainName(in); !ok || got != want {
			t.Errorf("DomainName(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "com", ".com.", "a b.com", "a/b.com", "a.com:53", "*.a.com"} {
		if _, ok := DomainName(in); ok {
			t.Errorf("DomainName(%q) ok", in)
		}
	}
}
