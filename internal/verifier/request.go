package verifier

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/agentready/agentready/verify"

	"github.com/dunglas/httpsfv"
	httpsig "github.com/remitly-oss/httpsig-go"

	"github.com/agentready/agentready/internal/clock"
	"github.com/agentready/agentready/internal/keyesc"
	"github.com/agentready/agentready/internal/webbotauth"
)

// maxLabels bounds the signatures of one request that are tried.
const maxLabels = 4

// RequestSignatures verifies the RFC 9421 signatures of requests to
// capabilities that declare Auth: hmac. A signature must cover "@method",
// "@authority" and "@path" (and "@query" when the request has one, and
// "content-digest" when it has a body, whose RFC 9530 digest is then
// checked), carry created and keyid, be at most MaxAge old, and be made
// for one of the site's authorities. A nonce, when the signature carries
// one, is refused a second time; a signature without one can be replayed
// within MaxAge.
type RequestSignatures struct {
	keys        verify.RequestKeys
	maxAge      time.Duration
	authorities map[string]bool
	replays     verify.ReplayCache
	now         func() time.Time
}

// RequestOptions configures RequestSignatures.
type RequestOptions struct {
	// MaxAge bounds a signature's age. Default 5 minutes.
	MaxAge time.Duration
	// Authorities are the hosts (host[:port]) signatures may be made for:
	// the request's Host must be one of them. Required.
	Authorities []string
	// Replays records nonces. Default: in memory, per process.
	Replays verify.ReplayCache
	// Now is the clock signatures' created and expires are compared with
	// (default time.Now).
	Now func() time.Time
}

// NewRequestSignatures returns a verifier of request signatures by the
// keys keys returns.
func NewRequestSignatures(keys verify.RequestKeys, o RequestOptions) (*RequestSignatures, error) {
	if keys == nil {
		return nil, errors.New("verify: NewRequestSignatures: nil RequestKeys")
	}
	if len(o.Authorities) == 0 {
		return nil, errors.New("verify: NewRequestSignatures: no Authorities: signatures must be made for this site's host")
	}
	authorities, err := authoritySet(o.Authorities)
	if err != nil {
		return nil, err
	}
	s := &RequestSignatures{keys: keys, maxAge: o.MaxAge, authorities: authorities, replays: o.Replays, now: clock.Or(o.Now)}
	if s.maxAge <= 0 {
		s.maxAge = 5 * time.Minute
	}
	if s.replays == nil {
		s.replays = webbotauth.NewMemoryReplays(100000)
	}
	return s, nil
}

// Verify checks r's signature and returns the key id that signed it. With
// record, the signature's nonce is used up (a nonce seen before fails);
// without (Explain), it is checked but not recorded, so the request itself
// can still present it. httpsig-go reads the whole body to check its
// digest, and does not give it back when the read fails: bound and buffer
// the body first if the request may be served anyway (package enforce
// does, with the capability's BodyLimit).
func (s *RequestSignatures) Verify(r *http.Request, record bool) (string, error) {
	// httpsig-go derives @authority from r.Host: a Host that is not this
	// site's would let a signature made for another site verify here.
	if !s.authorities[normalAuthority(r.Host)] {
		return "", fmt.Errorf("HTTP message signature: the request is for %q, which is not this site", r.Host)
	}
	fields := []string{"@method", "@authority", "@path"}
	if r.URL.RawQuery != "" {
		fields = append(fields, "@query")
	}
	if r.ContentLength != 0 && r.Body != nil && r.Body != http.NoBody {
		fields = append(fields, "content-digest")
	}
	// httpsig-go verifies the signature of one label: the request's
	// labels are read from Signature-Input, and the first that verifies
	// wins (at most maxLabels are tried).
	dict, err := httpsfv.UnmarshalDictionary(r.Header.Values("Signature-Input"))
	if err != nil {
		return "", fmt.Errorf("HTTP message signature: Signature-Input: %w", err)
	}
	labels := dict.Names()
	if len(labels) == 0 {
		return "", errors.New("HTTP message signature: no Signature-Input")
	}
	if len(labels) > maxLabels {
		labels = labels[:maxLabels]
	}
	var f *requestKeyFetcher
	var res httpsig.VerifyResult
	now := s.now()
	for _, label := range labels {
		f = &requestKeyFetcher{keys: s.keys}
		res, err = httpsig.Verify(r, f, httpsig.VerifyProfile{
			SignatureLabel:   label,
			RequiredFields:   httpsig.Fields(fields...),
			RequiredMetadata: []httpsig.Metadata{httpsig.MetaCreated, httpsig.MetaKeyID},
			// httpsig-go compares created and expires with time.Now, which
			// no option replaces: checkTiming compares them with s.now.
			DisableTimeEnforcement: true,
		})
		if err == nil {
			err = checkTiming(res, now, s.maxAge)
		}
		if err == nil {
			break
		}
	}
	if err != nil {
		return "", fmt.Errorf("HTTP message signature: %w", err)
	}
	if !res.Verified {
		return "", errors.New("HTTP message signature: not verified")
	}
	// httpsig-go v1.2.2 verifies with the key's algorithm but does not
	// compare the alg parameter with it: a signature that names another
	// algorithm than its key's is refused here.
	if alg, err := res.Alg(); err == nil && alg != "" && alg != string(f.algo) {
		return "", fmt.Errorf("HTTP message signature: alg %q, but key %q is %s", alg, f.keyID, f.algo)
	}
	if nonce, err := res.Nonce(); err == nil && nonce != "" {
		created, _ := res.Created()
		if record {
			seen, err := s.replays.Seen(r.Context(), requestReplayKey(f.keyID, nonce), now, time.Unix(int64(created), 0).Add(s.maxAge+time.Minute))
			if err != nil {
				return "", fmt.Errorf("HTTP message signature: replay cache: %w", err)
			}
			if seen {
				return "", errors.New("HTTP message signature: nonce already used")
			}
		}
	}
	return f.keyID, nil
}

