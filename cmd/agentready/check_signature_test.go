package main

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	httpsig "github.com/remitly-oss/httpsig-go"

	"github.com/agentready/agentready"
)

// descriptorPath is where serveSite's site (siteAt) serves its
// descriptor: the default path, named after the site's host.
var descriptorPath = regexp.MustCompile(`^/agents/[^/]+/agent\.json$`)

// serveRewritten serves siteAt through agentready with a descriptor key,
// every descriptor response passed through rewrite, and checks it.
// It returns check's output and the descriptor's path.
func serveRewritten(t *testing.T, key *ecdsa.PrivateKey, want int, rewrite func(h http.Header, body []byte) []byte) (out, doc string) {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	origin := "http://" + srv.Listener.Addr().String()
	serveSite(t, srv, siteAt(origin), agentready.Documents{DescriptorKey: key})
	inner := srv.Config.Handler
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !descriptorPath.MatchString(r.URL.Path) || rewrite == nil {
			inner.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		inner.ServeHTTP(rec, r)
		body := rewrite(rec.Header(), rec.Body.Bytes())
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.Header().Del("Content-Length")
		w.WriteHeader(rec.Code)
		w.Write(body)
	})
	return runCheck(t, want, srv.URL), "/agents/" + strings.ReplaceAll(srv.Listener.Addr().String(), ":", "_") + "/agent.json agent:// "
}

// TestCheckDescriptorSignature: check verifies agentready's own signed
// descriptor with the key it publishes (agent-uri-03 10.3), and fails one
// whose body was changed after signing, one signed by another key than
// the published one, and one whose keyid the descriptor does not hold.
func TestCheckDescriptorSignature(t *testing.T) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	out, doc := serveRewritten(t, key, 0, nil)
	hasLine(t, out, "PASS "+doc+"signed (RFC 9421, label sig1) with the key its authentication.jwks publishes; Content-Digest matches the body")

	out, doc = serveRewritten(t, key, 1, func(_ http.Header, body []byte) []byte {
		return bytes.Replace(body, []byte(`"Shop`), []byte(`"Shoq`), 1)
	})
	hasLine(t, out, "FAIL "+doc+"the signature does not verify with the descriptor's own key")

	// The published body and digest, signed by another key under the
	// published key's keyid.
	out, doc = serveRewritten(t, key, 1, func(h http.Header, body []byte) []byte {
		kid := regexp.MustCompile(`keyid="([^"]+)"`).FindStringSubmatch(h.Get("Signature-Input"))[1]
		res := &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": h.Values("Content-Type"), "Content-Digest": h.Values("Content-Digest")}, Body: io.NopCloser(bytes.NewReader(body))}
		s, err := httpsig.NewSigner(httpsig.SigningProfile{Algorithm: httpsig.Algo_ECDSA_P256_SHA256, Label: "sig1",
			Fields: httpsig.Fields("@status", "content-type", "content-digest"), Metadata: []httpsig.Metadata{httpsig.MetaKeyID, httpsig.MetaCreated}},
			httpsig.SigningKey{Key: other, MetaKeyID: kid})
		if err == nil {
			err = s.SignResponse(res)
		}
		if err != nil {
			t.Error(err) // the handler's goroutine: no Fatal
			return body
		}
		if res.Header.Get("Content-Digest") != h.Get("Content-Digest") {
			t.Errorf("httpsig-go's digest %q, agentready's %q", res.Header.Get("Content-Digest"), h.Get("Content-Digest"))
		}
		h.Set("Signature", res.Header.Get("Signature"))
		h.Set("Signature-Input", res.Header.Get("Signature-Input"))
		return body
	})
	hasLine(t, out, "FAIL "+doc+"the signature does not verify with the descriptor's own key")

	out, doc = serveRewritten(t, key, 1, func(h http.Header, body []byte) []byte {
		h.Set("Signature-Input", regexp.MustCompile(`keyid="[^"]+"`).ReplaceAllString(h.Get("Signature-Input"), `keyid="elsewhere"`))
		return body
	})
	hasLine(t, out, "FAIL "+doc+`signed with keyid "elsewhere", which the descriptor's authentication.jwks does not hold`)

	out, doc = serveRewritten(t, key, 1, func(h http.Header, body []byte) []byte {
		h.Add("Signature-Input", `sig2=("@status");keyid="x"`)
		return body
	})
	hasLine(t, out, "FAIL "+doc+"Signature-Input: 2 signatures, want one")
	if strings.Contains(out, "agent://           signed") {
		t.Errorf("a second signature passes:\n%s", out)
	}
}

// TestDescriptorSignatureHostile: what a hostile or broken server sends
// never panics and never passes: no key, keys check cannot use, a
// Signature-Input that does not parse, a keyid named twice.
func TestDescriptorSignatureHostile(t *testing.T) {
	const ec = `{"kty":"EC","crv":"P-256","kid":"k","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}`
	signed := http.Header{"Content-Type": {"application/agent+json"}, "Content-Digest": {"sha-256=:x:"},
		"Signature": {"sig1=:AAAA:"}, "Signature-Input": {`sig1=("@status" "content-type" "content-digest");keyid="k";alg="ecdsa-p256-sha256"`}}
	for _, c := range []struct {
		name, body string
		h          http.Header
		level      string
		want       string
	}{
		{"no jwks", `{"authentication":{}}`, signed, "fail", "publishes no key"},
		{"jwksUri only", `{"authentication":{"jwksUri":"https://keys.example/jwks"}}`, signed, "warn", "does not fetch"},
		{"oct key", `{"authentication":{"jwks":{"keys":[{"kty":"oct","kid":"k","k":"c2VjcmV0"}]}}}`, signed, "fail", "does not verify"},
		{"kid twice", `{"authentication":{"jwks":{"keys":[` + ec + `,` + ec + `]}}}`, signed, "fail", "does not verify"},
		{"bad input", `{"authentication":{"jwks":{"keys":[` + ec + `]}}}`,
			http.Header{"Signature": {"sig1=:AAAA:"}, "Signature-Input": {"sig1=(((("}}, "fail", "Signature-Input"},
		{"no input", `{"authentication":{"jwks":{"keys":[` + ec + `]}}}`, http.Header{"Signature": {"sig1=:AAAA:"}}, "fail", "0 signatures"},
		{"bad digest", `{"authentication":{"jwks":{"keys":[` + ec + `]}}}`, signed, "fail", "does not verify"},
		{"not JSON", `[`, signed, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			ch := newChecker(mustURL(t, "https://x.example"), http.DefaultClient)
			ch.descriptorSignature("/d", []byte(c.body), c.h)
			if c.level == "" {
				if len(ch.findings) != 0 {
					t.Errorf("findings %+v, want none (the schema check reports it)", ch.findings)
				}
				return
			}
			if len(ch.findings) != 1 || ch.findings[0].Level != c.level || !strings.Contains(ch.findings[0].Message, c.want) {
				t.Errorf("findings %+v, want one %s with %q", ch.findings, c.level, c.want)
			}
		})
	}
}
