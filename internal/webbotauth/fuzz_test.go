package webbotauth

import (
	"context"
	"crypto"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sfv "github.com/dunglas/httpsfv"
)

// Every parser of hostile input is fuzzed: none may panic, and each either
// fails with a sentinel or returns something that satisfies its own rules.
// The seeds are the test vectors and the shapes the unit tests use; run
// longer with e.g. go test -fuzz=FuzzVerify ./internal/webbotauth/.

func seedVectors(f *testing.F, add func(in, sig, agent string)) {
	for _, file := range []string{"web_bot_auth_architecture_v1.json", "web_bot_auth_architecture_v2.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", "vectors", file))
		if err != nil {
			f.Fatal(err)
		}
		var vs []requestVector
		if err := json.Unmarshal(b, &vs); err != nil {
			f.Fatal(err)
		}
		for _, v := range vs {
			add(v.SignatureInput, v.Signature, v.SignatureAgent)
		}
	}
	add(`sig1=("@authority" "signature-agent";key="sig1");created=1;expires=2;keyid="k";tag="web-bot-auth"`, `sig1=:AAAA:`, `sig1="https://a.example"`)
	add(`a=("@authority");tag="web-bot-auth", b=("@target-uri" "@method");tag="web-bot-auth";nonce="n"`, `a=:AA==:, b=:AA==:`, `a="https://a.example";type=jwks_uri, b=("x")`)
	add(`sig1=("@authority";req "x";key="y" "z";sf);tag="web-bot-auth";created=-1`, `sig1=?1`, `"https://a.example";type="directory"`)
	add("", "", "")
}

func FuzzParseSignatureAgent(f *testing.F) {
	seedVectors(f, func(_, _, agent string) { f.Add(agent, "sig1") })
	f.Add(`sig1="https://a.example", sig1="https://b.example"`, "sig1")
	f.Add("\"https://a.example\"\n\"https://b.example\"", "sig2")
	f.Fuzz(func(t *testing.T, field, label string) {
		af := parseSignatureAgent(strings.Split(field, "\n"))
		if af.err != nil {
			if !errors.Is(af.err, ErrMalformed) || len(af.members) != 0 || !af.present {
				t.Fatalf("error %v with members %+v", af.err, af.members)
			}
			return
		}
		if !af.present {
			return
		}
		if len(af.members) == 0 || af.legacy && (len(af.members) != 1 || af.members[0].name != "") {
			t.Fatalf("%+v", af)
		}
		for _, m := range af.members {
			if m.err != nil && (!errors.Is(m.err, ErrMalformed) || m.uri != "") {
				t.Fatalf("member %+v", m)
			}
			if u, err := AgentURL(m.uri); err == nil {
				checkAgentURL(t, u)
			}
		}
		// Binding through every shape of coverage.
		for _, comps := range [][]string{{`"signature-agent"`}, {`"signature-agent";key="` + label + `"`}, {`"signature-agent";key="sig1"`, `"signature-agent";key="sig2"`}} {
			in, err := sfv.UnmarshalDictionary([]string{"x=(" + strings.Join(comps, " ") + ")"})
			if err != nil {
				continue
			}
			m, _ := in.Get("x")
			c := candidate{label: label, input: m.(sfv.InnerList)}
			mem, err := c.ownAgent(&af)
			if err != nil {
				if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrNoAgent) {
					t.Fatalf("binding error %v", err)
				}
				continue
			}
			if mem.err != nil || mem.ignored != "" {
				t.Fatalf("bound an unusable member %+v", mem)
			}
			found := false
			for _, x := range af.members {
				found = found || x.name == mem.name && x.uri == mem.uri
			}
			if !found {
				t.Fatalf("bound %+v, not a member of %+v", mem, af.members)
			}
		}
	})
}

// checkAgentURL checks what AgentURL promises of its result: an http(s)
// URL with a lowercase host and no query, fragment or userinfo, which
// AgentURL gives back unchanged (idempotent), an origin when it names the
// well-known directory.
func checkAgentURL(t *testing.T, u string) {
	t.Helper()
	scheme, rest, ok := strings.Cut(u, "://")
	host, path, _ := strings.Cut(rest, "/")
	if !ok || (scheme != "https" && scheme != "http") || host == "" || host != strings.ToLower(host) || strings.Contains(host, "@") ||
		strings.ContainsAny(rest, "?# \t\r\n\\\"") || path == strings.TrimPrefix(DirectoryPath, "/") {
		t.Fatalf("agent URL %q", u)
	}
	if again, err := AgentURL(u); err != nil || again != u {
		t.Fatalf("AgentURL(%q) = %q, %v: not idempotent", u, again, err)
	}
	if path == "" {
		checkOrigin(t, u)
	}
}

