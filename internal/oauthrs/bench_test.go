package oauthrs

import (
	"context"
	"testing"
)

// BenchmarkVerify is the cost of one verification on the request path,
// the key set cached: parsing, the signature, the claims and the scopes.
func BenchmarkVerify(b *testing.B) {
	keys(b)
	is := newIssuer(b, "", rsaKey, ecKey, edKey)
	v, _ := is.verifier(b, Options{})
	for _, k := range []testKey{ecKey, rsaKey, edKey} {
		tok := sign(b, k, is.claims(), "at+jwt")
		if _, err := v.Verify(context.Background(), tok, []string{"store"}); err != nil {
			b.Fatal(err)
		}
		b.Run(string(k.alg), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := v.Verify(context.Background(), tok, []string{"store"}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	// A forged token is refused at the same cost or less: the signature
	// is checked once, with the one key its kid names.
	forged := sign(b, otherRSA, is.claims(), "")
	b.Run("RS256 forged", func(b *testing.B) {
		for b.Loop() {
			if _, err := v.Verify(context.Background(), forged, nil); err == nil {
				b.Fatal("forged token verified")
			}
		}
	})
}
