package cards_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"sort"
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/publish/cards"
	"github.com/gowebpki/jcs"
)

// verifyCard verifies a served v1.0 card's signatures as A2A 1.0 8.4.3
// says, from the card's bytes alone: each signature's protected header
// names alg ES256, typ JOSE and the key's kid (8.4.2); the payload is the
// RFC 8785 form of the card without signatures (8.4.1); the JWS signing
// input is BASE64URL(protected) "." BASE64URL(payload) (RFC 7515 5.2), and
// the ES256 signature R || S (RFC 7518 3.4). Step 3, removing members with
// default values, is left out: a rendered card has none (see
// TestA2ACardDefaults), so a card that had some would fail here.
func verifyCard(card []byte, pub *ecdsa.PublicKey, kid string) error {
	var doc map[string]any
	if err := json.Unmarshal(card, &doc); err != nil {
		return err
	}
	var sigs []struct{ Protected, Signature string }
	raw, _ := json.Marshal(doc["signatures"])
	if err := json.Unmarshal(raw, &sigs); err != nil || len(sigs) == 0 {
		return fmt.Errorf("no signatures: %v", err)
	}
	delete(doc, "signatures")
	unsigned, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	payload, err := jcs.Transform(unsigned)
	if err != nil {
		return err
	}
	for _, s := range sigs {
		h, err := base64.RawURLEncoding.DecodeString(s.Protected)
		if err != nil {
			return err
		}
		var hdr map[string]any
		if err := json.Unmarshal(h, &hdr); err != nil {
			return err
		}
		if hdr["alg"] != "ES256" || hdr["typ"] != "JOSE" || hdr["kid"] != kid || len(hdr) != 3 {
			return fmt.Errorf("protected header %s", h)
		}
		sig, err := base64.RawURLEncoding.DecodeString(s.Signature)
		if err != nil || len(sig) != 64 {
			return fmt.Errorf("signature of %d bytes: %v", len(sig), err)
		}
		sum := sha256.Sum256([]byte(s.Protected + "." + base64.RawURLEncoding.EncodeToString(payload)))
		if !ecdsa.Verify(pub, sum[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
			return errors.New("the signature does not verify")
		}
	}
	return nil
}

// TestA2ACardSigned: a signed card verifies with the key's public half,
// and not once anything in it changes or with another key.
func TestA2ACardSigned(t *testing.T) {
	key := testKey(t)
	for _, c := range a2aCases(t) {
		if c.opts.Key == nil {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			b := render(t, c)
			if err := verifyCard(b, &key.PublicKey, testKID); err != nil {
				t.Fatalf("%v\n%s", err, b)
			}
			for _, tamper := range [][2]string{
				{`"description": "`, `"description": "X`},
				{`"protocolVersion": "1.0"`, `"protocolVersion": "0.3"`},
				{`"capabilities": {`, `"capabilities": {"extendedAgentCard": true,`},
			} {
				changed := strings.Replace(string(b), tamper[0], tamper[1], 1)
				if changed == string(b) {
					t.Fatalf("%q not in the card", tamper[0])
				}
				if verifyCard([]byte(changed), &key.PublicKey, testKID) == nil {
					t.Errorf("verifies after %q became %q", tamper[0], tamper[1])
				}
			}
			other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
			if verifyCard(b, &other.PublicKey, testKID) == nil {
				t.Error("verifies with another key")
			}
		})
	}
	site := openSite()
	p384, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	if _, err := cards.A2ACardWith(&site, cards.A2AOptions{Key: p384, KeyID: "k"}); err == nil {
		t.Error("a P-384 key signs (ES256 is P-256)")
	}
	if _, err := cards.A2ACardWith(&site, cards.A2AOptions{Key: key}); err == nil {
		t.Error("a key without a kid signs (8.4.2: kid is required)")
	}
}

// TestA2ACardDefaults: A2A 1.0 8.4.1 rule 1 holds for the card as served,
// so that it is its own signing input: a member with its type's default
// value ("", 0, false, [], {}) is there only where the rules keep it.
func TestA2ACardDefaults(t *testing.T) {
	var doc any
	if err := json.Unmarshal(render(t, a2aCases(t)[4]), &doc); err != nil {
		t.Fatal(err)
	}
	var got []string
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			if len(v) == 0 {
				got = append(got, path)
			}
			for k, x := range v {
				walk(path+"."+k, x)
			}
		case []any:
			if len(v) == 0 {
				got = append(got, path)
			}
			for i, x := range v {
				walk(fmt.Sprintf("%s[%d]", path, i), x)
			}
		case string, bool, float64:
			if v == "" || v == false || v == 0.0 {
				got = append(got, path)
			}
		}
	}
	walk("", doc)
	sort.Strings(got)
	// Each is a map value or a list element, which ProtoJSON always
	// writes, not a field: a requirement's StringList without scopes, a
	// requirement without schemes (a skill open to anyone), a scope
	// without a description.
	want := []string{
		".securityRequirements[0].schemes.bearer", ".securityRequirements[1].schemes.apiKey",
		".securityRequirements[3].schemes.hmac", ".securityRequirements[4]",
		".securitySchemes.oauth2.oauth2SecurityScheme.flows.clientCredentials.scopes.bookings.read",
		".securitySchemes.oauth2.oauth2SecurityScheme.flows.clientCredentials.scopes.bookings.write",
		".securitySchemes.oauth2.oauth2SecurityScheme.flows.clientCredentials.scopes.refunds",
		".skills[0].securityRequirements[0]", ".skills[1].securityRequirements[0].schemes.bearer",
		".skills[2].securityRequirements[0].schemes.apiKey", ".skills[5].securityRequirements[0].schemes.hmac",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("members with default values:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
