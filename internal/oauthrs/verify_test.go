package oauthrs

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/x509"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

func TestVerifyValid(t *testing.T) {
	keys(t)
	is := newIssuer(t, "/tenant", rsaKey, ecKey, edKey)
	v, _ := is.verifier(t, Options{})
	for _, k := range []testKey{rsaKey, ecKey, edKey} {
		t.Run(string(k.alg), func(t *testing.T) {
			c, err := v.Verify(context.Background(), sign(t, k, is.claims(), "at+jwt"), []string{"store"})
			if err != nil {
				t.Fatal(err)
			}
			want := Claims{Subject: "user-42", ClientID: "client-7", Scopes: []string{"store", "store.read"},
				Expiry: time.Unix(t0.Add(time.Hour).Unix(), 0), ID: "jti-1"}
			if c.Subject != want.Subject || c.ClientID != want.ClientID || !slices.Equal(c.Scopes, want.Scopes) ||
				!c.Expiry.Equal(want.Expiry) || c.ID != want.ID {
				t.Fatalf("claims = %+v, want %+v", c, want)
			}
		})
	}
	if n := is.metaFetches.Load(); n != 1 {
		t.Errorf("metadata fetched %d times, want 1", n)
	}
	if n := is.jwksFetches.Load(); n != 1 {
		t.Errorf("JWKS fetched %d times, want 1", n)
	}
}

