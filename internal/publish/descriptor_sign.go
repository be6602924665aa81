package publish

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/webbotauth"
)

// descriptorJWKS returns the JWK Set of key's public half and its key id,
// the RFC 7638 thumbprint.
func descriptorJWKS(key *ecdsa.PrivateKey) ([]byte, string, error) {
	if key.Curve != elliptic.P256() {
		return nil, "", errors.New("the descriptor signing key must be P-256 (ecdsa-p256-sha256, agent-uri-03 10.3)")
	}
	pt, err := key.PublicKey.Bytes() // 0x04 || X || Y
	if err != nil {
		return nil, "", err
	}
	x := base64.RawURLEncoding.EncodeToString(pt[1:33])
	y := base64.RawURLEncoding.EncodeToString(pt[33:65])
	kid, err := webbotauth.Thumbprint(&key.PublicKey) // RFC 7638
	if err != nil {
		return nil, "", err
	}
	return []byte(`{"keys":[{"kty":"EC","crv":"P-256","x":"` + x + `","y":"` + y + `","kid":"` + kid + `","alg":"ES256","use":"sig"}]}`), kid, nil
}

// withJWKS returns a with the JWK Set in its authentication object (the
// inline jwks of agent-uri-03 10.1, where 10.3 has verifiers find the key)
// and, unless set, conformance level 3.
func withJWKS(a config.HostedAgent, jwks []byte) config.HostedAgent {
	auth := config.AgentAuthentication{}
	if a.Authentication != nil {
		auth = *a.Authentication
	}
	auth.JWKS = jwks
	a.Authentication = &auth
	if a.ConformanceLevel == nil {
		a.ConformanceLevel = new(3)
	}
	return a
}

// signDescriptor adds to h the Content-Digest of body (RFC 9530) and an
// HTTP Message Signature of the response (RFC 9421) over @status (200),
// content-type and content-digest, by key with ecdsa-p256-sha256 (3.3.4:
// r and s, 32 bytes each), created at lm: agent-uri-03 10.3. The response
// is the same for every request, so it is signed once.
func signDescriptor(h http.Header, body []byte, ctype string, key *ecdsa.PrivateKey, kid string, lm time.Time) error {
	sum := sha256.Sum256(body)
	digest := "sha-256=:" + base64.StdEncoding.EncodeToString(sum[:]) + ":"
	params := `("@status" "content-type" "content-digest");created=` + strconv.FormatInt(lm.Unix(), 10) +
		`;keyid="` + kid + `";alg="ecdsa-p256-sha256"`
	base := "\"@status\": 200\n" +
		"\"content-type\": " + ctype + "\n" +
		"\"content-digest\": " + digest + "\n" +
		"\"@signature-params\": " + params
	hash := sha256.Sum256([]byte(base))
	r, s, err := ecdsa.Sign(rand.Reader, key, hash[:])
	if err != nil {
		return err
	}
	sig := make([]byte, 64)
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:])
	h["Content-Digest"] = []string{digest}
	h["Signature-Input"] = []string{"sig1=" + params}
	h["Signature"] = []string{"sig1=:" + base64.StdEncoding.EncodeToString(sig) + ":"}
	return nil
}

// deprecationHeader is what a deprecated descriptor's responses carry
// (agent-uri-03 7.1.3): Deprecation (RFC 9745, the date as @seconds),
// Sunset (RFC 8594) and a Link to the successor version; nil otherwise.
func deprecationHeader(a *config.HostedAgent, lm time.Time) http.Header {
	if a.Status != "deprecated" {
		return nil
	}
	at := a.DeprecatedAt
	if at.IsZero() {
		at = lm
	}
	h := http.Header{"Deprecation": {"@" + strconv.FormatInt(at.Unix(), 10)}}
	if !a.Sunset.IsZero() {
		h["Sunset"] = []string{a.Sunset.UTC().Format(http.TimeFormat)}
	}
	if a.Successor != "" {
		h["Link"] = []string{fmt.Sprintf(`<%s>; rel="successor-version"`, a.Successor)}
	}
	return h
}
