package webbotauth

import (
	"context"
	"crypto"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

const (
	testAgent     = "https://agent.example"
	testAuthority = "site.example"
)

var testNow = time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)

func randomNonce(t testing.TB) string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(b)
}

// baseRequest is a GET for https://site.example/path?q=1 carrying the
// dictionary Signature-Agent sig1="https://agent.example", and the spec of
// a valid signature for it: @authority and the sig1 member covered,
// created 10s ago, expires in 60s, a fresh nonce.
func baseRequest(t testing.TB) (*http.Request, spec) {
	r := httptest.NewRequest(http.MethodGet, "https://site.example/path?q=1", nil)
	r.Header.Set("Signature-Agent", `sig1="`+testAgent+`"`)
	return r, spec{
		label:      "sig1",
		components: []string{`"@authority"`, `"signature-agent";key="sig1"`},
		created:    testNow.Unix() - 10,
		expires:    testNow.Unix() + 60,
		nonce:      randomNonce(t),
		authority:  testAuthority,
		agentValue: `"` + testAgent + `"`,
	}
}

// TestVerifyRules exercises each rule as an attacker would try to get
// round it: every case is one change to a valid request.
func TestVerifyRules(t *testing.T) {
	ed := newEd25519Key(t)
	rsaKey := privateJWK(t, rsaTestKey())
	other := newEd25519Key(t)
	keys := newKeyMap().add(testAgent, ed).add(testAgent, rsaKey).add("https://other.example", other).
		add(testAgent+"/keys/jwks.json", ed)

	type tc struct {
		name  string
		key   *testKey                   // default ed
		spec  func(*spec, *http.Request) // before signing
		post  func(*http.Request)        // after signing
		ver   func(*Verifier)            // verifier changes
		auth  string                     // authority passed to Verify; default site.example
		want  string                     // sentinel name
		agent string                     // expected Signature.Agent when ok; default testAgent
	}
	cases := []tc{
		{name: "valid dictionary member", want: "ok"},
		{name: "valid rsa-pss-sha512", key: &rsaKey, want: "ok"},
		{name: "valid without alg", spec: func(s *spec, _ *http.Request) { s.alg = "-" }, want: "ok"},
		{name: "valid legacy string", spec: func(s *spec, r *http.Request) {
			r.Header.Set("Signature-Agent", `"`+testAgent+`"`)
			s.components = []string{`"@authority"`, `"signature-agent"`}
		}, want: "ok"},
		{name: "valid whole dictionary one member", spec: func(s *spec, r *http.Request) {
			r.Header.Set("Signature-Agent", `agent="`+testAgent+`"`)
			s.components = []string{`"@authority"`, `"signature-agent"`}
		}, want: "ok"},
		{name: "valid whole dictionary member named by label", spec: func(s *spec, r *http.Request) {
			r.Header.Set("Signature-Agent", `other="https://other.example", sig1="`+testAgent+`"`)
			s.components = []string{`"@authority"`, `"signature-agent"`}
		}, want: "ok"},
		{name: "valid member key other than label", spec: func(s *spec, r *http.Request) {
			r.Header.Set("Signature-Agent", `agent2="`+testAgent+`"`)
			s.components = []string{`"@authority"`, `"signature-agent";key="agent2"`}
		}, want: "ok"},
		{name: "valid covering two members, its own named by the label", spec: func(s *spec, r *http.Request) {
			r.Header.Set("Signature-Agent", `browser="https://other.example";type=directory, sig1="`+testAgent+`"`)
			s.components = []string{`"@authority"`, `"signature-agent";key="browser"`, `"signature-agent";key="sig1"`}
			s.members = map[string]string{"browser": `"https://other.example";type=directory`}
		}, want: "ok"},
		{name: "valid agent origin with slash and default port", spec: func(s *spec, r *http.Request) {
			r.Header.Set("Signature-Agent", `sig1="HTTPS://Agent.Example:443/"`)
			s.agentValue = `"HTTPS://Agent.Example:443/"`
		}, want: "ok"},
		{name: "valid well-known URI spelled out is the origin", spec: func(s *spec, r *http.Request) {
			r.Header.Set("Signature-Agent", `sig1="`+testAgent+DirectoryPath+`"`)
			s.agentValue = `"` + testAgent + DirectoryPath + `"`
		}, want: "ok"},
		{name: "valid JWK Set URL (-01)", spec: func(s *spec, r *http.Request) {
			r.Header.Set("Signature-Agent", `sig1="`+testAgent+`/keys/jwks.json"`)
			s.agentValue = `"` + testAgent + `/keys/jwks.json"`
		}, want: "ok", agent: testAgent + "/keys/jwks.json"},
		{name: "valid JWK Set URL normalised, query dropped", spec: func(s *spec, r *http.Request) {
			r.Header.Set("Signature-Agent", `sig1="https://AGENT.example:443/keys/./x/../%6Awks.json?v=2"`)
			s.agentValue = `"https://AGENT.example:443/keys/./x/../%6Awks.json?v=2"`
		}, want: "ok", agent: testAgent + "/keys/jwks.json"},
		{name: "valid @target-uri", spec: func(s *spec, _ *http.Request) {
			s.components = []string{`"@target-uri"`, `"@method"`, `"@path"`, `"signature-agent";key="sig1"`}
		}, want: "ok"},
		{name: "valid Signature-Input over two field lines", post: func(r *http.Request) {
			in := r.Header.Get("Signature-Input")
			r.Header.Set("Signature-Input", `other=("@method");created=1`)
			r.Header.Add("Signature-Input", in)
		}, want: "ok"},
		{name: "valid created within skew", spec: func(s *spec, _ *http.Request) {
			s.created = testNow.Unix() + 29
			s.expires = s.created + 60
		}, want: "ok"},
		{name: "valid expired within skew", spec: func(s *spec, _ *http.Request) {
			s.created = testNow.Unix() - 100
			s.expires = testNow.Unix() - 29
		}, want: "ok"},
		{name: "valid lifetime exactly MaxLifetime", spec: func(s *spec, _ *http.Request) {
			s.expires = s.created + 300
		}, want: "ok"},
		{name: "valid Host differs only by case and default port", post: func(r *http.Request) {
			r.Host = "SITE.example:443"
		}, want: "ok"},

		// Which signature counts.
		{name: "no tag", spec: func(s *spec, _ *http.Request) { s.tag = "-" }, want: "ErrNoSignature"},
		{name: "other tag", spec: func(s *spec, _ *http.Request) { s.tag = "web-bot-auth-x" }, want: "ErrNoSignature"},
		{name: "unsigned", post: func(r *http.Request) {
			r.Header.Del("Signature")
			r.Header.Del("Signature-Input")
		}, want: "ErrNoSignature"},
		{name: "tag as a Token", post: func(r *http.Request) {
			r.Header.Set("Signature-Input", strings.Replace(r.Header.Get("Signature-Input"), `tag="web-bot-auth"`, `tag=web-bot-auth`, 1))
		}, want: "ErrNoSignature"},
		{name: "draft-cavage Signature alone", post: func(r *http.Request) {
			r.Header.Del("Signature-Input")
			r.Header.Set("Signature", `keyId="k",algorithm="hs2019",signature="c2ln"`)
		}, want: "ErrNoSignature"},
		{name: "Signature member missing", post: func(r *http.Request) {
			r.Header.Set("Signature", strings.Replace(r.Header.Get("Signature"), "sig1=", "sig9=", 1))
		}, want: "ErrMalformed"},
		{name: "Signature not a Byte Sequence", post: func(r *http.Request) {
			r.Header.Set("Signature", `sig1="abc"`)
		}, want: "ErrMalformed"},
		{name: "Signature-Input not a Dictionary", post: func(r *http.Request) {
			r.Header.Set("Signature-Input", `sig1=("@authority"`)
		}, want: "ErrMalformed"},

		// Time.
		{name: "missing created", spec: func(s *spec, _ *http.Request) { s.noCreated = true }, want: "ErrMalformed"},
		{name: "missing expires", spec: func(s *spec, _ *http.Request) { s.noExpires = true }, want: "ErrMalformed"},
		{name: "missing keyid", spec: func(s *spec, _ *http.Request) { s.noKeyID = true }, want: "ErrMalformed"},
		{name: "created as a String", post: func(r *http.Request) {
			in := r.Header.Get("Signature-Input")
			r.Header.Set("Signature-Input", strings.Replace(in, fmt.Sprintf("created=%d", testNow.Unix()-10), fmt.Sprintf(`created="%d"`, testNow.Unix()-10), 1))
		}, want: "ErrMalformed"},
		{name: "expired", spec: func(s *spec, _ *http.Request) {
			s.created = testNow.Unix() - 200
			s.expires = testNow.Unix() - 31
		}, want: "ErrExpired"},
		{name: "created in the future", spec: func(s *spec, _ *http.Request) {
			s.created = testNow.Unix() + 31
			s.expires = s.created + 60
		}, want: "ErrExpired"},
		{name: "lifetime too long", spec: func(s *spec, _ *http.Request) { s.expires = s.created + 301 }, want: "ErrLifetime"},
		{name: "lifetime over MaxLifetime and expired: the lifetime first", spec: func(s *spec, _ *http.Request) {
			s.created, s.expires = testNow.Unix()-4000, testNow.Unix()-100
		}, want: "ErrLifetime"},
		{name: "lifetime zero", spec: func(s *spec, _ *http.Request) { s.expires = s.created }, want: "ErrExpired"},
		{name: "lifetime negative", spec: func(s *spec, _ *http.Request) { s.expires = s.created - 1 }, want: "ErrExpired"},
		{name: "lifetime over a raised MaxLifetime", spec: func(s *spec, _ *http.Request) { s.expires = s.created + 3601 },
			ver: func(v *Verifier) { v.MaxLifetime = time.Hour }, want: "ErrLifetime"},
		{name: "no skew", spec: func(s *spec, _ *http.Request) {
			s.created = testNow.Unix() + 1
			s.expires = s.created + 60
		}, ver: func(v *Verifier) { v.Skew = -1 }, want: "ErrExpired"},

		// Authority.
		{name: "neither @authority nor @target-uri", spec: func(s *spec, _ *http.Request) {
			s.components = []string{`"@method"`, `"@path"`, `"signature-agent";key="sig1"`}
		}, want: "ErrAuthority"},
		{name: "signed for another authority, sent there", spec: func(s *spec, r *http.Request) {
			s.authority = "other.example"
			r.Host = "other.example"
		}, want: "ErrAuthority"},
		{name: "signed for another authority, Host rewritten", spec: func(s *spec, _ *http.Request) {
			s.authority = "other.example"
		}, want: "ErrBadSignature"},
		{name: "server authority differs", auth: "www.site.example", want: "ErrAuthority"},
		{name: "@target-uri of another site", spec: func(s *spec, _ *http.Request) {
			s.components = []string{`"@target-uri"`, `"signature-agent";key="sig1"`}
			s.authority = "other.example"
		}, post: func(r *http.Request) { r.Host = "other.example" }, want: "ErrAuthority"},
		{name: "@target-uri signed as http", spec: func(s *spec, _ *http.Request) {
			s.components = []string{`"@target-uri"`, `"signature-agent";key="sig1"`}
			s.scheme = "http"
		}, want: "ErrBadSignature"},
		{name: "invalid authority argument", auth: "site.example/evil", want: "ErrAuthority"},
		{name: "valid authority argument with case and default port", auth: "Site.Example:443", want: "ok"},

		// Signature-Agent binding.
		{name: "Signature-Agent not covered", spec: func(s *spec, _ *http.Request) {
			s.components = []string{`"@authority"`}
		}, want: "ErrMalformed"},
		{name: "Signature-Agent covered but absent", post: func(r *http.Request) {
			r.Header.Del("Signature-Agent")
		}, want: "ErrMalformed"},
		{name: "Signature-Agent swapped after signing", post: func(r *http.Request) {
			r.Header.Set("Signature-Agent", `sig1="https://other.example"`)
		}, key: &other, want: "ErrBadSignature"},
		// The key is looked up under the new origin, which does not hold
		// it: the (origin, keyid) pair stops it before the signature does.
		{name: "Signature-Agent member renamed after signing", post: func(r *http.Request) {
			r.Header.Set("Signature-Agent", `sig1="https://other.example", sig2="`+testAgent+`"`)
		}, want: "ErrUnknownKey"},
		{name: "covered member missing", spec: func(s *spec, r *http.Request) {
			s.components = []string{`"@authority"`, `"signature-agent";key="sig2"`}
		}, want: "ErrMalformed"},
		{name: "keyed member of a legacy string", spec: func(s *spec, r *http.Request) {
			r.Header.Set("Signature-Agent", `"`+testAgent+`"`)
		}, want: "ErrMalformed"},
		{name: "whole dictionary several members none for label", spec: func(s *spec, r *http.Request) {
			r.Header.Set("Signature-Agent", `a="`+testAgent+`", b="https://other.example"`)
			s.components = []string{`"@authority"`, `"signature-agent"`}
		}, want: "ErrMalformed"},
		{name: "several keyed members none for label", spec: func(s *spec, r *http.Request) {
			r.Header.Set("Signature-Agent", `a="`+testAgent+`", b="https://other.example"`)
			s.components = []string{`"@authority"`, `"signature-agent";key="a"`, `"signature-agent";key="b"`}
		}, want: "ErrMalformed"},
		{name: "Signature-Agent not a String", spec: func(s *spec, r *http.Request) {
			r.Header.Set("Signature-Agent", `sig1=agent`)
			s.agentValue = "agent"
		}, want: "ErrMalformed"},
		{name: "no Signature-Agent", spec: func(s *spec, r *http.Request) {
			r.Header.Del("Signature-Agent")
			s.components = []string{`"@authority"`}
		}, want: "ErrNoAgent"},
		{name: "own member with type=directory is ignored (-01)", spec: func(s *spec, r *http.Request) {
			r.Header.Set("Signature-Agent", `sig1="`+testAgent+`";type=directory`)
			s.agentValue = `"` + testAgent + `";type=directory`
		}, want: "ErrNoAgent"},
		{name: "own member with type=jwks_uri is ignored (-01)", spec: func(s *spec, r *http.Request) {
			r.Header.Set("Signature-Agent", `sig1="`+testAgent+`/jwks.json";type=jwks_uri`)
			s.agentValue = `"` + testAgent + `/jwks.json";type=jwks_uri`
		}, want: "ErrNoAgent"},
		{name: "legacy string with a parameter is ignored", spec: func(s *spec, r *http.Request) {
			r.Header.Set("Signature-Agent", `"`+testAgent+`";x=1`)
			s.components = []string{`"@authority"`, `"signature-agent"`}
		}, want: "ErrNoAgent"},
		{name: "another signer's malformed member spoils nothing", spec: func(s *spec, r *http.Request) {
			r.Header.Set("Signature-Agent", `browser=("x"), sig1="`+testAgent+`"`)
		}, want: "ok"},
		{name: "Signature-Agent JWK Set URL not trusted", spec: func(s *spec, r *http.Request) {
			r.Header.Set("Signature-Agent", `sig1="`+testAgent+`/keys"`)
			s.agentValue = `"` + testAgent + `/keys"`
		}, want: "ErrUntrusted"},
		{name: "Signature-Agent http", spec: func(s *spec, r *http.Request) {
			r.Header.Set("Signature-Agent", `sig1="http://agent.example"`)
			s.agentValue = `"http://agent.example"`
		}, want: "ErrMalformed"},
		{name: "Signature-Agent http loopback without AllowHTTPLoopback", spec: func(s *spec, r *http.Request) {
			r.Header.Set("Signature-Agent", `sig1="http://127.0.0.1:8080"`)
			s.agentValue = `"http://127.0.0.1:8080"`
		}, want: "ErrMalformed"},
		{name: "Signature-Agent relative", spec: func(s *spec, r *http.Request) {
			r.Header.Set("Signature-Agent", `sig1="/jwks.json"`)
			s.agentValue = `"/jwks.json"`
		}, want: "ErrMalformed"},
		{name: "Signature-Agent with a fragment", spec: func(s *spec, r *http.Request) {
			r.Header.Set("Signature-Agent", `sig1="https://agent.example/jwks.json#k"`)
			s.agentValue = `"https://agent.example/jwks.json#k"`
		}, want: "ErrMalformed"},
		{name: "Signature-Agent with a space", spec: func(s *spec, r *http.Request) {
			r.Header.Set("Signature-Agent", `sig1="https://agent.example/a b"`)
			s.agentValue = `"https://agent.example/a b"`
		}, want: "ErrMalformed"},
		{name: "Signature-Agent with userinfo", spec: func(s *spec, r *http.Request) {
			r.Header.Set("Signature-Agent", `sig1="https://user@agent.example"`)
			s.agentValue = `"https://user@agent.example"`
		}, want: "ErrMalformed"},
		{name: "Signature-Agent untrusted", spec: func(s *spec, r *http.Request) {
			r.Header.Set("Signature-Agent", `sig1="https://evil.example"`)
			s.agentValue = `"https://evil.example"`
		}, want: "ErrUntrusted"},

		// Keys and algorithms.
		{name: "alg rsa-pss-sha512 with an Ed25519 key", spec: func(s *spec, _ *http.Request) { s.alg = algRSAPSS }, want: "ErrAlgorithm"},
		{name: "alg ed25519 with an RSA key", key: &rsaKey, spec: func(s *spec, _ *http.Request) { s.alg = algEd25519 }, want: "ErrAlgorithm"},
		{name: "alg hmac-sha256", spec: func(s *spec, _ *http.Request) { s.alg = "hmac-sha256" }, want: "ErrAlgorithm"},
		{name: "unknown keyid", key: &testKey{}, want: "ErrUnknownKey"},
		{name: "key of another directory", key: &other, want: "ErrUnknownKey"},
		{name: "resolver returns a key that is not keyid's", spec: func(s *spec, _ *http.Request) {
			s.keyID = other.id
		}, ver: func(v *Verifier) {
			v.Keys = func(context.Context, string, string) (crypto.PublicKey, error) { return ed.pub, nil }
		}, want: "ErrUnknownKey"},
		{name: "resolver returns nil", ver: func(v *Verifier) {
			v.Keys = func(context.Context, string, string) (crypto.PublicKey, error) { return nil, nil }
		}, want: "ErrUnknownKey"},
		{name: "resolver returns an unsupported key", ver: func(v *Verifier) {
			v.Keys = func(context.Context, string, string) (crypto.PublicKey, error) { return "key", nil }
		}, want: "ErrAlgorithm"},
		{name: "resolver fails plainly", ver: func(v *Verifier) {
			v.Keys = func(context.Context, string, string) (crypto.PublicKey, error) { return nil, errors.New("boom") }
		}, want: "ErrUnavailable"},
		{name: "resolver unavailable", ver: func(v *Verifier) {
			v.Keys = func(context.Context, string, string) (crypto.PublicKey, error) {
				return nil, fmt.Errorf("directory down: %w", ErrUnavailable)
			}
		}, want: "ErrUnavailable"},
		{name: "no resolver", ver: func(v *Verifier) { v.Keys = nil }, want: "ErrUnavailable"},
		{name: "tampered signature", post: func(r *http.Request) {
			r.Header.Set("Signature", flipSignatureByte(t, r.Header.Get("Signature")))
		}, want: "ErrBadSignature"},
		{name: "tampered covered method", spec: func(s *spec, _ *http.Request) {
			s.components = append(s.components, `"@method"`)
		}, post: func(r *http.Request) { r.Method = http.MethodPost }, want: "ErrBadSignature"},
		{name: "tampered parameters", post: func(r *http.Request) {
			in := r.Header.Get("Signature-Input")
			r.Header.Set("Signature-Input", strings.Replace(in, fmt.Sprintf("expires=%d", testNow.Unix()+60), fmt.Sprintf("expires=%d", testNow.Unix()+61), 1))
		}, want: "ErrBadSignature"},
		{name: "signature of another key", post: func(r *http.Request) {
			r2, s := baseRequest(t)
			s.keyID = ed.id
			signRequest(t, r2, other, s)
			r.Header.Set("Signature", r2.Header.Get("Signature"))
		}, want: "ErrBadSignature"},

		// Components.
		{name: "component covered twice", spec: func(s *spec, _ *http.Request) {
			s.components = append(s.components, `"@authority"`)
		}, want: "ErrMalformed"},
		{name: "uppercase field name", spec: func(s *spec, r *http.Request) {
			r.Header.Set("Date", "today")
			s.components = append(s.components, `"Date"`)
		}, want: "ErrMalformed"},
		{name: "too many components", post: func(r *http.Request) {
			var extra []string
			for i := 0; i < maxComponents; i++ {
				r.Header.Set(fmt.Sprintf("X-F%d", i), "v")
				extra = append(extra, fmt.Sprintf(`"x-f%d"`, i))
			}
			r.Header.Set("Signature-Input", strings.Replace(r.Header.Get("Signature-Input"), `"@authority"`, `"@authority" `+strings.Join(extra, " "), 1))
		}, want: "ErrMalformed"},
		{name: "covered field absent", spec: func(s *spec, _ *http.Request) {
			s.components = append(s.components, `"x-absent"`)
		}, want: "ErrMalformed"},
		{name: "line break in a covered field", spec: func(s *spec, r *http.Request) {
			r.Header["X-Evil"] = []string{"a\n\"@authority\": site.example"}
			s.components = append(s.components, `"x-evil"`)
		}, want: "ErrMalformed"},
		{name: "unsupported component parameter", post: func(r *http.Request) {
			r.Header.Set("Signature-Input", strings.Replace(r.Header.Get("Signature-Input"), `"@authority"`, `"@authority" "signature-agent";sf`, 1))
		}, want: "ErrMalformed"},
		{name: "@query-param", post: func(r *http.Request) {
			r.Header.Set("Signature-Input", strings.Replace(r.Header.Get("Signature-Input"), `"@authority"`, `"@authority" "@query-param";name="q"`, 1))
		}, want: "ErrMalformed"},
		{name: "req on a request", post: func(r *http.Request) {
			r.Header.Set("Signature-Input", strings.Replace(r.Header.Get("Signature-Input"), `"@authority"`, `"@authority";req`, 1))
		}, want: "ErrMalformed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			k := ed
			if c.key != nil {
				k = *c.key
				if k.priv == nil { // an unknown key
					k = newEd25519Key(t)
				}
			}
			r, s := baseRequest(t)
			if c.spec != nil {
				c.spec(&s, r)
			}
			signRequest(t, r, k, s)
			if c.post != nil {
				c.post(r)
			}
			v := &Verifier{Keys: keys.resolve, Now: func() time.Time { return testNow }}
			if c.ver != nil {
				c.ver(v)
			}
			auth := c.auth
			if auth == "" {
				auth = testAuthority
			}
			sig, err := v.Verify(context.Background(), r, auth)
			wantErr(t, err, c.want)
			if err == nil {
				agent := c.agent
				if agent == "" {
					agent = testAgent
				}
				if sig.Agent != agent || sig.KeyID != k.id || sig.Label != "sig1" || sig.Nonce != s.nonce {
					t.Fatalf("got %+v", sig)
				}
			} else if !strings.HasPrefix(err.Error(), "webbotauth: ") {
				t.Fatalf("error message %q names no source", err)
			}
		})
	}
}

