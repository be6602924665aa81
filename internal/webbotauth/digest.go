package webbotauth

import (
	"crypto/sha256"
	"crypto/sha512"
	"crypto/subtle"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"

	sfv "github.com/dunglas/httpsfv"

	"github.com/agentready/agentready/internal/reqbody"
)

// maxCheckedBody is the most of a request body Verify reads to check a
// covered Content-Digest before answering; a longer body is checked as
// its reader reaches the end.
const maxCheckedBody = 1 << 20

// bodyCheck checks a request's Content-Digest (RFC 9530) against its body
// once per Verify, however many signatures cover the field. A signature
// that covers Content-Digest covers the body through it (draft 5.2: "An
// Agent that needs one MUST send and cover Content-Digest"): without the
// comparison the coverage would be decorative, and a signature observed
// on one request could carry another body.
type bodyCheck struct {
	done bool
	err  error
}

func (b *bodyCheck) check(r *http.Request) error {
	if !b.done {
		b.done, b.err = true, checkRequestDigest(r)
	}
	return b.err
}

// checkRequestDigest reads up to maxCheckedBody of r's body and gives it
// back. A body within that is checked now; a longer one is wrapped in a
// reader that checks it at its end.
func checkRequestDigest(r *http.Request) error {
	want, err := parseDigest(r.Header)
	if err != nil {
		return err
	}
	if r.Body == nil || r.Body == http.NoBody {
		return want.match(nil)
	}
	orig := r.Body
	b, err := reqbody.Buffer(r, maxCheckedBody)
	if err != nil {
		return fmt.Errorf("reading the body: %v", err)
	}
	if len(b) <= maxCheckedBody {
		return want.match(b)
	}
	rest := r.Body
	hs := want.hashers()
	r.Body = &digestReader{r: io.TeeReader(rest, multiHash(hs)), c: orig, want: want, hs: hs}
	return nil
}

// digests are the sha-256 and sha-512 values of a Content-Digest field
// (RFC 9530 2); other algorithms are not checked.
type digests map[string][]byte

func parseDigest(h http.Header) (digests, error) {
	lines := h.Values("Content-Digest")
	if len(lines) == 0 {
		return nil, errors.New("no Content-Digest")
	}
	d, err := sfv.UnmarshalDictionary(lines)
	if err != nil {
		return nil, fmt.Errorf("Content-Digest: %v", err)
	}
	out := digests{}
	for _, alg := range d.Names() {
		if alg != "sha-256" && alg != "sha-512" {
			continue
		}
		m, _ := d.Get(alg)
		it, ok := m.(sfv.Item)
		v, isBytes := it.Value.([]byte)
		if !ok || !isBytes {
			return nil, fmt.Errorf("Content-Digest %s is not a Byte Sequence", alg)
		}
		out[alg] = v
	}
	if len(out) == 0 {
		return nil, errors.New("Content-Digest has no sha-256 or sha-512 digest")
	}
	return out, nil
}

func (d digests) hashers() map[string]hash.Hash {
	hs := make(map[string]hash.Hash, len(d))
	for alg := range d {
		if alg == "sha-256" {
			hs[alg] = sha256.New()
		} else {
			hs[alg] = sha512.New()
		}
	}
	return hs
}

// match checks every digest present against body.
func (d digests) match(body []byte) error {
	hs := d.hashers()
	for _, h := range hs {
		h.Write(body)
	}
	return d.matchHashes(hs)
}

func (d digests) matchHashes(hs map[string]hash.Hash) error {
	for alg, want := range d {
		if subtle.ConstantTimeCompare(hs[alg].Sum(nil), want) != 1 {
			return fmt.Errorf("Content-Digest %s does not match the body", alg)
		}
	}
	return nil
}

func multiHash(hs map[string]hash.Hash) io.Writer {
	ws := make([]io.Writer, 0, len(hs))
	for _, h := range hs {
		ws = append(ws, h)
	}
	return io.MultiWriter(ws...)
}

// digestReader is a body longer than maxCheckedBody: it hashes what is
// read, and the read that reaches the end fails with ErrDigest when the
// body does not match.
type digestReader struct {
	r    io.Reader
	c    io.Closer
	want digests
	hs   map[string]hash.Hash
	err  error
}

func (d *digestReader) Read(p []byte) (int, error) {
	if d.err != nil {
		return 0, d.err
	}
	n, err := d.r.Read(p)
	if err == io.EOF {
		if e := d.want.matchHashes(d.hs); e != nil {
			d.err = fmt.Errorf("%w: %v", ErrDigest, e)
			return n, d.err
		}
	}
	return n, err
}

func (d *digestReader) Close() error { return d.c.Close() }

// checkContentDigest checks Content-Digest (RFC 9530) against body: at
// least one sha-256 or sha-512 digest must be present, and every one
// present must match.
func checkContentDigest(h http.Header, body []byte) error {
	d, err := parseDigest(h)
	if err != nil {
		return err
	}
	return d.match(body)
}
