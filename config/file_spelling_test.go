package config_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/publish"

	"github.com/agentready/agentready/config"
)

// TestFilePath: Validate's field paths as a file writes them.
func TestFilePath(t *testing.T) {
	for in, want := range map[string]string{
		"":                                   "",
		"URL":                                "url",
		"Capabilities[10].RateLimit":         "capabilities[10].rate_limit",
		"Agents[0].Verify.IPRanges[2]":       "agents[0].verify.ip_ranges[2]",
		`AWP.Protocols["a2a"].Version`:       `awp.protocols["a2a"].version`,
		`AWP.Errors["a.b[c]"]`:               `awp.errors["a.b[c]"]`,
		"Metadata[Key]":                      "metadata[Key]",
		"Usage.Paths[0].AIInput":             "usage.paths[0].ai_input",
		"HostedAgents[1].Skills[0].ID":       "hosted_agents[1].skills[0].id",
		"Serve.TrustedProxies[3]":            "serve.trusted_proxies[3]",
		"Capabilities[0].Auth.TokenEndpoint": "capabilities[0].auth.token_endpoint",
	} {
		if got := config.FilePath(in); got != want {
			t.Errorf("FilePath(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestLocateOnePass: ParseSite's and Validate's problems joined are
// reported together, sorted by line, in the file's spelling; Validate's
// problems of a value that did not decode are left out; an error of
// another kind comes first, as it is.
func TestLocateOnePass(t *testing.T) {
	src := "name: x\n" + // 1
		"url: [not, a, url]\n" + // 2: decoding (Validate's "is required" left out)
		"usage:\n" + // 3
		"  train: maybe\n" + // 4: Validate, in the file's words
		"capabilities:\n" + // 5
		"  - id: Bad_ID\n" + // 6: Validate
		"    rate_limit: 60/fortnight\n" + // 7: decoding
		"    rateLimit: 1/s\n" // 8: an unknown key
	site, lines, perr := config.ParseSite([]byte(src))
	other := errors.New("an option's problem")
	err := lines.Locate(errors.Join(perr, publish.Validate(&site, config.Formats{}), other))
	var got []string
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		got = append(got, e.Error())
	}
	if len(got) == 0 || got[0] != other.Error() {
		t.Fatalf("the option's error is not first: %q", got)
	}
	last := 0
	for _, g := range got[1:] {
		n := 0
		if strings.HasPrefix(g, "line ") {
			for _, c := range strings.TrimPrefix(g, "line ") {
				if c < '0' || c > '9' {
					break
				}
				n = n*10 + int(c-'0')
			}
		}
		if n < last {
			t.Errorf("not sorted by line: %q", got)
		}
		last = n
	}
	all := strings.Join(got, "\n")
	for _, want := range []string{
		`line 2: url: want a string`,
		`line 4: usage.train: "maybe" is not a preference: "yes", "no" or leave it out`,
		`line 6: capabilities[0].id: "Bad_ID" is not allowed`,
		`line 7: capabilities[0].rate_limit: rate "60/fortnight"`,
		`line 8: capabilities[0]: unknown key "rateLimit"`,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("lacks %q:\n%s", want, all)
		}
	}
	for _, unwanted := range []string{"url: is required", "config.Allowed", "Capabilities[0]"} {
		if strings.Contains(all, unwanted) {
			t.Errorf("holds %q:\n%s", unwanted, all)
		}
	}
	// Go spells the same problem as Go does.
	if err := publish.Validate(&site, config.Formats{}); !strings.Contains(err.Error(), `Usage.Train: "maybe" is not a preference: use config.Allowed, config.Denied`) {
		t.Errorf("Validate's own words changed: %v", err)
	}
	if lines.Locate(nil) != nil {
		t.Error("Locate(nil) is not nil")
	}
}

// TestParseSiteTypes: values are typed as JSON and site.schema.json type
// them.
func TestParseSiteTypes(t *testing.T) {
	const head = "name: x\nurl: https://x.example\n"
	for src, want := range map[string]string{
		"name: 42\n":                  `line 1: name: 42 is a number, not a string: quote it ("42")`,
		head + "version: 1.0\n":       `line 3: version: 1.0 is a number, not a string`,
		head + "description: true\n":  `line 3: description: true is a boolean, not a string`,
		head + "contact:\n":           `line 3: contact: has no value`,
		head + "access: ~\n":          `line 3: access: has no value`,
		head + "session: {ttl: 60}\n": `line 3: session.ttl: "60" is not a duration`,
		head + "rate_limit: 60\n":     `line 3: rate_limit: want a string N/window`,
		head + "dialect: v2\n":        `line 3: dialect: "v2" is not a dialect: draft-car or v0.1.0`,
	} {
		if _, _, err := config.ParseSite([]byte(src)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", src, err, want)
		}
	}
	for _, src := range []string{
		head + "generated_at: 2026-02-01T00:00:00Z\n",
		head + `version: "1.0"` + "\n",
		head + "capabilities:\n  - id: c\n    params:\n      - {name: p, default: null, enum: [1, null]}\n",
		head + "dialect: v0.1.0\nimplicit_access: all-agents\nserve:\n  trusted_proxies: [10.0.0.0/8, \"::1\"]\n  robots: true\n  report_only: false\n  audit_key_file: k\n",
	} {
		if _, _, err := config.ParseSite([]byte(src)); err != nil {
			t.Errorf("%q: %v", src, err)
		}
	}
	site, _, _ := config.ParseSite([]byte(head + "dialect: v0.1.0\nimplicit_access: all-agents\n"))
	if site.Dialect != config.DialectV010 || site.ImplicitAccess != "all-agents" {
		t.Errorf("dialect and implicit_access: %v %q", site.Dialect, site.ImplicitAccess)
	}
}

// TestValidateSiteDialect: Validate reads the site's dialect unless the
// Formats name v0.1.0, and refuses what is not a dialect, a scope or a
// name.
func TestValidateSiteDialect(t *testing.T) {
	s := config.Site{Name: "Shop", URL: "https://shop.example", Description: "Gear", ImplicitAccess: "ai-agents",
		Capabilities: []config.Capability{{ID: "cart.add", Description: "Add", Endpoint: "https://shop.example/.well-known/agents/api/cart/add"}}}
	if err := publish.Validate(&s, config.Formats{}); err == nil || !strings.Contains(err.Error(), "is not allowed by draft-car") {
		t.Errorf("draft-car: %v", err)
	}
	s.Dialect = config.DialectV010
	if err := publish.Validate(&s, config.Formats{}); err != nil {
		t.Errorf("the site's v0.1.0: %v", err)
	}
	s.Dialect = config.DialectIETFDraft
	if err := publish.Validate(&s, config.Formats{Dialect: config.DialectV010}); err != nil {
		t.Errorf("Formats' v0.1.0: %v", err)
	}
	s.Dialect, s.ImplicitAccess, s.Description = config.Dialect(9), "everyone", " \t"
	err := publish.Validate(&s, config.Formats{})
	for _, want := range []string{"Dialect: Dialect(9) is not a dialect: config.DialectIETFDraft or DialectV010",
		`ImplicitAccess: "everyone" is not a scope`, "Description: is blank"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
	s = config.Site{Name: "  ", URL: "https://shop.example"}
	if err := publish.Validate(&s, config.Formats{}); err == nil || !strings.Contains(err.Error(), "Name: is blank") {
		t.Errorf("a blank name: %v", err)
	}
}