// TestVerifyResolverArguments checks what the resolver is asked: the
// Signature-Agent URL in AgentURL form and the keyid, nothing fetched
// before the cheap checks pass.
func TestVerifyResolverArguments(t *testing.T) {
	k := newEd25519Key(t)
	var got [][2]string
	v := &Verifier{Now: func() time.Time { return testNow }, Keys: func(_ context.Context, agent, keyID string) (crypto.PublicKey, error) {
		got = append(got, [2]string{agent, keyID})
		return k.pub, nil
	}}
	r, s := baseRequest(t)
	r.Header.Set("Signature-Agent", `sig1="HTTPS://AGENT.example:443"`)
	s.agentValue = `"HTTPS://AGENT.example:443"`
	signRequest(t, r, k, s)
	if _, err := v.Verify(context.Background(), r, testAuthority); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != [2]string{testAgent, k.id} {
		t.Fatalf("resolver asked %v", got)
	}
	// An expired signature never reaches the resolver.
	r, s = baseRequest(t)
	s.created, s.expires = 1, 2
	signRequest(t, r, k, s)
	_, err := v.Verify(context.Background(), r, testAuthority)
	wantErr(t, err, "ErrExpired")
	if len(got) != 1 {
		t.Fatal("the resolver was asked for an expired signature")
	}
}

