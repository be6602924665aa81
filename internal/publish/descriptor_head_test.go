package publish_test

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	httpsig "github.com/remitly-oss/httpsig-go"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/publish"
	"github.com/agentready/agentready/internal/testing/fixtures"
)

// emptyContentDigest is the Content-Digest of no content, as RFC 9530's
// Appendix B.2 shows it on a response to HEAD.
const emptyContentDigest = "sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:"

// TestSignedDescriptorHead: a 200 answering HEAD carries the Content-Digest
// of its content, which is empty (RFC 9530 2; RFC 9110 9.3.2), the
// Repr-Digest of the descriptor a GET returns, and a signature over both
// that an independent verifier (httpsig-go, which checks Content-Digest
// against the content it receives) accepts. The GET response keeps its own
// signature, and neither verifies in the other's place.
func TestSignedDescriptorHead(t *testing.T) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	fx := fixtures.Planner()
	fx.HostedAgents[0].Status = "deprecated"
	docs, err := publish.Render(&fx, publish.Options{Formats: config.Formats{AgentsJSON: config.AgentsJSONRegistry}, DescriptorKey: key,
		LastModified: time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	h, err := publish.NewHandler(docs)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	n := 0
	for _, d := range docs {
		if len(d.Profiles) == 0 {
			continue
		}
		n++
		head, err := http.Head(srv.URL + d.Paths[0])
		if err != nil {
			t.Fatal(err)
		}
		head.Body.Close()
		sum := sha256.Sum256(d.Body)
		repr := "sha-256=:" + base64.StdEncoding.EncodeToString(sum[:]) + ":"
		if head.StatusCode != 200 || head.Header.Get("Content-Digest") != emptyContentDigest || head.Header.Get("Repr-Digest") != repr {
			t.Errorf("%s: HEAD %d, Content-Digest %q, Repr-Digest %q (want %q)", d.Name, head.StatusCode,
				head.Header.Get("Content-Digest"), head.Header.Get("Repr-Digest"), repr)
		}
		if d.Name == "descriptor "+fx.HostedAgents[0].Name && head.Header.Get("Deprecation") == "" {
			t.Errorf("%s: HEAD lost the deprecated descriptor's Deprecation field", d.Name)
		}
		profile := httpsig.VerifyProfile{SignatureLabel: "sig1", DisableTimeEnforcement: true,
			RequiredFields: httpsig.Fields("@status", "content-type", "content-digest", "repr-digest")}
		if _, err := httpsig.VerifyResponse(head, ecKeys{&key.PublicKey}, profile); err != nil {
			t.Errorf("%s: the HEAD signature does not verify: %v", d.Name, err)
		}

		get, err := http.Get(srv.URL + d.Paths[0])
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(get.Body)
		get.Body.Close()
		if get.Header.Get("Content-Digest") != repr || get.Header.Get("Repr-Digest") != "" || get.Header.Get("Signature") == head.Header.Get("Signature") {
			t.Errorf("%s: GET Content-Digest %q, Repr-Digest %q", d.Name, get.Header.Get("Content-Digest"), get.Header.Get("Repr-Digest"))
		}
		// The HEAD signature on the GET response, and the GET signature on
		// the HEAD response, are refused: each covers its own digest.
		swapped := &http.Response{StatusCode: 200, Header: get.Header.Clone(), Body: io.NopCloser(bytes.NewReader(body))}
		for _, k := range []string{"Signature", "Signature-Input", "Repr-Digest", "Content-Digest"} {
			swapped.Header[k] = head.Header[k]
		}
		if _, err := httpsig.VerifyResponse(swapped, ecKeys{&key.PublicKey}, httpsig.VerifyProfile{SignatureLabel: "sig1", DisableTimeEnforcement: true}); err == nil {
			t.Errorf("%s: the HEAD fields verify on a response with content", d.Name)
		}
		swapped = &http.Response{StatusCode: 200, Header: head.Header.Clone(), Body: http.NoBody}
		for _, k := range []string{"Signature", "Signature-Input", "Content-Digest"} {
			swapped.Header[k] = get.Header[k]
		}
		delete(swapped.Header, "Repr-Digest")
		if _, err := httpsig.VerifyResponse(swapped, ecKeys{&key.PublicKey}, httpsig.VerifyProfile{SignatureLabel: "sig1", DisableTimeEnforcement: true}); err == nil {
			t.Errorf("%s: the GET fields verify on a response without content", d.Name)
		}
	}
	if n == 0 {
		t.Fatal("no descriptor rendered")
	}
}

// TestUnsignedDescriptorHead: without a key, HEAD and GET carry no digest.
func TestUnsignedDescriptorHead(t *testing.T) {
	fx := fixtures.Planner()
	docs, err := publish.Render(&fx, publish.Options{Formats: config.Formats{AgentsJSON: config.AgentsJSONRegistry}})
	if err != nil {
		t.Fatal(err)
	}
	h, _ := publish.NewHandler(docs)
	for _, d := range docs {
		if len(d.Profiles) == 0 {
			continue
		}
		for _, m := range []string{"GET", "HEAD"} {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest(m, d.Paths[0], nil))
			if w.Code != 200 || w.Header().Get("Content-Digest") != "" || w.Header().Get("Signature") != "" {
				t.Errorf("%s %s: %d %v", m, d.Name, w.Code, w.Header())
			}
		}
	}
}
