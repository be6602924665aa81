package publish

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"strconv"
	"time"

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

// signDescriptor adds to h the Content-Digest of body (RFC 9530 2) and an
// HTTP Message Signature of the response (RFC 9421) over @status (200),
// content-type and content-digest, by key with ecdsa-p256-sha256 (3.3.4:
// r and s, 32 bytes each), created at lm: agent-uri-03 10.3. The response
// is the same for every request, so it is signed once.
func signDescriptor(h http.Header, body []byte, ctype string, key *ecdsa.PrivateKey, kid string, lm time.Time) error {
	return signResponse(h, ctype, key, kid, lm, [][2]string{{"content-digest", digest(body)}})
}

// signDescriptorHead adds to h what a 200 answering HEAD carries in place
// of signDescriptor's fields. Content-Digest is computed on the message
// content (RFC 9530 2), and a HEAD response has none (RFC 9110 9.3.2:
// "the server MUST NOT send content in the response"; 6.4.1), so its
// Content-Digest is the SHA-256 of the empty string, as in RFC 9530's
// Appendix B.2, where a HEAD response carries it beside the Repr-Digest of
// the representation a GET would send. Both are added and the signature
// covers both: the empty Content-Digest, signed, tells the recipient that
// nothing was meant to be sent (RFC 9530 6.3), and Repr-Digest keeps the
// response saying which descriptor it describes (RFC 9421 7.2.8 covers
// content through these fields).
func signDescriptorHead(h http.Header, body []byte, ctype string, key *ecdsa.PrivateKey, kid string, lm time.Time) error {
	return signResponse(h, ctype, key, kid, lm, [][2]string{{"content-digest", digest(nil)}, {"repr-digest", digest(body)}})
}

// digest is the RFC 9530 Integrity field value of b with SHA-256, a
// Dictionary of one Byte Sequence (RFC 9530 2, 3; RFC 8941 3.3.5).
func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha-256=:" + base64.StdEncoding.EncodeToString(sum[:]) + ":"
}

// signResponse sets fields (lower-case names and values) in h and signs a
// 200 response over @status, content-type and those fields, in that
// order: it sets Signature-Input and Signature with the label sig1.
func signResponse(h http.Header, ctype string, key *ecdsa.PrivateKey, kid string, lm time.Time, fields [][2]string) error {
	components := `"@status" "content-type"`
	base := "\"@status\": 200\n\"content-type\": " + ctype + "\n"
	for _, f := range fields {
		components += ` "` + f[0] + `"`
		base += `"` + f[0] + `": ` + f[1] + "\n"
	}
	params := "(" + components + ");created=" + strconv.FormatInt(lm.Unix(), 10) +
		`;keyid="` + kid + `";alg="ecdsa-p256-sha256"`
	base += "\"@signature-params\": " + params
	hash := sha256.Sum256([]byte(base))
	r, s, err := ecdsa.Sign(rand.Reader, key, hash[:])
	if err != nil {
		return err
	}
	sig := make([]byte, 64)
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:])
	for _, f := range fields {
		h[http.CanonicalHeaderKey(f[0])] = []string{f[1]}
	}
	h["Signature-Input"] = []string{"sig1=" + params}
	h["Signature"] = []string{"sig1=:" + base64.StdEncoding.EncodeToString(sig) + ":"}
	return nil
}
