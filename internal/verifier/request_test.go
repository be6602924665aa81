package verifier

import (
	"context"
	"errors"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/agentready/agentready/verify"

	httpsig "github.com/remitly-oss/httpsig-go"
)

type failingReplays struct{}

func (failingReplays) Seen(context.Context, string, time.Time, time.Time) (bool, error) {
	return false, errors.New("replay store down")
}

// TestRequestSignaturesReplayStoreFails: a nonce that cannot be recorded
// fails the signature (closed): a replay store that is down never lets
// replays through (found by review: no test held it). Without record
// (Explain) the store is not asked.
func TestRequestSignaturesReplayStoreFails(t *testing.T) {
	secret := []byte("0123456789abcdef0123456789abcdef")
	keys := func(context.Context, string) (verify.RequestKey, error) {
		return verify.RequestKey{Algorithm: "hmac-sha256", Secret: secret}, nil
	}
	s, err := NewRequestSignatures(keys, RequestOptions{Authorities: []string{"site.example"}, Replays: failingReplays{}})
	if err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest("GET", "https://site.example/api/orders", nil)
	if err := httpsig.Sign(r, httpsig.SigningProfile{Algorithm: httpsig.Algo_HMAC_SHA256, Fields: httpsig.Fields("@method", "@authority", "@path"),
		Metadata: []httpsig.Metadata{httpsig.MetaCreated, httpsig.MetaKeyID, httpsig.MetaNonce}},
		httpsig.SigningKey{Secret: secret, MetaKeyID: "k"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Verify(r, false); err != nil {
		t.Errorf("without record: %v", err)
	}
	if _, err := s.Verify(r, true); err == nil {
		t.Error("a nonce the replay store could not record was accepted")
	}
}