// TestVerifyMultipleSignatures: only web-bot-auth signatures count, each is
// tried, any valid one wins, and their number is bounded.
func TestVerifyMultipleSignatures(t *testing.T) {
	k := newEd25519Key(t)
	keys := newKeyMap().add(testAgent, k)
	v := &Verifier{Keys: keys.resolve, Now: func() time.Time { return testNow }}

	// Another tag first, then a bad web-bot-auth signature, then a good one.
	r, s := baseRequest(t)
	r.Header.Set("Signature-Agent", `sig1="`+testAgent+`", sig2="`+testAgent+`"`)
	other := s
	other.label, other.tag = "other", "something-else"
	signRequest(t, r, k, other)
	bad := s
	bad.label = "sig1"
	signRequest(t, r, newEd25519Key(t), bad)
	good := s
	good.label = "sig2"
	good.components = []string{`"@authority"`, `"signature-agent";key="sig2"`}
	signRequest(t, r, k, good)
	sig, err := v.Verify(context.Background(), r, testAuthority)
	if err != nil || sig.Label != "sig2" {
		t.Fatalf("%+v %v", sig, err)
	}

	// All bad: the first's error, naming the count.
	r, s = baseRequest(t)
	s.expires = s.created + 1000
	signRequest(t, r, k, s)
	s2 := s
	s2.label = "sig2"
	signRequest(t, r, k, s2)
	_, err = v.Verify(context.Background(), r, testAuthority)
	wantErr(t, err, "ErrLifetime")
	if !strings.Contains(err.Error(), "1 more") {
		t.Fatalf("error %q does not count the others", err)
	}

	// A failed check outranks "cannot tell": an untrusted signer first,
	// then a tampered signature by the trusted one, is the tampering.
	r, s = baseRequest(t)
	r.Header.Set("Signature-Agent", `a="https://evil.example", sig1="`+testAgent+`"`)
	first := s
	first.label, first.components = "a", []string{`"@authority"`, `"signature-agent";key="a"`}
	first.members = map[string]string{"a": `"https://evil.example"`}
	signRequest(t, r, k, first)
	s.keyID = k.id
	signRequest(t, r, newEd25519Key(t), s) // names k, signed by another key
	_, err = v.Verify(context.Background(), r, testAuthority)
	wantErr(t, err, "ErrBadSignature")

	// More than maxCandidates.
	r, s = baseRequest(t)
	for i := 0; i <= maxCandidates; i++ {
		s.label = fmt.Sprintf("s%d", i)
		signRequest(t, r, k, s)
	}
	_, err = v.Verify(context.Background(), r, testAuthority)
	wantErr(t, err, "ErrMalformed")
}

