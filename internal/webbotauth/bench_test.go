package webbotauth

import (
	"context"
	"crypto/ed25519"
	"log/slog"
	"net/http"
	"testing"
	"time"
)

// BenchmarkVerifyEd25519 is the whole of Verify for a typical Web Bot Auth
// request (@authority and the Signature-Agent member covered, a nonce, no
// replay cache so that one request can be verified repeatedly), its key
// served from the warm cache of a Directories.
func BenchmarkVerifyEd25519(b *testing.B) {
	v, d, r, _, _ := signedBenchRequest(b)
	ctx := context.Background()
	if _, err := v.Verify(ctx, r, testAuthority); err != nil { // fetches the directory
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := v.Verify(ctx, r, testAuthority); err != nil {
			b.Fatal(err)
		}
	}
	if d.hits.Load() != 1 {
		b.Fatalf("%d directory fetches", d.hits.Load())
	}
}

// BenchmarkEd25519Verify is the bare signature check on a signature base of
// the same shape, the floor of BenchmarkVerifyEd25519.
func BenchmarkEd25519Verify(b *testing.B) {
	k := newEd25519Key(b)
	r, s := baseRequest(b)
	r.Header.Set("Signature-Agent", `sig1="http://127.0.0.1:12345"`)
	s.agentValue = `"http://127.0.0.1:12345"`
	base := []byte(s.base(b, r, k))
	sig := k.sign(b, string(base))
	pub := k.pub.(ed25519.PublicKey)
	b.ReportAllocs()
	for b.Loop() {
		if !ed25519.Verify(pub, base, sig) {
			b.Fatal("does not verify")
		}
	}
}

// BenchmarkVerifyOverEd25519 interleaves Verify (as BenchmarkVerifyEd25519)
// and the bare ed25519.Verify of its signature base, request by request,
// so that the load of a shared machine falls on both alike, and reports
// their ratio (the budget is 1.3):
//
//	go test ./internal/webbotauth -run '^$' -bench VerifyOverEd25519 -benchtime 5000x -count 5
func BenchmarkVerifyOverEd25519(b *testing.B) {
	v, _, r, k, base := signedBenchRequest(b)
	sig := k.sign(b, string(base))
	pub := k.pub.(ed25519.PublicKey)
	ctx := context.Background()
	if _, err := v.Verify(ctx, r, testAuthority); err != nil {
		b.Fatal(err)
	}
	var inVerify, inEd25519 time.Duration
	for b.Loop() {
		t0 := time.Now()
		if _, err := v.Verify(ctx, r, testAuthority); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if !ed25519.Verify(pub, base, sig) {
			b.Fatal("does not verify")
		}
		inVerify += t1.Sub(t0)
		inEd25519 += time.Since(t1)
	}
	b.ReportMetric(float64(inVerify.Nanoseconds())/float64(b.N), "verify-ns/op")
	b.ReportMetric(float64(inEd25519.Nanoseconds())/float64(b.N), "ed25519-ns/op")
	b.ReportMetric(float64(inVerify)/float64(inEd25519), "ratio")
}

// signedBenchRequest is a Verifier whose key directory d serves k, and a
// request r signed by k naming d, with its signature base.
func signedBenchRequest(b *testing.B) (v *Verifier, d *dirServer, r *http.Request, k testKey, base []byte) {
	k = newEd25519Key(b)
	now := newClock(testNow)
	d = newDirServer(b, now.Now, k)
	dirs, err := NewDirectories([]string{d.origin()}, DirectoryOptions{AllowHTTPLoopback: true, Now: now.Now, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	v = &Verifier{Keys: dirs.Key, Now: now.Now, AllowHTTPLoopback: true}
	r, s := baseRequest(b)
	r.Header.Set("Signature-Agent", `sig1="`+d.origin()+`"`)
	s.agentValue = `"` + d.origin() + `"`
	return v, d, r, k, []byte(signRequest(b, r, k, s))
}