// checkOrigin checks what NormalizeOrigin promises of its result.
func checkOrigin(t *testing.T, o string) {
	t.Helper()
	scheme, host, ok := strings.Cut(o, "://")
	if !ok || (scheme != "https" && scheme != "http") || host == "" || strings.ContainsAny(host, "/?#@ \t\r\n\\") || host != strings.ToLower(host) {
		t.Fatalf("normalised origin %q", o)
	}
	if again, err := NormalizeOrigin(o); err != nil || again != o {
		t.Fatalf("NormalizeOrigin(%q) = %q, %v: not idempotent", o, again, err)
	}
}

func FuzzAgentURL(f *testing.F) {
	for _, s := range []string{"https://a.example", "https://a.example/.well-known/http-message-signatures-directory", "https://A.example:443/k/./x/../%6a%2F.json?q#f",
		"https://a.example/%2e%2E/x", "http://[::1]:80/a/b/", "https://a.example/..", "https://a/%zz", "https://a/.well-known/http-message-signatures-directory/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if u, err := AgentURL(s); err == nil {
			checkAgentURL(t, u)
		}
	})
}

func FuzzNormalizeOrigin(f *testing.F) {
	for _, s := range []string{"https://a.example", "HTTPS://A.example:443/", "http://[::1]:80", "https://a.example:0", "https://u@a", "https://a/b", "https://a?", "https://[::1", "https://a:b:c", "https://%61.example"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if o, err := NormalizeOrigin(s); err == nil {
			checkOrigin(t, o)
		}
	})
}

func FuzzSelectSignatures(f *testing.F) {
	seedVectors(f, func(in, sig, agent string) { f.Add(in, sig, agent) })
	f.Fuzz(func(t *testing.T, in, sig, agent string) {
		h := http.Header{}
		for _, l := range strings.Split(in, "\n") {
			h.Add("Signature-Input", l)
		}
		if sig != "" {
			h.Set("Signature", sig)
		}
		cands, err := selectSignatures(h, tagWebBotAuth, maxCandidates)
		if err != nil {
			if !errors.Is(err, ErrNoSignature) && !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %v", err)
			}
			return
		}
		if len(cands) == 0 || len(cands) > maxCandidates {
			t.Fatalf("%d candidates", len(cands))
		}
		r := httptest.NewRequest(http.MethodGet, "https://site.example/p?q", nil)
		r.Header = h
		view := newRequestView(r, testAuthority)
		af := parseSignatureAgent(h.Values("Signature-Agent"))
		for i := range cands {
			c := &cands[i]
			if c.err != nil {
				if !errors.Is(c.err, ErrMalformed) {
					t.Fatalf("candidate error %v", c.err)
				}
				continue
			}
			if len(c.sig) == 0 {
				t.Fatal("candidate without signature bytes")
			}
			if tg, _ := c.input.Params.Get("tag"); tg != tagWebBotAuth {
				t.Fatal("candidate without the tag")
			}
			if _, err := readParams(c); err != nil && !errors.Is(err, ErrMalformed) {
				t.Fatalf("params error %v", err)
			}
			if _, err := c.ownAgent(&af); err != nil && !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrNoAgent) {
				t.Fatalf("agent error %v", err)
			}
			if base, err := signatureBase(c.input, view); err == nil {
				lines := strings.Split(string(base), "\n")
				if len(lines) != len(c.input.Items)+1 || !strings.HasPrefix(lines[len(lines)-1], `"@signature-params": (`) {
					t.Fatalf("base has %d lines for %d components:\n%s", len(lines), len(c.input.Items), base)
				}
			}
		}
	})
}

