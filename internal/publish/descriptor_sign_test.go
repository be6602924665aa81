package publish_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	httpsig "github.com/remitly-oss/httpsig-go"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/publish"
	"github.com/agentready/agentready/internal/testing/fixtures"
	"github.com/agentready/agentready/internal/testing/schematest"
)

// ecKeys resolves the one key of a test to httpsig-go.
type ecKeys struct{ pub *ecdsa.PublicKey }

func (k ecKeys) FetchByKeyID(context.Context, http.Header, string) (httpsig.KeySpecer, error) {
	return httpsig.KeySpec{Algo: httpsig.Algo_ECDSA_P256_SHA256, PubKey: k.pub}, nil
}

func (k ecKeys) Fetch(context.Context, http.Header, httpsig.MetadataProvider) (httpsig.KeySpecer, error) {
	return nil, errors.New("no keyid")
}

// TestSignedDescriptor: with a key, every descriptor response carries a
// Content-Digest and an RFC 9421 signature over @status, content-type and
// content-digest that an independent implementation (httpsig-go) verifies
// with the key the descriptor publishes in its jwks; the descriptor is
// conformance level 3 and still valid against its schema.
func TestSignedDescriptor(t *testing.T) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	fx := fixtures.Planner()
	docs, err := publish.Render(&fx, publish.Options{Formats: config.Formats{AgentsJSON: config.AgentsJSONRegistry}, DescriptorKey: key})
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
		schematest.Validate(t, "agent-uri_agent-descriptor.schema.json", d.Body)
		var desc struct {
			ConformanceLevel int `json:"conformanceLevel"`
			Authentication   struct {
				JWKS struct {
					Keys []struct{ Kty, Crv, Kid string }
				} `json:"jwks"`
			} `json:"authentication"`
		}
		if err := json.Unmarshal(d.Body, &desc); err != nil || desc.ConformanceLevel != 3 || len(desc.Authentication.JWKS.Keys) != 1 ||
			desc.Authentication.JWKS.Keys[0].Crv != "P-256" {
			t.Errorf("%s: %s (%v)", d.Name, d.Body, err)
		}
		res, err := http.Get(srv.URL + d.Paths[0])
		if err != nil {
			t.Fatal(err)
		}
		_, err = httpsig.VerifyResponse(res, ecKeys{&key.PublicKey}, httpsig.VerifyProfile{
			SignatureLabel:         "sig1",
			RequiredFields:         httpsig.Fields("@status", "content-type", "content-digest"),
			DisableTimeEnforcement: true,
		})
		res.Body.Close()
		if err != nil {
			t.Errorf("%s: the signature does not verify: %v", d.Name, err)
		}
		if kid := desc.Authentication.JWKS.Keys[0].Kid; kid == "" || !strings.Contains(res.Header.Get("Signature-Input"), `keyid="`+kid+`"`) {
			t.Errorf("%s: the signature's keyid is not the published key's %q: %s", d.Name, kid, res.Header.Get("Signature-Input"))
		}
		// Another key does not verify it.
		other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		res, _ = http.Get(srv.URL + d.Paths[0])
		if _, err := httpsig.VerifyResponse(res, ecKeys{&other.PublicKey}, httpsig.VerifyProfile{SignatureLabel: "sig1", DisableTimeEnforcement: true}); err == nil {
			t.Errorf("%s: verified with another key", d.Name)
		}
		res.Body.Close()
	}
	if n == 0 {
		t.Fatal("no descriptor rendered")
	}
	p384, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	if _, err := publish.Render(&fx, publish.Options{DescriptorKey: p384}); err == nil {
		t.Error("a P-384 key was accepted")
	}
}

// TestDeprecatedDescriptor: a deprecated descriptor's responses carry
// Deprecation, Sunset and a successor Link.
func TestDeprecatedDescriptor(t *testing.T) {
	fx := fixtures.Planner()
	sunset := time.Date(2027, 6, 1, 0, 0, 0, 0, time.UTC)
	fx.HostedAgents[0].Status = "deprecated"
	fx.HostedAgents[0].DeprecatedAt = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	fx.HostedAgents[0].Sunset = sunset
	fx.HostedAgents[0].Successor = "https://planner.example.com/v4/agent.json"
	docs, err := publish.Render(&fx, publish.Options{Formats: config.Formats{AgentsJSON: config.AgentsJSONRegistry}})
	if err != nil {
		t.Fatal(err)
	}
	h, _ := publish.NewHandler(docs)
	for _, d := range docs {
		if len(d.Profiles) == 0 {
			continue
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", d.Paths[0], nil))
		if w.Code != 200 || w.Header().Get("Deprecation") != "@"+strconv.FormatInt(fx.HostedAgents[0].DeprecatedAt.Unix(), 10) || w.Header().Get("Sunset") != "Tue, 01 Jun 2027 00:00:00 GMT" ||
			w.Header().Get("Link") != `<https://planner.example.com/v4/agent.json>; rel="successor-version"` {
			t.Errorf("%s: %d %v", d.Name, w.Code, w.Header())
		}
		return
	}
	t.Fatal("no descriptor")
}
