package webbotauth

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sfv "github.com/dunglas/httpsfv"
)

// draftVector is one request vector of the draft's appendix E: the
// signature base it prints and the fields it adds.
type draftVector struct {
	section string
	base    string
	fields  map[string]string // Signature-Agent, Signature-Input, Signature
}

// unwrap8792 undoes RFC 8792 section 7's single-backslash line wrapping:
// a line ending in '\' continues on the next, whose leading whitespace is
// dropped.
func unwrap8792(lines []string) []string {
	var out []string
	cont := false
	for _, l := range lines {
		if cont {
			l = strings.TrimLeft(l, " ")
			out[len(out)-1] += strings.TrimSuffix(l, `\`)
		} else {
			out = append(out, strings.TrimSuffix(l, `\`))
		}
		cont = strings.HasSuffix(l, `\`)
	}
	return out
}

// readAppendixE reads testdata/draft01/appendix_e.md: each "###" section
// holds two "~~~" blocks, the signature base and the fields.
func readAppendixE(t *testing.T) []draftVector {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "draft01", "appendix_e.md"))
	if err != nil {
		t.Fatal(err)
	}
	var out []draftVector
	var cur *draftVector
	var block []string
	in := false
	for _, l := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(l, "### "):
			out = append(out, draftVector{section: strings.TrimPrefix(l, "### "), fields: map[string]string{}})
			cur = &out[len(out)-1]
		case l == "~~~" && !in:
			in, block = true, nil
		case l == "~~~":
			in = false
			lines := unwrap8792(block)
			if strings.HasPrefix(lines[0], `"@authority"`) {
				cur.base = strings.Join(lines, "\n")
				continue
			}
			for _, f := range lines {
				name, value, _ := strings.Cut(f, ": ")
				cur.fields[name] = value
			}
		case in && !strings.HasPrefix(l, "NOTE:") && l != "":
			block = append(block, l)
		}
	}
	if len(out) != 4 {
		t.Fatalf("%d vectors in appendix E, want 4", len(out))
	}
	return out
}

// TestDraftAppendixE holds Verify to the request vectors of
// draft-ietf-webbotauth-httpsig-protocol-01 appendix E (E.1.1, E.1.2,
// E.2.1, E.2.2), as the draft prints them: the signature base built here
// is the one printed, each verifies for example.com with the RFC 9421
// B.1.2 and B.1.4 keys, and each is the JSON vector of the same signature.
// E.1.1 and E.2.1 sign under label "sig2" the member keyed "agent2": the
// signature owns the one member it covers (ownAgent), not one named by its
// label.
func TestDraftAppendixE(t *testing.T) {
	var jsonVectors []requestVector
	for _, file := range []string{"web_bot_auth_architecture_v1.json", "web_bot_auth_architecture_v2.json"} {
		var vs []requestVector
		readJSON(t, file, &vs)
		jsonVectors = append(jsonVectors, vs...)
	}
	var ed map[string]string
	b, err := os.ReadFile(filepath.Join("testdata", "rfc9421", "test-key-ed25519.jwk"))
	if err == nil {
		err = json.Unmarshal(b, &ed)
	}
	if err != nil {
		t.Fatal(err)
	}
	edKey, _, err := jwkPublic(ed)
	if err != nil {
		t.Fatal(err)
	}
	rsaKey := privateJWK(t, rsaTestKey())
	for _, v := range readAppendixE(t) {
		t.Run(v.section, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "https://example.com/", nil)
			for name, value := range v.fields {
				r.Header.Set(name, value)
			}
			pub := rsaKey.pub
			if strings.Contains(v.fields["Signature-Input"], `alg="ed25519"`) {
				pub = edKey
			}
			keyID, _ := Thumbprint(pub)
			keys := newKeyMap().add("https://signature-agent.test", testKey{pub: pub, id: keyID})
			now := time.Unix(1735689600, 0).Add(time.Minute)
			ver := &Verifier{Keys: keys.resolve, Now: func() time.Time { return now }, MaxLifetime: 200 * 365 * 24 * time.Hour}
			sig, err := ver.Verify(context.Background(), r, "example.com")
			wantErr(t, err, "ok")
			if sig.Agent != "https://signature-agent.test" || sig.KeyID != keyID || sig.Label != "sig2" {
				t.Fatalf("%+v", sig)
			}
			// The base is the draft's, byte for byte.
			cands, err := selectSignatures(r.Header, tagWebBotAuth, maxCandidates)
			if err != nil {
				t.Fatal(err)
			}
			base, err := signatureBase(cands[0].input, newRequestViewFor(r, "example.com"))
			if err != nil || string(base) != v.base {
				t.Fatalf("base %v:\n%s\nwant\n%s", err, base, v.base)
			}
			// The same signature as a JSON vector.
			found := false
			for _, jv := range jsonVectors {
				found = found || jv.Signature == v.fields["Signature"] && jv.SignatureInput == v.fields["Signature-Input"] &&
					jv.SignatureAgent == v.fields["Signature-Agent"]
			}
			if !found {
				t.Fatal("no JSON vector carries this signature")
			}
			// The member is bound: under another key, or swapped, it fails.
			if strings.Contains(v.fields["Signature-Agent"], "agent2=") {
				r.Header.Set("Signature-Agent", `sig2="https://signature-agent.test"`)
				_, err = ver.Verify(context.Background(), r, "example.com")
				wantErr(t, err, "ErrMalformed")
			}
		})
	}
}

// newRequestViewFor is the request view Verify builds, for an authority.
func newRequestViewFor(r *http.Request, authority string) *messageView {
	v := newRequestView(r, "")
	v.req.authority = authority
	return v
}

// jwkPublic decodes a public JWK the way a directory does.
func jwkPublic(m map[string]string) (any, string, error) {
	body, _ := json.Marshal(map[string]any{"keys": []any{m}})
	keys, err := ParseDirectory(body)
	if err != nil {
		return nil, "", err
	}
	return keys[0].Public, keys[0].ID, nil
}

// TestAppendixEUnwrap checks the RFC 8792 unwrapping the test relies on.
func TestAppendixEUnwrap(t *testing.T) {
	got := unwrap8792([]string{`a=("x")\`, ` ;b=1\`, `  ;c="d"`, `e`})
	if len(got) != 2 || got[0] != `a=("x");b=1;c="d"` || got[1] != "e" {
		t.Fatalf("%q", got)
	}
	if _, err := sfv.UnmarshalDictionary([]string{got[0]}); err != nil {
		t.Fatal(err)
	}
}
