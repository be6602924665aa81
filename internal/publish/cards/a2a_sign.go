package cards

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/asn1"
	"encoding/base64"
	"encoding/json"
	"errors"
	"math/big"

	"github.com/gowebpki/jcs"
)

// agentCardSignature is AgentCardSignature (A2A 1.0 4.4.7, 8.4.2): the
// flattened JWS (RFC 7515 7.2.2) of the card, without its payload, which
// is the card itself. protected and signature are REQUIRED.
type agentCardSignature struct {
	Protected string `json:"protected"`
	Signature string `json:"signature"`
}

// jwsHeader is the protected header 8.4.2 asks for: alg, typ "JOSE" and
// kid. jku is left out (MAY): the site publishes no JWK Set document; the
// key is in every agent:// descriptor's authentication.jwks under the
// same kid (the RFC 7638 thumbprint), or known to the verifier.
type jwsHeader struct {
	Alg string `json:"alg"`
	Typ string `json:"typ"`
	Kid string `json:"kid"`
}

// signA2ACard signs the card as 8.4.2 describes: the payload is the RFC
// 8785 canonical form of the card without signatures (8.4.1 rules 2 and
// 3; rule 1 holds by construction, the card carrying no field the
// declaration gives no value), the algorithm ES256 (RFC 7518 3.4: SHA-256,
// R and S as 32 bytes each). The signature is RFC 6979's deterministic
// one, so the card renders to the same bytes every time and on every
// replica (its ETag with it).
func signA2ACard(c *agentCardV10, key *ecdsa.PrivateKey, kid string) (agentCardSignature, error) {
	if key.Curve != elliptic.P256() {
		return agentCardSignature{}, errors.New("cards: the A2A card signing key must be P-256 (ES256)")
	}
	if kid == "" {
		return agentCardSignature{}, errors.New("cards: the A2A card signing key needs a key id (A2A 1.0 8.4.2: kid)")
	}
	payload, err := canonicalA2ACard(c)
	if err != nil {
		return agentCardSignature{}, err
	}
	h, err := json.Marshal(jwsHeader{Alg: "ES256", Typ: "JOSE", Kid: kid})
	if err != nil {
		return agentCardSignature{}, err
	}
	protected := base64.RawURLEncoding.EncodeToString(h)
	input := protected + "." + base64.RawURLEncoding.EncodeToString(payload)
	sum := sha256.Sum256([]byte(input))
	der, err := key.Sign(nil, sum[:], crypto.SHA256) // nil: RFC 6979
	if err != nil {
		return agentCardSignature{}, err
	}
	var rs struct{ R, S *big.Int }
	if _, err := asn1.Unmarshal(der, &rs); err != nil {
		return agentCardSignature{}, err
	}
	sig := make([]byte, 64)
	rs.R.FillBytes(sig[:32])
	rs.S.FillBytes(sig[32:])
	return agentCardSignature{Protected: protected, Signature: base64.RawURLEncoding.EncodeToString(sig)}, nil
}

// canonicalA2ACard is the signing payload of a card: its RFC 8785 form
// without signatures.
func canonicalA2ACard(c *agentCardV10) ([]byte, error) {
	unsigned := *c
	unsigned.Signatures = nil
	b, err := json.Marshal(&unsigned)
	if err != nil {
		return nil, err
	}
	return jcs.Transform(b)
}
