// Package reqbody reads a request body ahead of its handler and gives it
// back byte for byte: the enforcer reads it to check an RFC 9421 digest,
// the audit trail to record it.
package reqbody

import (
	"bytes"
	"errors"
	"io"
	"net/http"
)

// Why a body is refused.
var (
	ErrTooLarge = errors.New("the request body is larger than the capability's body limit")
	ErrRead     = errors.New("the request body could not be read")
)

// Buffer reads r's body, at most limit+1 bytes, and puts back what it
// read ahead of what it did not, so that whoever reads r.Body next reads
// the body as sent. More than limit bytes returned means the body is over
// the limit (ErrTooLarge to the caller); the error is a read's.
func Buffer(r *http.Request, limit int64) ([]byte, error) {
	orig := r.Body
	b, err := io.ReadAll(io.LimitReader(orig, limit+1))
	if err == nil && int64(len(b)) <= limit { // all of it
		r.Body = Of(b, orig)
	} else {
		r.Body = readCloser{io.MultiReader(bytes.NewReader(b), orig), orig}
	}
	return b, err
}

// Of is a request body reading b, closing orig.
func Of(b []byte, orig io.Closer) io.ReadCloser {
	return readCloser{bytes.NewReader(b), orig}
}

type readCloser struct {
	io.Reader
	io.Closer
}
