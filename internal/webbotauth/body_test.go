package webbotauth

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestVerifyBody: Verify reads no body for a signature that does not
// verify, nor for one that does not cover Content-Digest; a valid one that
// does has the body checked against it, and the body given back as sent.
func TestVerifyBody(t *testing.T) {
	k := newEd25519Key(t)
	v := &Verifier{Keys: newKeyMap().add(testAgent, k).resolve, Now: func() time.Time { return testNow }}
	digestOf := func(b []byte) string {
		sum := sha256.Sum256(b)
		return "sha-256=:" + base64.StdEncoding.EncodeToString(sum[:]) + ":"
	}
	request := func(digest string, cover bool, body io.ReadCloser) *http.Request {
		r, s := baseRequest(t)
		r.Method = http.MethodPost
		r.Body = body
		r.Header.Set("Content-Digest", digest)
		if cover {
			s.components = append(s.components, `"content-digest"`)
		}
		signRequest(t, r, k, s)
		return r
	}

	// Unverified signatures, or one that leaves the body out: not read.
	body := &countingBody{}
	r := request("sha-256=:AAAA:", true, body)
	r.Header.Set("Signature", flipSignatureByte(t, r.Header.Get("Signature")))
	_, err := v.Verify(context.Background(), r, testAuthority)
	wantErr(t, err, "ErrBadSignature")
	_, err = v.Verify(context.Background(), request("sha-256=:AAAA:", false, body), testAuthority)
	wantErr(t, err, "ok")
	if body.reads != 0 {
		t.Fatal("Verify read the body")
	}

	// Covered: checked, and given back whole.
	for _, size := range []int{0, 17, maxCheckedBody, maxCheckedBody + 1, 3*maxCheckedBody + 5} {
		content := bytes.Repeat([]byte("x"), size)
		for _, match := range []bool{true, false} {
			digest := digestOf(content)
			if !match {
				digest = digestOf(append(content, '!'))
			}
			r := request(digest, true, io.NopCloser(bytes.NewReader(content)))
			_, err := v.Verify(context.Background(), r, testAuthority)
			got, readErr := io.ReadAll(r.Body)
			switch {
			case match:
				wantErr(t, err, "ok")
				if readErr != nil {
					t.Fatalf("size %d: reading the body: %v", size, readErr)
				}
			case size <= maxCheckedBody:
				wantErr(t, err, "ErrDigest")
				if readErr != nil {
					t.Fatalf("size %d: reading the body: %v", size, readErr)
				}
			default:
				// Too long to hold: the mismatch surfaces at the end
				// of the body, to whoever reads it.
				wantErr(t, err, "ok")
				wantErr(t, readErr, "ErrDigest")
			}
			if !bytes.Equal(got, content) {
				t.Fatalf("size %d: the body came back as %d bytes", size, len(got))
			}
		}
	}
	// A covered Content-Digest without a usable digest is refused.
	_, err = v.Verify(context.Background(), request("md5=:AAAA:", true, io.NopCloser(strings.NewReader("x"))), testAuthority)
	wantErr(t, err, "ErrDigest")
}

type countingBody struct{ reads int }

func (b *countingBody) Read([]byte) (int, error) { b.reads++; return 0, errors.New("read") }
func (b *countingBody) Close() error             { return nil }
