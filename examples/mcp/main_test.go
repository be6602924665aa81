package main

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type userAgent string

func (ua userAgent) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("User-Agent", string(ua))
	return http.DefaultTransport.RoundTrip(r)
}

// TestExample: the site does what its comment says, to the SDK's client.
func TestExample(t *testing.T) {
	h, err := newHandler()
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close) // after the sessions' Close: their GET streams end first
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	connect := func(ua string) *mcp.ClientSession {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(ctx,
			&mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp", HTTPClient: &http.Client{Transport: userAgent(ua)}}, nil)
		if err != nil {
			t.Fatalf("%s connects: %v", ua, err)
		}
		t.Cleanup(func() { _ = cs.Close() })
		return cs
	}
	gpt := connect("GPTBot/1.2")
	var names []string
	for tool, err := range gpt.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	if !slices.Equal(names, []string{"search_products"}) {
		t.Errorf("GPTBot is shown %q", names)
	}
	if res, err := gpt.CallTool(ctx, &mcp.CallToolParams{Name: "search_products", Arguments: map[string]any{"query": "tent"}}); err != nil || res.IsError {
		t.Errorf("GPTBot searches: %v", err)
	}
	var je *jsonrpc.Error
	if _, err := gpt.CallTool(ctx, &mcp.CallToolParams{Name: "checkout", Arguments: map[string]any{"cart": "1"}}); !errors.As(err, &je) {
		t.Errorf("GPTBot's checkout: %v, want the JSON-RPC refusal", err)
	}
	claude := connect("ClaudeBot/1.0")
	if res, err := claude.CallTool(ctx, &mcp.CallToolParams{Name: "checkout", Arguments: map[string]any{"cart": "1"}}); err != nil || res.IsError {
		t.Errorf("ClaudeBot's checkout: %v", err)
	}
}