// checkTiming holds a verified signature's created and expires to now as
// httpsig-go v1.2.2 would to time.Now: created at most maxAge ago and at
// most a minute ahead, expires (when present) at most a minute past.
func checkTiming(res httpsig.VerifyResult, now time.Time, maxAge time.Duration) error {
	const skew = time.Minute
	c, err := res.Created()
	if err != nil {
		return fmt.Errorf("created: %w", err)
	}
	created := time.Unix(int64(c), 0)
	if now.Sub(created) > maxAge {
		return fmt.Errorf("created %s is older than %s", created.UTC().Format(time.RFC3339), maxAge)
	}
	if created.Sub(now) > skew {
		return fmt.Errorf("created %s is in the future", created.UTC().Format(time.RFC3339))
	}
	if e, err := res.Expires(); err == nil {
		if expires := time.Unix(int64(e), 0); now.Sub(expires) > skew {
			return fmt.Errorf("expired at %s", expires.UTC().Format(time.RFC3339))
		}
	}
	return nil
}

// requestKeyFetcher adapts RequestKeys to httpsig-go, and remembers the
// key it gave.
type requestKeyFetcher struct {
	keys  verify.RequestKeys
	keyID string
	algo  httpsig.Algorithm
}

func (f *requestKeyFetcher) FetchByKeyID(ctx context.Context, _ http.Header, keyID string) (httpsig.KeySpecer, error) {
	k, err := f.keys(ctx, keyID)
	if err != nil {
		return nil, err
	}
	algo := httpsig.Algorithm(k.Algorithm)
	switch algo {
	case httpsig.Algo_HMAC_SHA256:
		if len(k.Secret) == 0 {
			return nil, fmt.Errorf("key %q: hmac-sha256 without a secret", keyID)
		}
	case httpsig.Algo_ED25519:
		if _, ok := k.Public.(ed25519.PublicKey); !ok {
			return nil, fmt.Errorf("key %q: ed25519 needs an ed25519.PublicKey", keyID)
		}
	case httpsig.Algo_ECDSA_P256_SHA256, httpsig.Algo_ECDSA_P384_SHA384:
		if _, ok := k.Public.(*ecdsa.PublicKey); !ok {
			return nil, fmt.Errorf("key %q: %s needs an *ecdsa.PublicKey", keyID, algo)
		}
	case httpsig.Algo_RSA_PSS_SHA512:
		if _, ok := k.Public.(*rsa.PublicKey); !ok {
			return nil, fmt.Errorf("key %q: rsa-pss-sha512 needs an *rsa.PublicKey", keyID)
		}
	default:
		return nil, fmt.Errorf("key %q: algorithm %q is not supported", keyID, k.Algorithm)
	}
	f.keyID, f.algo = keyID, algo
	return httpsig.KeySpec{KeyID: keyID, Algo: algo, PubKey: k.Public, Secret: k.Secret}, nil
}

func (f *requestKeyFetcher) Fetch(context.Context, http.Header, httpsig.MetadataProvider) (httpsig.KeySpecer, error) {
	return nil, errors.New("the signature has no keyid")
}

// requestReplayKey is the replay-cache key of a nonce under a key id, the
// key id escaped (keyesc) so that no other pair makes the same key: a key
// id "a|b" with nonce "c" and key id "a" with nonce "b|c" are told apart.
func requestReplayKey(keyID, nonce string) string {
	b := keyesc.Append([]byte("hmac|"), keyID)
	return string(append(append(b, '|'), nonce...))
}
