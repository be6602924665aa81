// Package wbavectors reads the Web Bot Auth negative vectors kept in
// internal/webbotauth/testdata/negative (its SOURCE.md says where the set
// comes from), for the tests of internal/webbotauth and of the middleware.
package wbavectors

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
)

// Set is the vector file: the vectors and the key that signed them.
type Set struct {
	Tests []Vector `json:"tests"`
	Key   struct {
		KeyID string            `json:"keyid"`
		JWK   map[string]string `json:"jwk"`
	} `json:"key"`
}

// Vector is one negative vector: a signed request a verifier must refuse,
// and why.
type Vector struct {
	ID       string `json:"id"`
	Title    string `json:"title"`
	Expected struct {
		Outcome string `json:"outcome"` // the draft's C.1: verified, invalid, unverified
		Reason  string `json:"reason"`
	} `json:"expected"`
	Now     int64 `json:"now"`
	Request struct {
		Method  string            `json:"method"`
		URL     string            `json:"url"`
		Headers map[string]string `json:"headers"`
		Body    *string           `json:"body"`
	} `json:"request"`
	Signature struct {
		Label        string  `json:"label"`
		SignedBase   string  `json:"signedBase"`
		ExpectedBase *string `json:"expectedBase"`
		BaseDiffers  bool    `json:"baseDiffers"`
	} `json:"signature"`
	Directory *struct {
		URL     string            `json:"url"`
		Headers map[string]string `json:"headers"`
		Body    string            `json:"body"`
	} `json:"directory"`
}

// Load reads the set, wherever the calling test runs from.
func Load() (Set, error) {
	_, here, _, _ := runtime.Caller(0)
	var s Set
	b, err := os.ReadFile(filepath.Join(filepath.Dir(here), "..", "..", "webbotauth", "testdata", "negative", "negative_vectors.json"))
	if err != nil {
		return s, err
	}
	err = json.Unmarshal(b, &s)
	return s, err
}
