package cards

import (
	"bytes"
	"math/rand/v2"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// TestPunycodeRFC3492: the encoder gives RFC 3492's sample strings
// (section 7.1, with Errata 3026; https://www.rfc-editor.org/rfc/rfc3492#section-7.1,
// read 2026-11-27), basic code points kept in their case as the samples
// show them.
func TestPunycodeRFC3492(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"(A) Arabic (Egyptian)", "\u0644\u064A\u0647\u0645\u0627\u0628\u062A\u0643\u0644\u0645\u0648\u0634\u0639\u0631\u0628\u064A\u061F", "egbpdaj6bu4bxfgehfvwxn"},
		{"(B) Chinese (simplified)", "\u4ED6\u4EEC\u4E3A\u4EC0\u4E48\u4E0D\u8BF4\u4E2D\u6587", "ihqwcrb4cv8a8dqg056pqjye"},
		{"(D) Czech", "Pro\u010Dprost\u011Bnemluv\u00ED\u010Desky", "Proprostnemluvesky-uyb24dma41a"},
		{"(I) Russian", "\u043F\u043E\u0447\u0435\u043C\u0443\u0436\u0435\u043E\u043D\u0438\u043D\u0435\u0433\u043E\u0432\u043E\u0440\u044F\u0442\u043F\u043E\u0440\u0443\u0441\u0441\u043A\u0438", "b1abfaaepdrnnbgefbadotcwatmq2g4l"},
		{"(L) 3<nen>B<gumi><kinpachi><sensei>", "3\u5E74B\u7D44\u91D1\u516B\u5148\u751F", "3B-ww4c5e180e575a65lsy2b"},
		{"(M) <amuro><namie>-with-SUPER-MONKEYS", "\u5B89\u5BA4\u5948\u7F8E\u6075-with-SUPER-MONKEYS", "-with-SUPER-MONKEYS-pc58ag80a8qai00g7n9n"},
		{"(O) <hitotsu><yane><no><shita>2", "\u3072\u3068\u3064\u5C4B\u6839\u306E\u4E0B2", "2-u9tlzr9756bt3uc0v"},
		{"(R) <sono><supiido><de>", "\u305D\u306E\u30B9\u30D4\u30FC\u30C9\u3067", "d9juau41awczczp"},
		{"bücher (RFC 3490 style)", "bücher", "bcher-kva"},
	} {
		if got := punycode(tc.in); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// stdlibPunycode is the raw Punycode Go's HTTP client writes in a Host
// header (golang.org/x/net/idna's Punycode profile, vendored in the
// standard library): an independent RFC 3492 encoder to hold ours to.
func stdlibPunycode(t *testing.T, label string) string {
	t.Helper()
	req := &http.Request{Method: "GET", URL: &url.URL{Scheme: "http", Host: label + ".example", Path: "/"},
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Header: http.Header{}}
	var buf bytes.Buffer
	if err := req.Write(&buf); err != nil {
		t.Fatalf("%q: %v", label, err)
	}
	_, rest, _ := strings.Cut(buf.String(), "\r\nHost: ")
	host, _, _ := strings.Cut(rest, "\r\n")
	return strings.TrimPrefix(strings.TrimSuffix(host, ".example"), "xn--")
}

// TestPunycodeMatchesStdlib: on 2,000 random labels mixing ASCII, Latin,
// Greek, CJK and astral code points, the encoder agrees with the standard
// library's.
func TestPunycodeMatchesStdlib(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	ranges := [][2]rune{{'a', 'z'}, {'0', '9'}, {0xC0, 0x17F}, {0x391, 0x3C9}, {0x4E00, 0x9FFF}, {0x1F600, 0x1F64F}}
	for i := 0; i < 2000; i++ {
		var sb strings.Builder
		n := 1 + r.IntN(12)
		nonASCII := false
		for j := 0; j < n; j++ {
			rg := ranges[r.IntN(len(ranges))]
			c := rg[0] + rune(r.IntN(int(rg[1]-rg[0]+1)))
			nonASCII = nonASCII || c >= 0x80
			sb.WriteRune(c)
		}
		if !nonASCII {
			continue
		}
		label := sb.String()
		if got, want := punycode(label), stdlibPunycode(t, label); got != want {
			t.Fatalf("%q: %q, the standard library writes %q", label, got, want)
		}
	}
}

// TestNamespace: every form of host a site URL can carry becomes a
// reverse-DNS namespace the card schema accepts; internationalized names
// in their A-labels, whatever their case, normalization form or width;
// IP literals as their reverse-DNS names.
func TestNamespace(t *testing.T) {
	for host, want := range map[string]string{
		"outdoorsupply.example":                          "example.outdoorsupply",
		"OutdoorSupply.Example.":                         "example.outdoorsupply",
		"api.planner.example.com":                        "com.example.planner.api",
		"localhost":                                      "localhost",
		"my_site.example":                                "example.my-site",
		"bücher.example":                                 "example.xn--bcher-kva",
		"BÜCHER.EXAMPLE":                                 "example.xn--bcher-kva",
		"bu\u0308cher.example":                           "example.xn--bcher-kva", // NFD
		"xn--bcher-kva.example":                          "example.xn--bcher-kva",
		"XN--BCHER-KVA.example":                          "example.xn--bcher-kva",
		"例え.テスト":                                         "xn--zckzah.xn--r8jz45g",
		"例え\u3002テスト":                                    "xn--zckzah.xn--r8jz45g", // ideographic full stop
		"\uff45\uff58\uff41\uff4d\uff50\uff4c\uff45.com": "com.example",            // full-width
		"münchen.de.":                                    "de.xn--mnchen-3ya",
		"192.0.2.1":                                      "arpa.in-addr.192.0.2.1",
		"2001:db8::1":                                    "arpa.ip6.2.0.0.1.0.d.b.8.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.1",
		"fe80::1%eth0":                                   "arpa.ip6.f.e.8.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.1",
		"::1":                                            "arpa.ip6.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.1",
		"":                                               "host",
	} {
		if got := namespace(host); got != want {
			t.Errorf("namespace(%q) = %q, want %q", host, got, want)
		}
	}
}

// cardName is ServerCard.name's pattern in the card schema.
var cardName = regexp.MustCompile(`^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$`)

// TestServerNameFits: with the longest host DNS allows and long IDs, a name
// stays within the schema's 3 to 200 characters, and two names cut to fit
// stay distinct.
func TestServerNameFits(t *testing.T) {
	long := strings.Repeat(strings.Repeat("a", 63)+".", 3) + strings.Repeat("b", 61) // 253 octets
	ids := []string{"x", "store-assistant", strings.Repeat("i", 190) + "-one", strings.Repeat("i", 190) + "-two", "caf\u00e9 tools"}
	seen := map[string]string{}
	for _, host := range []string{"outdoorsupply.example", long, "2001:db8::1", "bücher.example"} {
		for _, id := range ids {
			n := serverName(host, id)
			if !cardName.MatchString(n) || len(n) < 3 || len(n) > maxNameLen {
				t.Errorf("serverName(%q, %q) = %q (%d bytes): not a valid card name", host, id, n, len(n))
			}
			if prev, dup := seen[n]; dup {
				t.Errorf("%q and %q/%q both give %q", prev, host, id, n)
			}
			seen[n] = host + "/" + id
		}
	}
}

// TestPublisherDomain: the {publisher} of an urn:air identifier is a
// lower-case ASCII domain; IP literals and names with other bytes have
// none.
func TestPublisherDomain(t *testing.T) {
	for host, want := range map[string]string{
		"Outdoorsupply.Example.": "outdoorsupply.example",
		"bücher.example":         "xn--bcher-kva.example",
		"localhost":              "localhost",
		"192.0.2.1":              "",
		"2001:db8::1":            "",
		"my_site.example":        "",
		"a..b":                   "",
	} {
		got, ok := publisherDomain(host)
		if got != want || ok != (want != "") {
			t.Errorf("publisherDomain(%q) = %q, %v; want %q", host, got, ok, want)
		}
	}
}
