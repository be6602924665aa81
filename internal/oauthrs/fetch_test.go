package oauthrs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

func TestMetadataURLs(t *testing.T) {
	cases := map[string][]string{
		"https://as.example": {"https://as.example/.well-known/oauth-authorization-server",
			"https://as.example/.well-known/openid-configuration"},
		"https://as.example/": {"https://as.example/.well-known/oauth-authorization-server",
			"https://as.example/.well-known/openid-configuration"},
		"https://as.example/tenant1/": {"https://as.example/.well-known/oauth-authorization-server/tenant1",
			"https://as.example/.well-known/openid-configuration/tenant1",
			"https://as.example/tenant1/.well-known/openid-configuration"},
	}
	for issuer, want := range cases {
		if got := metadataURLs(issuer); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("metadataURLs(%q)\n got %q\nwant %q", issuer, got, want)
		}
	}
}

func TestDiscovery(t *testing.T) {
	keys(t)
	t.Run("OpenID fallback", func(t *testing.T) {
		is := newIssuer(t, "/realms/r1", ecKey)
		is.set(func(is *testIssuer) { is.metaPath = "/realms/r1" + OIDCWellKnownPath })
		v, _ := is.verifier(t, Options{})
		if _, err := v.Verify(context.Background(), sign(t, ecKey, is.claims(), ""), nil); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("metadata names another issuer", func(t *testing.T) {
		is := newIssuer(t, "", ecKey)
		is.set(func(is *testIssuer) { is.metaIssuer = is.issuer + "/" })
		v, _ := is.verifier(t, Options{})
		_, err := v.Verify(context.Background(), sign(t, ecKey, is.claims(), ""), nil)
		e := asError(t, err, Unavailable, CheckMetadata)
		if !strings.Contains(e.Error(), "RFC 8414 3.3") || e.Status() != http.StatusServiceUnavailable {
			t.Errorf("err = %v", e)
		}
		if is.jwksFetches.Load() != 0 {
			t.Error("the JWK Set of a mismatched issuer was fetched")
		}
	})
	t.Run("JWK Set too large", func(t *testing.T) {
		is := newIssuer(t, "", ecKey)
		is.set(func(is *testIssuer) { is.jwksBody = []byte(`{"keys":[],"pad":"` + strings.Repeat("x", 2000) + `"}`) })
		v, _ := is.verifier(t, Options{MaxBytes: 1024})
		_, err := v.Verify(context.Background(), sign(t, ecKey, is.claims(), ""), nil)
		e := asError(t, err, Unavailable, CheckJWKS)
		if !strings.Contains(e.Error(), "exceeds 1024 bytes") {
			t.Errorf("err = %v", e)
		}
	})
	t.Run("JWK Set with too many keys", func(t *testing.T) {
		is := newIssuer(t, "", ecKey)
		var set jose.JSONWebKeySet
		for i := range maxKeys + 1 {
			set.Keys = append(set.Keys, jose.JSONWebKey{Key: ecKey.priv.Public(), KeyID: fmt.Sprint("k", i)})
		}
		body, _ := json.Marshal(set)
		is.set(func(is *testIssuer) { is.jwksBody = body })
		v, _ := is.verifier(t, Options{})
		_, err := v.Verify(context.Background(), sign(t, ecKey, is.claims(), ""), nil)
		asError(t, err, Unavailable, CheckJWKS)
	})
	t.Run("unusable keys passed over", func(t *testing.T) {
		is := newIssuer(t, "", ecKey)
		pub, _ := json.Marshal(ecKey.public())
		priv, _ := json.Marshal(jose.JSONWebKey{Key: rsaKey.priv, KeyID: "rsa-1", Algorithm: "RS256"})
		body := `{"keys":[{"kty":"oct","kid":"hs","k":"c2VjcmV0"},` + string(priv) +
			`,{"kty":"EC","kid":"enc","use":"enc","crv":"P-256","x":"` + "" + `"},{"kty":"unknown"},` + string(pub) + `]}`
		is.set(func(is *testIssuer) { is.jwksBody = []byte(body) })
		v, _ := is.verifier(t, Options{})
		if _, err := v.Verify(context.Background(), sign(t, ecKey, is.claims(), ""), nil); err != nil {
			t.Fatal(err)
		}
		// The RSA key was published with its private part: not used.
		_, err := v.Verify(context.Background(), sign(t, rsaKey, is.claims(), ""), nil)
		asError(t, err, InvalidToken, CheckKey)
		// Nor the symmetric key, whatever alg the token names.
		hs := testKey{kid: "hs", alg: jose.HS256}
		_, err = v.Verify(context.Background(), rawToken(t, map[string]any{"alg": "HS256", "kid": hs.kid}, is.claims(), []byte("x")), nil)
		asError(t, err, InvalidToken, CheckAlg)
	})
	t.Run("redirect not followed", func(t *testing.T) {
		is := newIssuer(t, "", ecKey)
		target := newIssuer(t, "", ecKey)
		redirect := httptest.NewServer(http.RedirectHandler(target.srv.URL+ASWellKnownPath, http.StatusFound))
		t.Cleanup(redirect.Close)
		v, err := NewVerifier(redirect.URL, testAudience, Options{AllowHTTPLoopback: true, Logger: is.discard()})
		if err != nil {
			t.Fatal(err)
		}
		_, err = v.Verify(context.Background(), sign(t, ecKey, is.claims(), ""), nil)
		e := asError(t, err, Unavailable, CheckMetadata)
		if !strings.Contains(e.Error(), "not followed") || target.metaFetches.Load() != 0 {
			t.Errorf("err = %v; target fetched %d times", e, target.metaFetches.Load())
		}
	})
}

func TestIssuerDown(t *testing.T) {
	keys(t)
	t.Run("connection refused", func(t *testing.T) {
		is := newIssuer(t, "", ecKey)
		tok := sign(t, ecKey, is.claims(), "")
		is.srv.Close()
		v, _ := is.verifier(t, Options{})
		_, err := v.Verify(context.Background(), tok, nil)
		e := asError(t, err, Unavailable, CheckMetadata)
		if !strings.Contains(e.Error(), "connection refused") || e.Status() != http.StatusServiceUnavailable {
			t.Errorf("err = %v", e)
		}
	})
	t.Run("answers 503", func(t *testing.T) {
		is := newIssuer(t, "", ecKey)
		is.set(func(is *testIssuer) { is.status = http.StatusServiceUnavailable })
		v, clk := is.verifier(t, Options{MinRefetch: time.Hour})
		tok := sign(t, ecKey, is.claims(), "")
		_, err := v.Verify(context.Background(), tok, nil)
		asError(t, err, Unavailable, CheckMetadata)
		// One attempt (RFC 8414's URL, then OpenID's) per retry interval
		// (10s at most), whatever the number of requests.
		if n := is.fetches.Load(); n != 2 {
			t.Errorf("%d requests reached the issuer, want 2", n)
		}
		for range 5 {
			_, err := v.Verify(context.Background(), tok, nil)
			asError(t, err, Unavailable, CheckMetadata)
		}
		if n := is.fetches.Load(); n != 2 {
			t.Errorf("%d requests reached the issuer, want 2", n)
		}
		is.set(func(is *testIssuer) { is.status = 0 })
		if _, err := v.Verify(context.Background(), tok, nil); err == nil {
			t.Error("a request within the retry interval fetched again")
		}
		clk.Advance(maxRetryDelay)
		if _, err := v.Verify(context.Background(), tok, nil); err != nil {
			t.Fatalf("after the retry interval: %v", err)
		}
	})
}

func TestKidFlood(t *testing.T) {
	keys(t)
	is := newIssuer(t, "", ecKey)
	v, clk := is.verifier(t, Options{MinRefetch: time.Hour, Refresh: 24 * time.Hour})
	if _, err := v.Verify(context.Background(), sign(t, ecKey, is.claims(), ""), nil); err != nil {
		t.Fatal(err)
	}
	// A flood of made-up kids, concurrently and in turn, fetches nothing
	// within MinRefetch of the last fetch.
	var wg sync.WaitGroup
	for i := range 200 {
		wg.Go(func() {
			k := testKey{kid: fmt.Sprint("made-up-", i), alg: ecKey.alg, priv: ecKey.priv}
			_, err := v.Verify(context.Background(), sign(t, k, is.claims(), ""), nil)
			var e *Error
			if !errors.As(err, &e) || e.Check != CheckKey {
				t.Errorf("kid %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	if n := is.jwksFetches.Load(); n != 1 {
		t.Fatalf("JWK Set fetched %d times for one valid token and 200 unknown kids, want 1", n)
	}
	// Past MinRefetch, an unknown kid refetches once: a key the issuer
	// has just published is found.
	is.set(func(is *testIssuer) { is.published = append(is.published, ec2) })
	clk.Advance(time.Hour)
	for range 20 {
		if _, err := v.Verify(context.Background(), sign(t, ec2, is.claims(), ""), nil); err != nil {
			t.Fatal(err)
		}
	}
	if n := is.jwksFetches.Load(); n != 2 {
		t.Errorf("JWK Set fetched %d times, want 2", n)
	}
}

func TestColdMissesShareOneFetch(t *testing.T) {
	keys(t)
	is := newIssuer(t, "", ecKey)
	v, _ := is.verifier(t, Options{})
	tok := sign(t, ecKey, is.claims(), "")
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			if _, err := v.Verify(context.Background(), tok, nil); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if m, j := is.metaFetches.Load(), is.jwksFetches.Load(); m != 1 || j != 1 {
		t.Errorf("metadata fetched %d times, JWK Set %d, want 1 and 1", m, j)
	}
	st := v.Status()
	if st.JWKSURI != is.srv.URL+"/jwks" || st.Keys != 1 || st.LastError != nil || !st.LastFetch.Equal(t0) ||
		!st.FreshUntil.Equal(t0.Add(DefaultRefresh)) {
		t.Errorf("Status = %+v", st)
	}
}

func TestStaleKeys(t *testing.T) {
	keys(t)
	is := newIssuer(t, "", ecKey)
	v, clk := is.verifier(t, Options{Refresh: time.Minute, MaxStale: time.Hour})
	tok := sign(t, ecKey, is.claims(), "")
	if _, err := v.Verify(context.Background(), tok, nil); err != nil {
		t.Fatal(err)
	}
	// Stale, the issuer down: the cached copy still verifies while
	// refreshes are attempted.
	is.set(func(is *testIssuer) { is.status = http.StatusInternalServerError })
	clk.Advance(2 * time.Minute)
	if _, err := v.Verify(context.Background(), tok, nil); err != nil {
		t.Fatalf("stale copy: %v", err)
	}
	settle(v)
	if n := is.fetches.Load(); n <= 2 {
		t.Errorf("no refresh attempted for a stale copy (%d requests reached the issuer)", n)
	}
	// Past MaxStale it verifies nothing: fail closed.
	clk.Advance(time.Hour)
	claims := is.claims()
	claims["exp"] = t0.Add(3 * time.Hour).Unix()
	_, err := v.Verify(context.Background(), sign(t, ecKey, claims, ""), nil)
	asError(t, err, Unavailable, CheckJWKS)
	settle(v)
	if st := v.Status(); st.LastError == nil || st.Keys != 1 {
		t.Errorf("Status = %+v, want the failed refresh and the stale copy", st)
	}
}

func TestRunPrefetches(t *testing.T) {
	keys(t)
	is := newIssuer(t, "", ecKey)
	v, _ := is.verifier(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go v.Run(ctx)
	<-is.jwksFetched // Run's first fetch has reached the issuer
	if _, err := v.Verify(context.Background(), sign(t, ecKey, is.claims(), ""), nil); err != nil {
		t.Fatal(err)
	}
	if n := is.jwksFetches.Load(); n != 1 {
		t.Errorf("JWK Set fetched %d times, want 1 (Run's)", n)
	}
}

func TestSSRF(t *testing.T) {
	keys(t)
	t.Run("https issuer on loopback", func(t *testing.T) {
		is := newIssuer(t, "", ecKey)
		tls := httptest.NewTLSServer(http.HandlerFunc(is.serve))
		t.Cleanup(tls.Close)
		// The test server's own client dials it its own way (DialContext
		// set), which GuardDial leaves alone: a default transport trusting
		// its certificate.
		client := &http.Client{Transport: &http.Transport{TLSClientConfig: tls.Client().Transport.(*http.Transport).TLSClientConfig}}
		v, err := NewVerifier(tls.URL, testAudience, Options{Client: client, Logger: is.discard()})
		if err != nil {
			t.Fatal(err)
		}
		_, err = v.Verify(context.Background(), sign(t, ecKey, is.claims(), ""), nil)
		e := asError(t, err, Unavailable, CheckMetadata)
		if !strings.Contains(e.Error(), "private, loopback or link-local") || is.metaFetches.Load() != 0 {
			t.Errorf("err = %v", e)
		}
	})
	t.Run("jwks_uri over http to a public host", func(t *testing.T) {
		srv := httptest.NewServer(nil)
		t.Cleanup(srv.Close)
		srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_ = json.NewEncoder(w).Encode(map[string]string{"issuer": srv.URL, "jwks_uri": "http://203.0.113.7/jwks"})
		})
		v, err := NewVerifier(srv.URL, testAudience, Options{AllowHTTPLoopback: true, Logger: (&testIssuer{}).discard()})
		if err != nil {
			t.Fatal(err)
		}
		_, err = v.Verify(context.Background(), "eyJhbGciOiJFUzI1NiJ9.e30.c2ln", nil)
		e := asError(t, err, Unavailable, CheckMetadata)
		if !strings.Contains(e.Error(), "jwks_uri") {
			t.Errorf("err = %v", e)
		}
	})
	for _, bad := range []string{"http://as.example", "http://127.0.0.1:1", "https://as.example?x=1", "https://as.example#f",
		"https://u@as.example", "as.example", ""} {
		if _, err := NewVerifier(bad, testAudience, Options{}); err == nil {
			t.Errorf("NewVerifier(%q) succeeded", bad)
		}
	}
	if _, err := NewVerifier("http://as.example", testAudience, Options{AllowHTTPLoopback: true}); err == nil {
		t.Error("AllowHTTPLoopback admitted http to a public host")
	}
	if _, err := NewVerifier("https://as.example", "", Options{}); err == nil {
		t.Error("no audience accepted")
	}
}

// settle waits for the refresh under way, if any: one a stale copy
// started in the background.
func settle(v *Verifier) {
	v.ks.mu.Lock()
	call := v.ks.inflight
	v.ks.mu.Unlock()
	if call != nil {
		<-call.done
	}
}
