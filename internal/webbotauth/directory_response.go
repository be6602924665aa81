package webbotauth

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/agentready/agentready/internal/httpsyntax"
)

// Fetching a key directory and checking its response: the signed
// directory proof, Content-Digest and the cache lifetime.

// Get GETs url with client, sending accept as Accept, and returns the
// request, and a 200's header and body of at most maxBytes. Any other
// status is an error, a redirect's naming where it points: the client
// must follow none. Key directories and verify's range lists are fetched
// with it.
func Get(ctx context.Context, client *http.Client, url, accept string, maxBytes int64) (*http.Request, http.Header, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, nil, nil, err
	}
	req.Header.Set("Accept", accept)
	resp, err := client.Do(req)
	if err != nil {
		return nil, nil, nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		if loc := resp.Header.Get("Location"); loc != "" {
			return nil, nil, nil, fmt.Errorf("status %d (redirect to %q not followed)", resp.StatusCode, loc)
		}
		return nil, nil, nil, fmt.Errorf("status %d", resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBytes+1))
	if err != nil {
		return nil, nil, nil, fmt.Errorf("reading the body: %w", err)
	}
	if int64(len(body)) > maxBytes {
		return nil, nil, nil, fmt.Errorf("body exceeds %d bytes", maxBytes)
	}
	return req, resp.Header, body, nil
}

// verifyDirectoryResponse checks the possession proofs of a directory
// response (draft-ietf-webbotauth-httpsig-protocol-01 B.1) and returns the
// keys that have one, with the thumbprints of those that have not. No
// proven key at all is an error; a response without any proof is one
// wrapping ErrNoSignature.
func verifyDirectoryResponse(req requestView, status int, h http.Header, body []byte, keys []dirKey, now time.Time) (map[string]dirKey, []string, error) {
	cands, err := selectSignatures(h, tagDirectory, maxDirectoryKeys)
	if err != nil {
		return nil, nil, fmt.Errorf("directory response not signed: %w", err)
	}
	byID := make(map[string]dirKey, len(keys))
	for _, k := range keys {
		byID[k.ID] = k
	}
	view := &messageView{req: req, isResponse: true, status: status, header: h}
	proven := make(map[string]dirKey)
	var firstErr error
	for i := range cands {
		c := &cands[i]
		k, err := verifyProof(c, view, body, byID, now)
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		proven[k.ID] = k
	}
	if len(proven) == 0 {
		return nil, nil, fmt.Errorf("no key of the directory has a valid possession proof: %w", firstErr)
	}
	var dropped []string
	for _, k := range keys {
		if _, ok := proven[k.ID]; !ok {
			dropped = append(dropped, k.ID)
		}
	}
	return proven, dropped, nil
}

// verifyProof verifies one directory response signature and returns the
// key it proves.
func verifyProof(c *candidate, view *messageView, body []byte, byID map[string]dirKey, now time.Time) (dirKey, error) {
	if c.err != nil {
		return dirKey{}, c.err
	}
	p, err := readParams(c)
	if err != nil {
		return dirKey{}, err
	}
	k, ok := byID[p.keyID]
	if !ok {
		return dirKey{}, fmt.Errorf("%w: %s: keyid %q is not a key of the directory", ErrUnknownKey, c.label, p.keyID)
	}
	// No MaxLifetime here: directory proofs are meant to be long-lived
	// (C.8). A future created is refused (B.1: "as it would a certificate
	// that is not yet valid").
	if !p.hasCreated || !p.hasExpires {
		return dirKey{}, fmt.Errorf("%w: %s: created and expires are required", ErrMalformed, c.label)
	}
	if p.expires <= p.created {
		return dirKey{}, fmt.Errorf("%w: %s: expires is not after created", ErrExpired, c.label)
	}
	if time.Unix(p.created, 0).After(now.Add(DefaultSkew)) || time.Unix(p.expires, 0).Add(DefaultSkew).Before(now) {
		return dirKey{}, fmt.Errorf("%w: %s: outside created %d / expires %d", ErrExpired, c.label, p.created, p.expires)
	}
	if !c.covers("@authority") {
		return dirKey{}, fmt.Errorf("%w: %s does not cover @authority", ErrAuthority, c.label)
	}
	if c.coversField("content-digest") {
		if err := checkContentDigest(view.header, body); err != nil {
			return dirKey{}, fmt.Errorf("%w: %s: %v", ErrBadSignature, c.label, err)
		}
	}
	base, err := signatureBase(c.input, view)
	if err != nil {
		return dirKey{}, fmt.Errorf("%w: %s: %v", ErrMalformed, c.label, err)
	}
	if err := checkKey(c.label, p, k.Public); err != nil {
		return dirKey{}, err
	}
	if !verifyBytes(k.Public, base, c.sig) {
		return dirKey{}, fmt.Errorf("%w: %s (keyid %q)", ErrBadSignature, c.label, p.keyID)
	}
	return k, nil
}

// coversField reports whether the candidate covers the named field of the
// message itself (not with "req").
func (c *candidate) coversField(name string) bool {
	for _, it := range c.input.Items {
		if s, ok := it.Value.(string); ok && s == name {
			if it.Params == nil {
				return true
			}
			if _, req := it.Params.Get("req"); !req {
				return true
			}
		}
	}
	return false
}

// cacheLifetime is the directory's Cache-Control max-age less its Age,
// clamped to [lo, hi]; lo without max-age or with no-cache or no-store.
func cacheLifetime(h http.Header, lo, hi time.Duration) time.Duration {
	maxAge := int64(-1)
	for _, line := range h.Values("Cache-Control") {
		for _, dir := range strings.Split(line, ",") {
			name, val, _ := strings.Cut(httpsyntax.TrimOWS(dir), "=")
			switch strings.ToLower(name) {
			case "no-store", "no-cache":
				return lo
			case "max-age":
				n, err := strconv.ParseInt(strings.Trim(val, `"`), 10, 64)
				if err != nil || n < 0 {
					return lo
				}
				maxAge = n
			}
		}
	}
	if maxAge < 0 {
		return lo
	}
	if age, err := strconv.ParseInt(httpsyntax.TrimOWS(h.Get("Age")), 10, 64); err == nil && age > 0 {
		maxAge -= age
	}
	if maxAge > int64(hi/time.Second) {
		return hi
	}
	return max(lo, time.Duration(maxAge)*time.Second)
}
