package webbotauth

import (
	"context"
	"crypto"
	"crypto/ed25519"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/agentready/agentready/internal/testing/wbavectors"
)

// negativeReasons maps the set's proposed reasons to this package's
// sentinels. NV-17's reason was written for
// draft-meunier-webbotauth-httpsig-protocol-02, where a path made the
// member ignored; under -01 the URL is a JWK Set's, which the site does not
// trust (testdata/negative/SOURCE.md).
var negativeReasons = map[string]string{
	"target-not-covered":               "ErrAuthority",
	"missing-fields":                   "ErrMalformed",
	"expired":                          "ErrExpired",
	"clock-ahead":                      "ErrExpired",
	"bad-signature":                    "ErrBadSignature",
	"canonicalization-mismatch":        "ErrBadSignature",
	"content-digest-mismatch":          "ErrDigest",
	"missing-component":                "ErrMalformed",
	"signature-input-unreadable":       "ErrMalformed",
	"signature-value-unreadable":       "ErrMalformed",
	"duplicate-component":              "ErrMalformed",
	"signature-agent-absent":           "ErrNoAgent",
	"signature-agent-ambiguous-member": "ErrMalformed",
	"signature-agent-member-missing":   "ErrMalformed",
	"signature-agent-not-https":        "ErrMalformed",
	"signature-agent-not-origin":       "ErrUntrusted",
	"signature-agent-unparsable":       "ErrMalformed",
}

// TestNegativeVectors refuses every published negative vector with its
// reason, and with the outcome the set states (C.1): "unverified" for
// ErrNoAgent, ErrUntrusted and ErrUnavailable, "invalid" for the rest. The
// vector's own directory is the only one trusted, served from memory.
func TestNegativeVectors(t *testing.T) {
	set, err := wbavectors.Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Tests) != 17 {
		t.Fatalf("%d vectors, want 17", len(set.Tests))
	}
	pub, keyID, err := jwkPublic(set.Key.JWK)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range set.Tests {
		t.Run(v.ID, func(t *testing.T) {
			// The extract is exact: the signature verifies over the base
			// the signer built.
			sigB64 := v.Request.Headers["Signature"]
			sigB64 = sigB64[strings.Index(sigB64, ":")+1 : len(sigB64)-1]
			sig, err := base64.StdEncoding.DecodeString(sigB64)
			if err != nil || !ed25519.Verify(pub.(ed25519.PublicKey), []byte(v.Signature.SignedBase), sig) {
				t.Fatalf("the vector's signature does not verify over its signedBase (%v)", err)
			}
			var body *strings.Reader
			if v.Request.Body != nil {
				body = strings.NewReader(*v.Request.Body)
			}
			r := httptest.NewRequest(v.Request.Method, v.Request.URL, nil)
			if body != nil {
				r = httptest.NewRequest(v.Request.Method, v.Request.URL, body)
			}
			for name, value := range v.Request.Headers {
				r.Header.Set(name, value)
			}
			// Where the set says what the base should be, it is ours.
			if v.Signature.ExpectedBase != nil {
				if cands, err := selectSignatures(r.Header, tagWebBotAuth, maxCandidates); err == nil && cands[0].err == nil {
					base, err := signatureBase(cands[0].input, newRequestViewFor(r, "example.com"))
					if err != nil || string(base) != *v.Signature.ExpectedBase {
						t.Fatalf("base %v:\n%s\nwant\n%s", err, base, *v.Signature.ExpectedBase)
					}
				}
			}
			trusted := ""
			if v.Directory != nil {
				if trusted, err = AgentURL(v.Directory.URL); err != nil {
					t.Fatal(err)
				}
				if _, err := ParseDirectory([]byte(v.Directory.Body)); err != nil {
					t.Fatal(err)
				}
			}
			var looked []string
			ver := &Verifier{
				Keys: func(_ context.Context, agent, id string) (crypto.PublicKey, error) {
					looked = append(looked, agent)
					if agent != trusted {
						return nil, ErrUntrusted
					}
					if id != keyID {
						return nil, ErrUnknownKey
					}
					return pub, nil
				},
				Now:         func() time.Time { return time.Unix(v.Now, 0) },
				MaxLifetime: 200 * 365 * 24 * time.Hour, // NV-04 is about expiry, not lifetime
			}
			_, err = ver.Verify(context.Background(), r, "example.com")
			want, ok := negativeReasons[v.Expected.Reason]
			if !ok {
				t.Fatalf("no mapping for reason %q", v.Expected.Reason)
			}
			wantErr(t, err, want)
			outcome := "invalid"
			if unverified(err) {
				outcome = "unverified"
			}
			if outcome != v.Expected.Outcome {
				t.Fatalf("outcome %s, the set says %s (%v)", outcome, v.Expected.Outcome, err)
			}
			if Reason(err) == "" {
				t.Fatalf("no Reason for %v", err)
			}
		})
	}
	// The same requests, with their faults, are what a valid one is not:
	// NV-05's request verifies once the clock reaches its created.
	v := set.Tests[3]
	if v.ID != "NV-05" {
		t.Fatalf("vector order changed: %s", v.ID)
	}
	r := httptest.NewRequest(http.MethodGet, v.Request.URL, nil)
	for name, value := range v.Request.Headers {
		r.Header.Set(name, value)
	}
	ver := &Verifier{
		Keys:        func(context.Context, string, string) (crypto.PublicKey, error) { return pub, nil },
		Now:         func() time.Time { return time.Unix(1735689600, 0) },
		MaxLifetime: 200 * 365 * 24 * time.Hour,
	}
	if _, err := ver.Verify(context.Background(), r, "example.com"); err != nil {
		t.Fatalf("NV-05 at its created time: %v", err)
	}
}
