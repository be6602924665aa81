package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/dunglas/httpsfv"
	"github.com/go-jose/go-jose/v4"
	httpsig "github.com/remitly-oss/httpsig-go"
)

// descriptorSignature checks an agent:// descriptor's signature
// (agent-uri-03 10.3): an RFC 9421 signature of the response covering at
// least @status, content-type and content-digest, the Content-Digest
// (RFC 9530) the body's, verified with the key of its keyid in the
// descriptor's inline authentication.jwks. httpsig-go, which verifies
// request signatures for agentready (internal/verifier), verifies it and
// the digest. A key published only by jwksUri or the authorization
// server's metadata is not fetched: check says so.
func (c *checker) descriptorSignature(path string, body []byte, h http.Header) {
	const spec = "agent://"
	if h.Get("Signature") == "" {
		c.add(path, spec, "warn", "unsigned (agent-uri-03 10.3: descriptors SHOULD be signed)")
		return
	}
	var desc struct {
		Authentication struct {
			JWKS    *jose.JSONWebKeySet `json:"jwks"`
			JWKSURI string              `json:"jwksUri"`
		} `json:"authentication"`
	}
	if err := json.Unmarshal(body, &desc); err != nil {
		return // the schema check reported it
	}
	jwks := desc.Authentication.JWKS
	if jwks == nil || len(jwks.Keys) == 0 {
		if desc.Authentication.JWKSURI != "" {
			c.add(path, spec, "warn", "signed; the key is published at authentication.jwksUri %q, which check does not fetch: the signature is not verified", desc.Authentication.JWKSURI)
			return
		}
		c.add(path, spec, "fail", "signed, but the descriptor publishes no key in authentication.jwks to verify it with (agent-uri-03 10.3)")
		return
	}
	label, err := signatureLabel(h)
	if err != nil {
		c.add(path, spec, "fail", "Signature-Input: %v (RFC 9421 4.1)", oneLine(err))
		return
	}
	res := &http.Response{StatusCode: http.StatusOK, Header: h.Clone(), Body: io.NopCloser(bytes.NewReader(body))}
	keys := &jwksKeys{set: jwks}
	_, err = httpsig.VerifyResponse(res, keys, httpsig.VerifyProfile{
		SignatureLabel: label,
		RequiredFields: httpsig.Fields("@status", "content-type", "content-digest"),
		// created is when the descriptor last changed (agentready signs
		// with Last-Modified): its age says nothing of a forgery.
		DisableTimeEnforcement: true,
	})
	switch {
	case keys.missing != "":
		c.add(path, spec, "fail", "signed with keyid %q, which the descriptor's authentication.jwks does not hold (agent-uri-03 10.3)", keys.missing)
	case err != nil:
		c.add(path, spec, "fail", "the signature does not verify with the descriptor's own key (agent-uri-03 10.3, RFC 9421 3.2, RFC 9530): %v", oneLine(err))
	default:
		c.add(path, spec, "pass", "signed (RFC 9421, label %s) with the key its authentication.jwks publishes; Content-Digest matches the body", label)
	}
}

// signatureLabel is the label of the response's one signature: RFC 9421
// 4.1 lets a message carry several, and agent-uri-03 10.3 asks for one.
func signatureLabel(h http.Header) (string, error) {
	d, err := httpsfv.UnmarshalDictionary(h.Values("Signature-Input"))
	if err != nil {
		return "", err
	}
	names := d.Names()
	if len(names) != 1 {
		return "", fmt.Errorf("%d signatures, want one", len(names))
	}
	return names[0], nil
}

// jwksKeys gives httpsig-go the key of a keyid from the descriptor's JWK
// Set; missing is a keyid the set does not hold.
type jwksKeys struct {
	set     *jose.JSONWebKeySet
	missing string
}

func (k *jwksKeys) FetchByKeyID(_ context.Context, _ http.Header, kid string) (httpsig.KeySpecer, error) {
	found := k.set.Key(kid)
	if len(found) == 0 {
		k.missing = kid
		return nil, fmt.Errorf("keyid %q: not in authentication.jwks", kid)
	}
	if len(found) > 1 {
		return nil, fmt.Errorf("keyid %q: %d keys in authentication.jwks, which names a key once (RFC 7517 4.5)", kid, len(found))
	}
	switch pub := found[0].Key.(type) {
	case *ecdsa.PublicKey:
		if pub.Curve == elliptic.P256() {
			return httpsig.KeySpec{KeyID: kid, Algo: httpsig.Algo_ECDSA_P256_SHA256, PubKey: pub}, nil
		}
		if pub.Curve == elliptic.P384() {
			return httpsig.KeySpec{KeyID: kid, Algo: httpsig.Algo_ECDSA_P384_SHA384, PubKey: pub}, nil
		}
	case ed25519.PublicKey:
		return httpsig.KeySpec{KeyID: kid, Algo: httpsig.Algo_ED25519, PubKey: pub}, nil
	}
	return nil, fmt.Errorf("keyid %q: not a P-256, P-384 or Ed25519 public key", kid)
}

func (k *jwksKeys) Fetch(context.Context, http.Header, httpsig.MetadataProvider) (httpsig.KeySpecer, error) {
	return nil, errors.New("the signature names no keyid")
}
