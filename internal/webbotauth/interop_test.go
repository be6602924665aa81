package webbotauth

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/remitly-oss/httpsig-go"
)

// The package builds RFC 9421 signature bases itself (base.go says why).
// These tests hold it to github.com/remitly-oss/httpsig-go, an independent
// implementation, wherever that one can go.

// TestInteropHTTPSigSigner: a request signed by httpsig-go's Signer, with
// every Web Bot Auth parameter, verifies with Verify (on the wall clock:
// httpsig-go's signer cannot be given one).
func TestInteropHTTPSigSigner(t *testing.T) {
	for _, k := range []testKey{newEd25519Key(t), privateJWK(t, rsaTestKey())} {
		algo := httpsig.Algo_ED25519
		if k.alg == algRSAPSS {
			algo = httpsig.Algo_RSA_PSS_SHA512
		}
		r := httptest.NewRequest(http.MethodGet, "https://site.example/path?q=1", nil)
		r.Header.Set("Signature-Agent", `"`+testAgent+`"`)
		err := httpsig.Sign(r, httpsig.SigningProfile{
			Algorithm: algo,
			Fields:    httpsig.Fields("@authority", "@method", "@path", "signature-agent"),
			Metadata: []httpsig.Metadata{httpsig.MetaCreated, httpsig.MetaExpires, httpsig.MetaKeyID,
				httpsig.MetaAlgorithm, httpsig.MetaNonce, httpsig.MetaTag},
			Label: "sig1",
		}, httpsig.SigningKey{Key: k.priv, MetaKeyID: k.id, MetaTag: tagWebBotAuth})
		if err != nil {
			t.Fatal(err)
		}
		v := &Verifier{Keys: newKeyMap().add(testAgent, k).resolve, Replays: NewMemoryReplays(10)}
		sig, err := v.Verify(context.Background(), r, testAuthority)
		if err != nil {
			t.Fatalf("%s: %v\nSignature-Input: %s", k.alg, err, r.Header.Get("Signature-Input"))
		}
		if sig.Agent != testAgent || sig.KeyID != k.id || sig.Nonce == "" {
			t.Fatalf("%+v", sig)
		}
	}
}

type fixedFetcher struct{ ks httpsig.KeySpec }

func (f fixedFetcher) FetchByKeyID(context.Context, http.Header, string) (httpsig.KeySpecer, error) {
	return f.ks, nil
}

func (f fixedFetcher) Fetch(context.Context, http.Header, httpsig.MetadataProvider) (httpsig.KeySpecer, error) {
	return nil, errors.New("keyid required")
}

// httpsigVerify verifies r's label with httpsig-go, time rules off.
func httpsigVerify(r *http.Request, label string, k testKey) error {
	algo := httpsig.Algo_ED25519
	if k.alg == algRSAPSS {
		algo = httpsig.Algo_RSA_PSS_SHA512
	}
	_, err := httpsig.Verify(r, fixedFetcher{httpsig.KeySpec{KeyID: k.id, Algo: algo, PubKey: k.pub}}, httpsig.VerifyProfile{
		SignatureLabel:         label,
		AllowedAlgorithms:      []httpsig.Algorithm{httpsig.Algo_ED25519, httpsig.Algo_RSA_PSS_SHA512},
		DisableTimeEnforcement: true,
	})
	return err
}

// TestInteropHTTPSigVerifier: what the tests' signer produces, and the
// test vectors, verify with httpsig-go too, except the dictionary-member
// component it does not implement (the reason this package has its own
// base builder); should a later httpsig-go handle it, this test says so.
func TestInteropHTTPSigVerifier(t *testing.T) {
	k := newEd25519Key(t)
	for _, c := range []struct {
		components []string
		agent      string
		httpsigOK  bool
	}{
		{[]string{`"@authority"`, `"signature-agent"`}, `sig1="` + testAgent + DirectoryPath + `"`, true},
		{[]string{`"@authority"`, `"@method"`, `"@path"`, `"signature-agent"`}, `sig1="` + testAgent + `"`, true},
		{[]string{`"@target-uri"`, `"signature-agent"`}, `sig1="` + testAgent + `"`, true},
		{[]string{`"@authority"`, `"signature-agent"`}, `"` + testAgent + `"`, true},
		{[]string{`"@authority"`, `"signature-agent"`}, `sig1="` + testAgent + `"`, true},
		{[]string{`"@authority"`, `"signature-agent";key="sig1"`}, `sig1="` + testAgent + `"`, false},
	} {
		r, s := baseRequest(t)
		r.Header.Del("Signature-Agent")
		if c.agent != "" {
			r.Header.Set("Signature-Agent", c.agent)
		}
		s.components = c.components
		signRequest(t, r, k, s)
		v := &Verifier{Keys: newKeyMap().add(testAgent, k).resolve, Now: func() time.Time { return testNow }}
		if _, err := v.Verify(context.Background(), r, testAuthority); err != nil {
			t.Fatalf("%v: Verify: %v", c.components, err)
		}
		if err := httpsigVerify(r, "sig1", k); (err == nil) != c.httpsigOK {
			t.Fatalf("%v: httpsig-go: %v, expected ok=%v", c.components, err, c.httpsigOK)
		}
	}

	for _, file := range []string{"web_bot_auth_architecture_v1.json", "web_bot_auth_architecture_v2.json"} {
		var vs []requestVector
		readJSON(t, file, &vs)
		for _, v := range vs {
			err := httpsigVerify(vectorRequest(t, v), v.Label, privateJWK(t, v.Key))
			if keyed := v.SignatureAgentKey != ""; (err == nil) == keyed {
				t.Fatalf("%s %s: httpsig-go: %v", file, v.Label, err)
			}
		}
	}
}
