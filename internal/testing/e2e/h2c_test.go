package e2e_test

import (
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"testing"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/h2c"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/internal/testing/testtools"
)

// TestNoH2CUpgradeInProcess: an application behind the middleware that
// takes "Upgrade: h2c" (x/net's h2c.NewHandler) is never asked to: the
// request is served as HTTP/1.1, whoever sends it (a browser's User-Agent
// too, which passes undecided), so no HTTP/2 connection carries later
// requests past the middleware. A WebSocket upgrade still reaches it.
func TestNoH2CUpgradeInProcess(t *testing.T) {
	m, err := agentready.New(canonicalSite(), agentready.WithLogger(discardLogger()))
	if err != nil {
		t.Fatal(err)
	}
	var upgrade string
	app := h2c.NewHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		upgrade = r.Header.Get("Upgrade")
	}), &http2.Server{})
	srv := httptest.NewServer(m.Handler(app))
	t.Cleanup(srv.Close)
	settings := base64.RawURLEncoding.EncodeToString(nil)
	for _, ua := range []string{"Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0", "GPTBot/1.2"} {
		for _, up := range []string{"h2c", "H2C", "websocket, h2c"} {
			upgrade = "-"
			res, body, err := testtools.RawRequest(srv.Listener.Addr().String(), "GET", "/about", [][2]string{
				{"User-Agent", ua}, {"Connection", "Upgrade, HTTP2-Settings"}, {"Upgrade", up}, {"HTTP2-Settings", settings}})
			if err != nil {
				t.Fatal(err)
			}
			if res.StatusCode != http.StatusOK || res.ProtoMajor != 1 || upgrade != "" {
				t.Errorf("%s, Upgrade: %s: %s %d %s, the app saw Upgrade %q; want HTTP/1.1 200 and no Upgrade", ua, up, res.Proto, res.StatusCode, body, upgrade)
			}
		}
		upgrade = "-"
		res, _, err := testtools.RawRequest(srv.Listener.Addr().String(), "GET", "/about", [][2]string{
			{"User-Agent", ua}, {"Connection", "Upgrade"}, {"Upgrade", "websocket"}})
		if err != nil {
			t.Fatal(err)
		}
		if upgrade != "websocket" {
			t.Errorf("%s: a WebSocket upgrade reached the app as %q (%d)", ua, upgrade, res.StatusCode)
		}
	}
}
