package publish_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"strings"
	"testing"

	"github.com/gowebpki/jcs"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/publish"
	"github.com/agentready/agentready/internal/testing/fixtures"
	"github.com/agentready/agentready/internal/testing/schematest"
)

// a2aSite is Appendix A's site with an A2A capability.
func a2aSite() config.Site {
	s := fixtures.OutdoorSupply()
	s.Capabilities = append(s.Capabilities, config.Capability{ID: "trip-planner", Description: "Plans trips with an agent",
		Endpoint: "https://outdoorsupply.example/a2a", Protocol: config.ProtocolA2A, Method: "POST",
		Auth: config.Auth{Type: config.AuthBearerToken, TokenEndpoint: "https://outdoorsupply.example/auth/token"}})
	return s
}

// agentCard is the document Render serves at /.well-known/agent-card.json.
func agentCard(t *testing.T, docs []publish.Document) []byte {
	t.Helper()
	for _, d := range docs {
		for _, p := range d.Paths {
			if p == "/.well-known/agent-card.json" {
				return d.Body
			}
		}
	}
	t.Fatal("no document at /.well-known/agent-card.json")
	return nil
}

// TestA2ACardPublished: the well-known agent card is A2A v1.0's by
// default and v0.3.0's with A2AVersion "0.3"; with DescriptorKey the v1.0
// card is signed (A2A 1.0 8.4) under the kid of the JWK the descriptors
// publish, and that JWK verifies it.
func TestA2ACardPublished(t *testing.T) {
	site := a2aSite()
	docs, err := publish.Render(&site, publish.Options{})
	if err != nil {
		t.Fatal(err)
	}
	v10 := agentCard(t, docs)
	schematest.Validate(t, "a2a_v1.0.1_a2a.json#/definitions/Agent%20Card", v10)
	if strings.Contains(string(v10), `"signatures"`) {
		t.Errorf("signed without a key: %s", v10)
	}
	docs, err = publish.Render(&site, publish.Options{A2AVersion: "0.3"})
	if err != nil {
		t.Fatal(err)
	}
	schematest.Validate(t, "a2a_v0.3.0_a2a.json#/definitions/AgentCard", agentCard(t, docs))
	if _, err := publish.Render(&site, publish.Options{A2AVersion: "0.2"}); err == nil {
		t.Error("A2AVersion 0.2 renders")
	}

	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	docs, err = publish.Render(&site, publish.Options{DescriptorKey: key})
	if err != nil {
		t.Fatal(err)
	}
	signed := agentCard(t, docs)
	schematest.Validate(t, "a2a_v1.0.1_a2a.json#/definitions/Agent%20Card", signed)
	var jwk struct{ Kid, X, Y string }
	for _, d := range docs {
		if strings.HasPrefix(d.Name, "descriptor ") {
			var desc struct {
				Authentication struct {
					JWKS struct{ Keys []struct{ Kid, X, Y string } } `json:"jwks"`
				} `json:"authentication"`
			}
			if err := json.Unmarshal(d.Body, &desc); err != nil || len(desc.Authentication.JWKS.Keys) != 1 {
				t.Fatalf("%s: %s", d.Name, d.Body)
			}
			jwk = desc.Authentication.JWKS.Keys[0]
		}
	}
	if jwk.Kid == "" {
		t.Fatal("no descriptor publishes the key")
	}
	x, _ := base64.RawURLEncoding.DecodeString(jwk.X)
	y, _ := base64.RawURLEncoding.DecodeString(jwk.Y)
	pub := &ecdsa.PublicKey{Curve: elliptic.P256(), X: new(big.Int).SetBytes(x), Y: new(big.Int).SetBytes(y)}

	// 8.4.3: the payload is the RFC 8785 card without signatures; the JWS
	// signing input BASE64URL(protected) "." BASE64URL(payload).
	var card map[string]any
	if err := json.Unmarshal(signed, &card); err != nil {
		t.Fatal(err)
	}
	sigs, _ := card["signatures"].([]any)
	if len(sigs) != 1 {
		t.Fatalf("signatures: %v", card["signatures"])
	}
	sig := sigs[0].(map[string]any)
	delete(card, "signatures")
	unsigned, _ := json.Marshal(card)
	payload, err := jcs.Transform(unsigned)
	if err != nil {
		t.Fatal(err)
	}
	hdr, _ := base64.RawURLEncoding.DecodeString(sig["protected"].(string))
	var h struct{ Alg, Typ, Kid string }
	if err := json.Unmarshal(hdr, &h); err != nil || h.Alg != "ES256" || h.Typ != "JOSE" || h.Kid != jwk.Kid {
		t.Errorf("protected header %s, want ES256, JOSE and the descriptors' kid %s", hdr, jwk.Kid)
	}
	rs, _ := base64.RawURLEncoding.DecodeString(sig["signature"].(string))
	sum := sha256.Sum256([]byte(sig["protected"].(string) + "." + base64.RawURLEncoding.EncodeToString(payload)))
	if len(rs) != 64 || !ecdsa.Verify(pub, sum[:], new(big.Int).SetBytes(rs[:32]), new(big.Int).SetBytes(rs[32:])) {
		t.Error("the descriptors' key does not verify the card's signature")
	}
}
