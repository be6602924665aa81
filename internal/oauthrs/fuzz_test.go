package oauthrs

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// FuzzVerify: whatever the token, Verify does not panic, fetches nothing
// more than its rate limit allows, and accepts only what the issuer's key
// signed.
func FuzzVerify(f *testing.F) {
	keys(f)
	is := newIssuer(f, "", rsaKey, ecKey, edKey)
	v, _ := is.verifier(f, Options{MinRefetch: time.Hour})
	for _, k := range []testKey{rsaKey, ecKey, edKey, otherRSA} {
		f.Add(sign(f, k, is.claims(), "at+jwt"))
	}
	f.Add(rawToken(f, map[string]any{"alg": "none"}, is.claims(), nil))
	f.Add("e30.e30.")
	f.Fuzz(func(t *testing.T, token string) {
		c, err := v.Verify(context.Background(), token, []string{"store"})
		if err == nil {
			if c.Subject != "user-42" {
				t.Fatalf("accepted %q with claims %+v", token, c)
			}
			return
		}
		var e *Error
		if !errors.As(err, &e) || e.Kind == Unavailable || strings.ContainsAny(e.Challenge("", "", nil).String(), "\r\n") {
			t.Fatalf("err = %v", err)
		}
		if n := is.jwksFetches.Load(); n > 1 {
			t.Fatalf("JWK Set fetched %d times", n)
		}
	})
}