func TestVerifyChecks(t *testing.T) {
	keys(t)
	is := newIssuer(t, "", rsaKey, ecKey, edKey)
	with := func(edit func(c map[string]any)) map[string]any {
		c := is.claims()
		edit(c)
		return c
	}
	hmacToken := func() string {
		// HS256 keyed with the RSA public key's bytes, as published: the
		// confusion RFC 8725 2.1 warns of.
		der, err := x509.MarshalPKIXPublicKey(rsaKey.priv.Public())
		if err != nil {
			t.Fatal(err)
		}
		unsigned := rawToken(t, map[string]any{"alg": "HS256", "kid": rsaKey.kid}, is.claims(), nil)
		unsigned = strings.TrimSuffix(unsigned, ".")
		m := hmac.New(sha256.New, der)
		m.Write([]byte(unsigned))
		return rawToken(t, map[string]any{"alg": "HS256", "kid": rsaKey.kid}, is.claims(), m.Sum(nil))
	}
	// ecAsRSA is signed by the EC key but names the RSA key's kid.
	ecAsRSA := testKey{kid: rsaKey.kid, alg: ecKey.alg, priv: ecKey.priv}
	cases := []struct {
		name     string
		token    string
		required []string
		kind     Kind
		check    string
	}{
		{"another audience", sign(t, ecKey, with(func(c map[string]any) { c["aud"] = "https://other.example/mcp" }), ""), nil, InvalidToken, CheckAudience},
		{"audience missing", sign(t, ecKey, with(func(c map[string]any) { delete(c, "aud") }), ""), nil, InvalidToken, CheckAudience},
		{"expired", sign(t, ecKey, with(func(c map[string]any) { c["exp"] = t0.Add(-time.Minute).Unix() }), ""), nil, InvalidToken, CheckExpiry},
		{"no exp", sign(t, ecKey, with(func(c map[string]any) { delete(c, "exp") }), ""), nil, InvalidToken, CheckExpiry},
		{"nbf in the future", sign(t, ecKey, with(func(c map[string]any) { c["nbf"] = t0.Add(time.Minute).Unix() }), ""), nil, InvalidToken, CheckNotBefore},
		{"iat in the future", sign(t, ecKey, with(func(c map[string]any) { c["iat"] = t0.Add(time.Hour).Unix() }), ""), nil, InvalidToken, CheckIssuedAt},
		{"another issuer", sign(t, ecKey, with(func(c map[string]any) { c["iss"] = is.issuer + "/" }), ""), nil, InvalidToken, CheckIssuer},
		{"signed by another key", sign(t, otherRSA, is.claims(), ""), nil, InvalidToken, CheckSignature},
		{"signed by another Ed25519 key", sign(t, otherEd, is.claims(), ""), nil, InvalidToken, CheckSignature},
		{"unknown kid", sign(t, ec2, is.claims(), ""), nil, InvalidToken, CheckKey},
		{"alg none", rawToken(t, map[string]any{"alg": "none", "kid": ecKey.kid}, is.claims(), nil), nil, InvalidToken, CheckAlg},
		{"alg none, no kid", rawToken(t, map[string]any{"alg": "none"}, is.claims(), nil), nil, InvalidToken, CheckAlg},
		{"alg NONE", rawToken(t, map[string]any{"alg": "NONE", "kid": ecKey.kid}, is.claims(), nil), nil, InvalidToken, CheckAlg},
		{"HS256 keyed with the public key", hmacToken(), nil, InvalidToken, CheckAlg},
		{"ES256 under an RSA key's kid", sign(t, ecAsRSA, is.claims(), ""), nil, InvalidToken, CheckAlg},
		{"typ of an ID token", sign(t, ecKey, is.claims(), "id_token+jwt"), nil, InvalidToken, CheckType},
		{"typ of a logout token", sign(t, ecKey, is.claims(), "logout+jwt"), nil, InvalidToken, CheckType},
		{"scope a number", sign(t, ecKey, with(func(c map[string]any) { c["scope"] = 7 }), ""), nil, InvalidToken, CheckClaims},
		{"scope an array", sign(t, ecKey, with(func(c map[string]any) { c["scope"] = []string{"store"} }), ""), nil, InvalidToken, CheckClaims},
		{"scp with a number", sign(t, ecKey, with(func(c map[string]any) { c["scp"] = []any{"store", 1} }), ""), nil, InvalidToken, CheckClaims},
		{"exp a string", sign(t, ecKey, with(func(c map[string]any) { c["exp"] = "tomorrow" }), ""), nil, InvalidToken, CheckClaims},
		{"empty", "", nil, InvalidToken, CheckFormat},
		{"two parts", "a.b", nil, InvalidToken, CheckFormat},
		{"header not base64", "!!.b.c", nil, InvalidToken, CheckFormat},
		{"too long", strings.Repeat("a", MaxTokenBytes) + ".b.c", nil, InvalidToken, CheckFormat},
		{"JWE-shaped", "a.b.c.d.e", nil, InvalidToken, CheckFormat},
		{"scope missing", sign(t, ecKey, is.claims(), ""), []string{"store", "store.checkout"}, InsufficientScope, CheckScope},
		{"scope in other case", sign(t, ecKey, is.claims(), ""), []string{"Store"}, InsufficientScope, CheckScope},
	}
	v, _ := is.verifier(t, Options{})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := v.Verify(context.Background(), tc.token, tc.required)
			e := asError(t, err, tc.kind, tc.check)
			want := http.StatusUnauthorized
			if tc.kind == InsufficientScope {
				want = http.StatusForbidden
			}
			if e.Status() != want {
				t.Errorf("Status = %d, want %d", e.Status(), want)
			}
		})
	}
}

