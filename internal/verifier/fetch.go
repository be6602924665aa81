package verifier

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/agentready/agentready/internal/webbotauth"
)

// fetcher gets the documents verification relies on (range lists): over
// HTTPS (plain HTTP only to a loopback host, and only when allowed),
// without following redirects, bounded in size and, through the client,
// in time.
type fetcher struct {
	client            *http.Client
	allowHTTPLoopback bool
	maxBytes          int64
	now               func() time.Time
}

// defaultClient never follows a redirect: a source is fetched from the
// URL the site configured, never from one a response names.
func defaultClient() *http.Client {
	return &http.Client{Timeout: 10 * time.Second, CheckRedirect: noRedirect}
}

// noRedirect makes a client return a 3xx as it is, which get refuses.
func noRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// checkURL refuses a source URL the fetcher would not fetch.
func (f *fetcher) checkURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return err
	}
	if u.User != nil || u.Host == "" {
		return fmt.Errorf("%q: want https://host/path", raw)
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		if f.allowHTTPLoopback && webbotauth.IsLoopback(u.Host) {
			return nil
		}
		return fmt.Errorf("%q: plain http is allowed only to a loopback host, with AllowHTTPLoopback", raw)
	}
	return fmt.Errorf("%q: want an https URL", raw)
}

// get fetches raw, which checkURL accepted, and returns its body: a 200 of
// at most maxBytes. accept is sent as Accept; the media type answered is
// not checked (operators serve their lists as application/json or
// text/plain alike), the body's syntax is.
func (f *fetcher) get(ctx context.Context, raw, accept string) ([]byte, error) {
	_, _, body, err := webbotauth.Get(ctx, f.client, raw, accept, f.maxBytes)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", raw, err)
	}
	return body, nil
}