// TestVerifyReplay: a nonce is spent once its signature verifies, for its
// lifetime; a forged signature cannot spend another's nonce; signatures
// without a nonce may be repeated (see the package documentation).
func TestVerifyReplay(t *testing.T) {
	k := newEd25519Key(t)
	keys := newKeyMap().add(testAgent, k)
	replays := NewMemoryReplays(100)
	v := &Verifier{Keys: keys.resolve, Now: func() time.Time { return testNow }, Replays: replays}

	r, s := baseRequest(t)
	signRequest(t, r, k, s)
	replayed := r.Clone(context.Background())

	// An attacker who saw the nonce first sends it with a forged signature.
	forged, fs := baseRequest(t)
	fs.nonce = s.nonce
	signRequest(t, forged, k, fs)
	forged.Header.Set("Signature", flipSignatureByte(t, forged.Header.Get("Signature")))
	_, err := v.Verify(context.Background(), forged, testAuthority)
	wantErr(t, err, "ErrBadSignature")

	_, err = v.Verify(context.Background(), r, testAuthority)
	wantErr(t, err, "ok")
	_, err = v.Verify(context.Background(), replayed, testAuthority)
	wantErr(t, err, "ErrReplay")

	// The same nonce under another key is another nonce.
	k2 := newEd25519Key(t)
	keys.add(testAgent, k2)
	r2, s2 := baseRequest(t)
	s2.nonce = s.nonce
	signRequest(t, r2, k2, s2)
	_, err = v.Verify(context.Background(), r2, testAuthority)
	wantErr(t, err, "ok")

	// Without a nonce, the same signature verifies again.
	r3, s3 := baseRequest(t)
	s3.nonce = ""
	signRequest(t, r3, k, s3)
	for i := 0; i < 2; i++ {
		_, err = v.Verify(context.Background(), r3.Clone(context.Background()), testAuthority)
		wantErr(t, err, "ok")
	}

	// A failing cache is "cannot tell".
	v.Replays = failingReplays{}
	r4, s4 := baseRequest(t)
	signRequest(t, r4, k, s4)
	_, err = v.Verify(context.Background(), r4, testAuthority)
	wantErr(t, err, "ErrUnavailable")
}

type failingReplays struct{}

func (failingReplays) Seen(context.Context, string, time.Time, time.Time) (bool, error) {
	return false, errors.New("store down")
}
