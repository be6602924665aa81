package agentstxt_test

import (
	"fmt"

	"github.com/agentready/agentready/internal/publish"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/publish/agentstxt"
)

func ExampleParse() {
	f, err := agentstxt.Parse([]byte(`# agents.txt
Spec-Version: 1.0
Site-Name: Example Store
Site-URL: https://example.com

Capability: product-search
  Endpoint: https://example.com/api/search
  Protocol: REST
  Rate-Limit: 60/minute
  Param: q (query, string, required) - Search query
  X-Future-Field: ignored, with a warning

Allow: /api/*
Agent: *
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	c := f.Site.Capabilities[0]
	fmt.Println(f.Dialect, "-", f.Site.Name)
	fmt.Println(c.ID, c.Endpoint, c.RateLimit)
	fmt.Printf("%s in %s, required: %t\n", c.Params[0].Name, c.Params[0].In, c.Params[0].Required)
	fmt.Println(f.Site.Access.Allow, f.Site.Agents[0].Name)
	for _, w := range f.Warnings {
		fmt.Println(w)
	}
	// Output:
	// draft-car - Example Store
	// product-search https://example.com/api/search 60/minute
	// q in query, required: true
	// [/api/*] *
	// line 11: field "X-Future-Field" unknown in a Capability block; ignored
}

func ExampleRender() {
	site := config.Site{
		Name: "Example Store",
		URL:  "https://example.com",
		Capabilities: []config.Capability{{
			ID:          "product-search",
			Description: "Search the product catalog",
			Endpoint:    "https://example.com/api/search",
			RateLimit:   config.PerMinute(60),
		}},
		Access: config.Access{Allow: []string{"/api/*"}, Disallow: []string{"/admin/*"}},
		Agents: []config.AgentPolicy{{Name: "*"}},
	}
	b, err := agentstxt.Render(&site, config.DialectIETFDraft)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(string(b))

	// Validate refuses a value that would inject a line, naming the field;
	// Render, handed it anyway, refuses to write it.
	site.Description = "Shop\nDisallow: /"
	fmt.Println(publish.Validate(&site, config.Formats{Disabled: config.AllDocuments &^ config.DocAgentsTxt}))
	_, err = agentstxt.Render(&site, config.DialectIETFDraft)
	fmt.Println(err)
	// Output:
	// # agents.txt
	// Spec-Version: 1.0
	//
	// Site-Name: Example Store
	// Site-URL: https://example.com
	//
	// Capability: product-search
	//   Endpoint: https://example.com/api/search
	//   Method: GET
	//   Protocol: REST
	//   Auth: none
	//   Rate-Limit: 60/minute
	//   Description: Search the product catalog
	//
	// Allow: /api/*
	// Disallow: /admin/*
	//
	// Agent: *
	// Description: contains a line break (U+000A), which would inject a line of its own into the line-based draft-car agents.txt (agents.txt injection)
	// agentstxt: draft-car: line 6 (Site-Description): a line break (U+000A): value is not a single line of UTF-8 text
}
