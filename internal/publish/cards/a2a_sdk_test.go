package cards_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gowebpki/jcs"

	"github.com/agentready/agentready/internal/publish/cards"
	"github.com/agentready/agentready/internal/testing/testtools"
)

const sdkDir = "testdata/a2a-js"

func needSDK(t *testing.T) {
	t.Helper()
	testtools.Need(t, testtools.NodePackage(sdkDir, "@a2a-js/sdk"))
}

// sdkResult is what load.mjs reports of one card.
type sdkResult struct {
	Name        string          `json:"name"`
	Error       string          `json:"error"`
	Transport   string          `json:"transport"`
	Endpoint    string          `json:"endpoint"`
	RoundTrip   json.RawMessage `json:"roundTrip"`
	Canonical   string          `json:"canonical"`
	Verified    *bool           `json:"verified"`
	VerifyError string          `json:"verifyError"`
}

// TestA2ACardsLoadInSDK: every card loads in the A2A project's own
// JavaScript SDK (testdata/a2a-js/package-lock.json pins it): a v1.0 card
// in @a2a-js/sdk 1.3.0 with its default options, which fetch it from the
// well-known path, pick the first interface's transport at its url, and
// read every member into the SDK's ProtoJSON model and back unchanged; a
// v0.3 card in @a2a-js/sdk 0.3.14. A signed card's canonical form, by the
// SDK, is the one signed when the card has no empty member; with one, it
// is the form without them (a2aproject/a2a-js#627: the SDK drops empty
// objects, which A2A 1.0 8.4.1 keeps), and the SDK verifies the signature
// exactly when the forms agree.
func TestA2ACardsLoadInSDK(t *testing.T) {
	needSDK(t)
	key := testKey(t)
	pt, err := key.PublicKey.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	jwk := map[string]string{"kty": "EC", "crv": "P-256",
		"x": base64.RawURLEncoding.EncodeToString(pt[1:33]), "y": base64.RawURLEncoding.EncodeToString(pt[33:])}
	type sdkCase struct {
		Name    string            `json:"name"`
		Version string            `json:"version"`
		JWK     map[string]string `json:"jwk,omitempty"`
	}
	bodies := map[string][]byte{}
	var in []sdkCase
	mux := http.NewServeMux()
	for _, c := range a2aCases(t) {
		b := render(t, c)
		bodies[c.name] = b
		sc := sdkCase{Name: c.name, Version: cards.A2AVersion10}
		if c.opts.Version == cards.A2AVersion03 {
			sc.Version = cards.A2AVersion03
		}
		if c.opts.Key != nil {
			sc.JWK = jwk
		}
		in = append(in, sc)
		mux.HandleFunc("/"+c.name+"/.well-known/agent-card.json", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write(b)
		})
	}
	srv := httptest.NewServer(mux)
	defer srv.Close()

	stdin, _ := json.Marshal(in)
	out := filepath.Join(t.TempDir(), "results.json")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "load.mjs", srv.URL, out)
	cmd.Dir, cmd.Stdin = sdkDir, bytes.NewReader(stdin)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("node load.mjs: %v\n%s", err, msg)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var results []sdkResult
	if err := json.Unmarshal(raw, &results); err != nil || len(results) != len(in) {
		t.Fatalf("%d results for %d cards: %v\n%s", len(results), len(in), err, raw)
	}
	verified := 0
	for i, r := range results {
		b := bodies[r.Name]
		t.Run(r.Name, func(t *testing.T) {
			if r.Error != "" {
				t.Fatalf("the SDK does not load the card: %s", r.Error)
			}
			var card struct {
				URL                  string `json:"url"`
				PreferredTransport   string `json:"preferredTransport"`
				AdditionalInterfaces []struct{ URL, Transport string }
				SupportedInterfaces  []struct{ URL, ProtocolBinding string } `json:"supportedInterfaces"`
				Signatures           []map[string]string                     `json:"signatures"`
			}
			if err := json.Unmarshal(b, &card); err != nil {
				t.Fatal(err)
			}
			// Both SDKs pick the binding of the first interface (the
			// preferred transport), but of several interfaces with that
			// binding the last: 1.3.0 keeps the last "1.0" one (8.3.2 has
			// clients prefer earlier entries), 0.3.14 lets an
			// additionalInterfaces entry replace the main url (0.3.0 5.6.3
			// has them use it). Either way, an interface of the card.
			urls := map[string]bool{card.URL: card.URL != ""}
			for _, in := range card.SupportedInterfaces {
				urls[in.URL] = urls[in.URL] || in.ProtocolBinding == card.SupportedInterfaces[0].ProtocolBinding
			}
			for _, in := range card.AdditionalInterfaces {
				urls[in.URL] = urls[in.URL] || in.Transport == card.PreferredTransport
			}
			if !strings.HasSuffix(r.Transport, "JsonRpcTransport") || !urls[r.Endpoint] {
				t.Errorf("the SDK picked %s at %s, not a JSON-RPC interface of the card", r.Transport, r.Endpoint)
			}
			if in[i].Version == cards.A2AVersion03 {
				return
			}
			if !sameJSON(t, r.RoundTrip, b) {
				t.Errorf("the SDK's model of the card differs from it:\n%s", r.RoundTrip)
			}
			ours := canonical(t, b, false)
			theirs := canonical(t, b, true)
			switch {
			case r.Canonical != theirs:
				t.Errorf("the SDK's canonical form\n%s\nis neither\n%s\nnor\n%s", r.Canonical, ours, theirs)
			case r.Verified == nil:
				if card.Signatures != nil {
					t.Error("a signed card was not verified")
				}
			case *r.Verified != (ours == theirs):
				t.Errorf("the SDK verified %v (%s), but the canonical forms agree: %v", *r.Verified, r.VerifyError, ours == theirs)
			case *r.Verified:
				verified++
			}
		})
	}
	if verified == 0 {
		t.Error("the SDK verified no signed card")
	}
}

// canonical is the RFC 8785 form of a card without signatures (A2A 1.0
// 8.4.1), or, with dropEmpty, the form @a2a-js/sdk's canonicalizeAgentCard
// produces (its cleanEmpty removes "", [] and {} members, recursively).
func canonical(t *testing.T, card []byte, dropEmpty bool) string {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(card, &doc); err != nil {
		t.Fatal(err)
	}
	delete(doc, "signatures")
	var v any = doc
	if dropEmpty {
		v = cleanEmpty(v)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	c, err := jcs.Transform(b)
	if err != nil {
		t.Fatal(err)
	}
	return string(c)
}

func cleanEmpty(v any) any {
	switch v := v.(type) {
	case string:
		if v == "" {
			return nil
		}
	case []any:
		var out []any
		for _, x := range v {
			if x = cleanEmpty(x); x != nil {
				out = append(out, x)
			}
		}
		if len(out) == 0 {
			return nil
		}
		return out
	case map[string]any:
		out := map[string]any{}
		for k, x := range v {
			if x = cleanEmpty(x); x != nil {
				out[k] = x
			}
		}
		if len(out) == 0 {
			return nil
		}
		return out
	}
	return v
}

func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	return reflect.DeepEqual(x, y)
}
