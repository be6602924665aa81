// Package verify configures how agentready proves an agent's claim to a
// verified-only agent policy (Web Bot Auth signatures by a trusted key
// directory, the operator's published IP ranges, forward-confirmed reverse
// DNS) and how it checks the RFC 9421 request signatures of capabilities
// that declare Auth: hmac:
//
//	m, err := agentready.New(site,
//		agentready.WithVerification(verify.Options{Replays: replays}),
//		agentready.WithRequestSignatures(func(ctx context.Context, keyID string) (verify.RequestKey, error) {
//			return verify.RequestKey{Algorithm: "hmac-sha256", Secret: secrets[keyID]}, nil
//		}))
//
// A request's Identity (in enforce.Decision) says how its claim was proven.
// A claim that fails wraps ErrFailed; one that could not be checked wraps
// ErrUnavailable. Replicas share signature nonces through a ReplayCache
// (redisstore.NewReplayCache).
package verify