func FuzzParseDirectory(f *testing.F) {
	f.Add([]byte(`{"keys":[{"kty":"OKP","crv":"Ed25519","x":"JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs"}]}`))
	f.Add([]byte(`{"keys":[{"kty":"RSA","n":"r4tmm3r20Wd_PbqvP1s2-QEtvpuRaV8Yq40gjUR8y2Rjxa6dpG2GXHbPfvMs8ct-Lh1GH45x28Rw3Ry53mm-oAXjyQ86OnDkZ5N8lYbggD4O3w6M6pAvLkhk95AndTrifbIFPNU8PPMO7OyrFAHqgDsznjPFmTOtCEcN2Z1FpWgchwuYLPL-Wokqltd11nqqzi-bJ9cvSKADYdUAAN5WUtzdpiy6LbTgSxP7ociU4Tn0g5I6aDZJ7A8Lzo0KSyZYoA485mqcO0GVAdVw9lq4aOT9v6d-nb4bnNkQVklLQ3fVAvJm-xdDOp9LCNCN48V2pnDOkFV6-U9nV5oyc6XI2w","e":"AQAB","alg":"PS512"}]}`))
	f.Add([]byte(`{"keys":[{"kty":"OKP","crv":"Ed25519","x":"JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs","nbf":1,"exp":2,"use":"enc"},{"kty":"EC"}]}`))
	f.Add([]byte(`{"keys":null}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, body []byte) {
		keys, err := ParseDirectory(body)
		if err != nil {
			if keys != nil {
				t.Fatal("keys with an error")
			}
			return
		}
		if len(keys) == 0 || len(keys) > maxDirectoryKeys {
			t.Fatalf("%d keys", len(keys))
		}
		seen := map[string]bool{}
		for _, k := range keys {
			if _, err := keyAlgorithm(k.Public); err != nil {
				t.Fatalf("unusable key kept: %v", err)
			}
			if id, err := Thumbprint(k.Public); err != nil || id != k.ID || seen[id] {
				t.Fatalf("key %q: thumbprint %q %v (duplicate %v)", k.ID, id, err, seen[id])
			}
			seen[k.ID] = true
		}
	})
}

// FuzzDirectoryResponse drives the possession-proof checks (response
// Signature/Signature-Input, Content-Digest, Cache-Control) with hostile
// headers over the draft's signed directory.
func FuzzDirectoryResponse(f *testing.F) {
	body, err := os.ReadFile(filepath.Join("testdata", "directory", "e23_body.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(`binding=("@authority";req "content-digest");created=1735689600;expires=4889289600;keyid="poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U";tag="http-message-signatures-directory"`,
		`binding=:l6P8R67tm3kujAxbHWio7ll01qrEZ0dKD/WWlGhNYEmTnFZM8Wt0VQ9zqGfvo7T/UMkBxsigzChM1Gpz7gOVBg==:`,
		`sha-256=:CADMT2aBdV/rqQr/NIru64ERQkCobVvllA4V0fLFDu0=:`, "max-age=86400", body)
	f.Add(`a=("@status" "@method";req "accept";req "@authority");tag="http-message-signatures-directory"`, `a=:AA==:`, `sha-512=:AA==:, md5=?0`, `no-cache, max-age="1"`, []byte(`{}`))
	keys, err := parseDirectory(body, MaxDirectoryBytes)
	if err != nil {
		f.Fatal(err)
	}
	req := requestView{method: "GET", scheme: "https", authority: "signature-agent.test", path: DirectoryPath,
		header: http.Header{"Accept": {DirectoryMediaType}}}
	now := time.Unix(1735689600, 0).Add(time.Hour)
	f.Fuzz(func(t *testing.T, in, sig, digest, cc string, b []byte) {
		h := http.Header{}
		h.Set("Signature-Input", in)
		h.Set("Signature", sig)
		h.Set("Content-Digest", digest)
		h.Set("Cache-Control", cc)
		if lt := cacheLifetime(h, time.Minute, time.Hour); lt < time.Minute || lt > time.Hour {
			t.Fatalf("lifetime %s", lt)
		}
		_ = checkContentDigest(h, b)
		proven, _, err := verifyDirectoryResponse(req, 200, h, b, keys, now)
		if err == nil && len(proven) == 0 {
			t.Fatal("no error and no proven key")
		}
	})
}

// FuzzVerify runs the whole of Verify on hostile Signature, Signature-Input
// and Signature-Agent fields: no panic, and every error wraps a sentinel.
func FuzzVerify(f *testing.F) {
	seedVectors(f, func(in, sig, agent string) { f.Add(in, sig, agent, "example.com") })
	k := newEd25519Key(f)
	r, s := baseRequest(f)
	signRequest(f, r, k, s)
	f.Add(r.Header.Get("Signature-Input"), r.Header.Get("Signature"), r.Header.Get("Signature-Agent"), testAuthority)
	keys := newKeyMap().add(testAgent, k).add("https://signature-agent.test", k)
	f.Fuzz(func(t *testing.T, in, sig, agent, authority string) {
		r := httptest.NewRequest(http.MethodGet, "https://site.example/path?q=1", nil)
		for _, l := range strings.Split(in, "\n") {
			r.Header.Add("Signature-Input", l)
		}
		r.Header.Set("Signature", sig)
		if agent != "" {
			r.Header.Set("Signature-Agent", agent)
		}
		v := &Verifier{
			Keys: func(ctx context.Context, a, id string) (crypto.PublicKey, error) { return keys.resolve(ctx, a, id) },
			Now:  func() time.Time { return testNow }, Replays: NewMemoryReplays(4),
		}
		sg, err := v.Verify(context.Background(), r, authority)
		if err != nil {
			if !wrapsSentinel(err) {
				t.Fatalf("unclassified error %v", err)
			}
			return
		}
		if sg.KeyID != k.id || sg.Expires.Sub(sg.Created) > DefaultMaxLifetime || sg.Agent == "" {
			t.Fatalf("verified %+v", sg)
		}
	})
}
