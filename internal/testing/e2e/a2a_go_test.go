package e2e_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/a2aclient"
	"github.com/a2aproject/a2a-go/a2aclient/agentcard"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/config"
)

// TestA2AGoClientReadsV03Card: the Go A2A SDK (a2a-go v0.3.3, the newest
// Go client) resolves agentready's agent card and builds a client from
// it when the card is v0.3 (Documents.A2AVersion "0.3", serve: {a2a_version:
// "0.3"} in a file), and finds no transport in the default v1.0 card,
// whose interfaces it does not read: why the version is a setting.
func TestA2AGoClientReadsV03Card(t *testing.T) {
	site := config.Site{
		Name: "Travel Desk", URL: "https://travel.example", Description: "Trips booked by agents", Contact: "agents@travel.example",
		Capabilities: []config.Capability{{ID: "book-trip", Description: "Book a trip", Endpoint: "https://travel.example/a2a", Method: "POST", Protocol: config.ProtocolA2A}},
		Access:       config.Access{Allow: []string{"/a2a"}},
	}
	for _, c := range []struct {
		version, wantErr string
	}{
		{"0.3", ""},
		{"", "no compatible transports found"},
	} {
		m, err := agentready.New(site, agentready.WithDocuments(agentready.Documents{A2AVersion: c.version}), agentready.WithLogger(discardLogger()))
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(m.Handler(app))
		card, err := agentcard.NewResolver(srv.Client()).Resolve(context.Background(), srv.URL)
		srv.Close()
		if err != nil {
			t.Fatalf("A2AVersion %q: a2a-go cannot resolve the card: %v", c.version, err)
		}
		client, err := a2aclient.NewFromCard(context.Background(), card)
		switch {
		case c.wantErr == "" && (err != nil || client == nil):
			t.Errorf("A2AVersion %q: a2a-go builds no client: %v", c.version, err)
		case c.wantErr == "" && (card.URL != "https://travel.example/a2a" || card.PreferredTransport != "JSONRPC"):
			t.Errorf("A2AVersion %q: a2a-go reads url %q, transport %q", c.version, card.URL, card.PreferredTransport)
		case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
			t.Errorf("A2AVersion %q: a2a-go: %v, want %q (if a2a-go now reads v1.0 cards, say so in docs/documents.md)", c.version, err, c.wantErr)
		}
	}
}