func TestVerifyAccepts(t *testing.T) {
	keys(t)
	is := newIssuer(t, "", ecKey)
	with := func(edit func(c map[string]any)) map[string]any {
		c := is.claims()
		edit(c)
		return c
	}
	cases := []struct {
		name   string
		token  string
		scopes []string
	}{
		{"aud an array", sign(t, ecKey, with(func(c map[string]any) { c["aud"] = []string{"https://a.example", testAudience} }), ""), []string{"store", "store.read"}},
		{"typ JWT", sign(t, ecKey, is.claims(), "JWT"), []string{"store", "store.read"}},
		{"typ application/at+jwt", sign(t, ecKey, is.claims(), "application/AT+JWT"), []string{"store", "store.read"}},
		{"expired within the leeway", sign(t, ecKey, with(func(c map[string]any) { c["exp"] = t0.Add(-10 * time.Second).Unix() }), ""), []string{"store", "store.read"}},
		{"nbf within the leeway", sign(t, ecKey, with(func(c map[string]any) { c["nbf"] = t0.Add(10 * time.Second).Unix() }), ""), []string{"store", "store.read"}},
		{"scp array", sign(t, ecKey, with(func(c map[string]any) { delete(c, "scope"); c["scp"] = []string{"a", "b", "a"} }), ""), []string{"a", "b"}},
		{"scp string and scope", sign(t, ecKey, with(func(c map[string]any) { c["scp"] = "store  c" }), ""), []string{"store", "store.read", "c"}},
		{"no kid, one key", sign(t, testKey{alg: ecKey.alg, priv: ecKey.priv}, is.claims(), ""), []string{"store", "store.read"}},
		{"no scope", sign(t, ecKey, with(func(c map[string]any) { delete(c, "scope") }), ""), nil},
	}
	v, _ := is.verifier(t, Options{})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := v.Verify(context.Background(), tc.token, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(c.Scopes, tc.scopes) {
				t.Errorf("scopes = %q, want %q", c.Scopes, tc.scopes)
			}
		})
	}
}

// TestVerifyIgnoresTokenKeys: a token naming its own key (an embedded
// jwk, a jku) is verified with the issuer's key all the same, and makes
// nothing be fetched.
func TestVerifyIgnoresTokenKeys(t *testing.T) {
	keys(t)
	is := newIssuer(t, "", ecKey)
	v, _ := is.verifier(t, Options{})
	if _, err := v.Verify(context.Background(), sign(t, ecKey, is.claims(), ""), nil); err != nil {
		t.Fatal(err)
	}
	for _, kid := range []string{ecKey.kid, ""} {
		opts := (&jose.SignerOptions{EmbedJWK: true}).WithHeader("jku", is.srv.URL+"/attacker-jwks")
		if kid != "" {
			opts = opts.WithHeader("kid", kid)
		}
		s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: ec2.priv}, opts)
		if err != nil {
			t.Fatal(err)
		}
		payload, _ := json.Marshal(is.claims())
		jws, err := s.Sign(payload)
		if err != nil {
			t.Fatal(err)
		}
		tok, _ := jws.CompactSerialize()
		_, err = v.Verify(context.Background(), tok, nil)
		asError(t, err, InvalidToken, CheckSignature)
	}
	if n := is.fetches.Load(); n != 2 {
		t.Errorf("%d requests reached the issuer, want 2 (its metadata and JWK Set)", n)
	}
}

func TestVerifyStrictType(t *testing.T) {
	keys(t)
	is := newIssuer(t, "", ecKey)
	v, _ := is.verifier(t, Options{RequireAccessTokenType: true})
	for _, typ := range []string{"", "JWT"} {
		_, err := v.Verify(context.Background(), sign(t, ecKey, is.claims(), typ), nil)
		asError(t, err, InvalidToken, CheckType)
	}
	if _, err := v.Verify(context.Background(), sign(t, ecKey, is.claims(), "at+jwt"), nil); err != nil {
		t.Fatal(err)
	}
}

func TestInsufficientScopeChallenge(t *testing.T) {
	keys(t)
	is := newIssuer(t, "", ecKey)
	v, _ := is.verifier(t, Options{})
	c, err := v.Verify(context.Background(), sign(t, ecKey, is.claims(), ""), []string{"store", "store.checkout"})
	e := asError(t, err, InsufficientScope, CheckScope)
	if c.Subject != "user-42" {
		t.Errorf("the claims of a valid token are returned with insufficient_scope; got %+v", c)
	}
	if !slices.Equal(e.Missing, []string{"store.checkout"}) {
		t.Errorf("Missing = %q", e.Missing)
	}
	got := e.Challenge("", "https://shop.example/.well-known/oauth-protected-resource/mcp", nil).String()
	want := `Bearer error="insufficient_scope", scope="store store.checkout", ` +
		`resource_metadata="https://shop.example/.well-known/oauth-protected-resource/mcp", ` +
		`error_description="the token lacks a required scope"`
	if got != want {
		t.Errorf("challenge\n got %s\nwant %s", got, want)
	}
}
