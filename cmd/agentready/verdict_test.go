package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/testing/testtools"
	"github.com/agentready/agentready/verify"
)

// The verdict table: declaration files, good and broken
// (testdata/verdict, written for these tests), each decided on by lint,
// render, serve's startup and config.LoadSite + agentready.New with the
// options the file implies, which must agree; and by site.schema.json,
// read by Ajv (testdata/ajv, an independent validator) and by
// santhosh-tekuri/jsonschema, which must agree with lint but for the
// exceptions the table names.
type verdictCase struct {
	ok bool
	// want are substrings of lint's output: the problem at its line, in
	// the file's spelling, or a note.
	want []string
	// opts are the options of agentready.New the file implies beyond
	// lenient routing (no upstream: {strict: true}) and a quiet logger.
	opts   func(t *testing.T) []agentready.Option
	strict bool // upstream: {strict: true}: no lenient routing
	// schemaCannot says why JSON Schema cannot refuse the file although
	// lint does: the rules that are not a property of one value.
	schemaCannot string
	// serveUnwired marks a file serve refuses today for want of the
	// option prepare would give it: serve.go builds its own Middleware
	// until it calls prepare. The test fails once serve takes the file, so
	// that the mark is removed.
	serveUnwired string
	// serveKeys marks a file whose only problem is in the upstream or
	// serve keys, which are agentready serve's: config.LoadSite leaves them
	// to it (config.ParseSite accepts them whatever they hold), and they
	// imply no option of New, so LoadSite + New take the file.
	serveKeys string
}

const (
	crossReference = "a cross reference: JSON Schema validates a value by its own shape and cannot look up the IDs declared elsewhere in the file"
	uniqueMember   = "uniqueness of one member across the items of a list: JSON Schema's uniqueItems compares whole items"
	proxyUnion     = "the union of CIDRs, less the networks that are not globally routable: JSON Schema matches each string on its own and cannot count addresses"
	rateCount      = "a number compared with the count inside a rate string (10/hour): JSON Schema cannot read a number out of a string"
)

var verdicts = map[string]verdictCase{
	"good-minimal.yaml":       {ok: true, want: []string{"valid (draft-car, 1 capabilities"}},
	"good-appendix-a.yaml":    {ok: true, want: []string{":22: note: capabilities[1].auth.type: bearer-token: agentready serve requires the credential and leaves checking it to the upstream"}},
	"good-v010.yaml":          {ok: true, want: []string{"valid (v0.1.0, 2 capabilities"}},
	"good-serve-section.yaml": {ok: true, strict: true, opts: serveSectionOptions},
	"good-bearer-note.yaml":   {ok: true, want: []string{":13: note: capabilities[1].auth.type: bearer-token", ":17: note: capabilities[2].auth.type: api-key"}},
	"good-audit.yaml":         {ok: true, want: []string{"valid (v0.1.0"}, opts: auditOptions},
	"good-credentials.yaml":   {ok: true, want: []string{"valid (draft-car, 2 capabilities"}, opts: credentialOptions},
	"good-usage.yaml":         {ok: true},
	"good-loopback-http.yaml": {ok: true},
	"good-json.json":          {ok: true},
	"good-mcp-tools.yaml":     {ok: true, want: []string{":20: note: agents[0].capabilities[0]: store-assistant/search_products grants a single tool"}},
	"good-mcp-jwt.yaml":       {ok: true, want: []string{"valid (draft-car, 1 capabilities"}},
	"bad-jwt-api-key.yaml":    {want: []string{`:12: capabilities[0].auth.jwt: verifies a bearer token, and type is "api-key": declare oauth2 or bearer-token`}},
	"bad-tool-name.yaml":      {want: []string{`:15: capabilities[0].tools[0].name: "search products" is not an MCP tool name`}},
	"bad-tool-grant.yaml": {want: []string{`:19: agents[0].capabilities[0]: "store-assistant/Search_products" names the tool "Search_products", which "store-assistant" does not list`},
		schemaCannot: crossReference},
	"bad-tool-cost.yaml": {want: []string{":17: capabilities[0].tools[2].cost: is 11 tokens, more than the 10 of rate_limit"}, schemaCannot: rateCount},
	"good-verified.yaml": {ok: true, want: []string{"2 agent policies"}},
	// Graded identity (issue 26): proven grants, a fall-back, "*" for
	// proven undeclared agents, unknown purposes and link previews.
	"good-graded.yaml": {ok: true, want: []string{"2 capabilities, 2 agent policies"}},
	"good-graded-fallback.yaml": {ok: true, want: []string{"2 agent policies",
		`:20: note: agents[1].rate_limit: no client gets it: with verify.required, a proven GPTBot gets proven's grant and an unproven claim is served as "*"`}},
	"good-proven-default.yaml":  {ok: true, want: []string{"1 agent policies"}},
	"good-unknown-purpose.yaml": {ok: true, want: []string{"0 agent policies"}},
	"bad-protocol-soap.yaml":    {want: []string{`:10: capabilities[0].protocol: "SOAP" is not one of REST, MCP, A2A, GraphQL, WebSocket`}},
	"bad-auth-basic.yaml":       {want: []string{`:10: capabilities[0].auth.type: "basic" is not one of`}},
	"bad-param-type-strng.yaml": {want: []string{`:11: capabilities[0].params[0].type: "strng" is not one of`}},
	"bad-train-maybe.yaml":      {want: []string{`:11: usage.train: "maybe" is not a preference: "yes", "no" or leave it out`}},
	"bad-missing-url.yaml":      {want: []string{`bad-missing-url.yaml: url: is required`}},
	"bad-rate-fortnight.yaml":   {want: []string{`:10: capabilities[0].rate_limit: rate "60/fortnight": window "fortnight" is not one of second, minute, hour, day`}},
	"bad-ttl-1-hour.yaml":       {want: []string{`:11: session.ttl: "1 hour" is not a duration (30s, 30m, 1h)`}},
	"bad-http-url.yaml":         {want: []string{`:3: url: "http://shop.example" must use https: plain http is accepted only for localhost, 127.0.0.0/8 and [::1] (draft-car 2.1`}},
	"bad-pattern-2f.yaml":       {want: []string{`:11: access.disallow[0]: pattern "/files%2Fprivate" holds an encoded "/" (%2F)`}},
	"bad-unknown-capability.yaml": {want: []string{`:12: agents[0].capabilities[1]: "checkout" is not the ID of a declared capability`},
		schemaCannot: crossReference},
	"bad-two-defaults.yaml": {want: []string{`:13: agents[1].name: is a second default policy "*"; agents[0] is already the default`}},
	"bad-name-number.yaml":  {want: []string{`:2: name: 42 is a number, not a string: quote it ("42")`}},
	"bad-no-implicit-access.yaml": {want: []string{`bad-no-implicit-access.yaml: access: no allow or disallow rule is declared`,
		"implicit_access: all-agents", "implicit_access: ai-agents"}},
	"bad-hmac.yaml":              {want: []string{`:14: capabilities[1].auth.type: hmac asks for a signed request (RFC 9421)`}},
	"bad-blank-description.yaml": {want: []string{`:4: description: is blank (only white space)`}},
	"bad-unknown-key.yaml":       {want: []string{`:10: capabilities[0]: unknown key "rateLimit" (keys: id, name,`}},
	"bad-implicit-value.yaml":    {want: []string{`:5: implicit_access: "everyone" is not a scope: all-agents or ai-agents`}},
	"bad-dialect-value.yaml":     {want: []string{`:10: dialect: "v1" is not a dialect: draft-car or v0.1.0`}},
	"bad-v010-id.yaml":           {want: []string{`:10: capabilities[1].id: "cart.add" is not allowed by draft-car agents.txt`}},
	"bad-audit-no-key.yaml":      {want: []string{`:13: audit.enabled: needs the key that signs the artifacts`, "serve: {audit_key_file: FILE}"}},
	"bad-duplicate-id.yaml": {want: []string{`:10: capabilities[1].id: "search" is already the ID of capabilities[0]`},
		schemaCannot: uniqueMember},
	"bad-proven-unknown-capability.yaml": {want: []string{`:19: agents[0].proven.capabilities[1]: "checkout" is not the ID of a declared capability`},
		schemaCannot: crossReference},
	"bad-unknown-purpose.yaml":  {want: []string{`:17: usage.unknown_purpose: "bogus" is not a purpose: "training-crawler", "search-crawler", "user-agent"`}},
	"bad-default-required.yaml": {want: []string{`:18: agents[0].verify.required: the default policy "*" is what an unverified claim falls back to`}},
	"bad-default-signature-no-proven.yaml": {want: []string{`:19: agents[0].verify.signature_agents: trusts key directories for agents the site does not declare`,
		"set proven beside it"}},
	"bad-fall-back-unrequired.yaml": {want: []string{`:19: agents[0].verify.fall_back: serves a refused claim as "*", and without required: true`}},
	"bad-trusted-proxy.yaml":        {want: []string{`:11: serve.trusted_proxies[0]: "10.0.0.0/33": not a CIDR`}, opts: proxyOptions(false, "10.0.0.0/33")},
	"bad-no-value.yaml":             {want: []string{`:10: contact: has no value`}},
	"bad-bool-yes.yaml":             {want: []string{`:11: serve.robots: "yes" is not a bool`}, serveKeys: "serve.robots: yes is not a boolean, and a program using the library has no robots setting in its file"},
	// Hostile declarations (issue 33): trusted proxies covering much of
	// the internet, credentials in published URLs, an api-key header that
	// never reaches the application, a rate in name only.
	"good-proxies-private.yaml": {ok: true, opts: proxyOptions(false, "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "127.0.0.0/8",
		"100.64.0.0/10", "169.254.0.0/16", "::1", "fc00::/7", "fe80::/10", "11.0.0.0/8")},
	"bad-proxies-all-ipv4.yaml": {want: []string{`:11: serve.trusted_proxies: the proxies cover 4,256,038,912 globally routable IPv4 addresses, more than the 16,777,216 of a /8`,
		"serve: {trust_all_proxies: true}"}, opts: proxyOptions(false, "0.0.0.0/0"), schemaCannot: proxyUnion},
	"bad-proxies-two-halves.yaml": {want: []string{`:11: serve.trusted_proxies: the proxies cover 4,256,038,912 globally routable IPv4 addresses`},
		opts: proxyOptions(false, "0.0.0.0/1", "128.0.0.0/1"), schemaCannot: proxyUnion},
	"bad-proxies-all-ipv6.yaml": {want: []string{`:11: serve.trusted_proxies: the proxies cover globally routable IPv6 prefixes shorter than /16`},
		opts: proxyOptions(false, "::/0"), schemaCannot: proxyUnion},
	"bad-proxies-2000-3.yaml": {want: []string{`:11: serve.trusted_proxies: the proxies cover globally routable IPv6 prefixes shorter than /16 (2000::/3 among them)`},
		opts: proxyOptions(false, "2000::/3"), schemaCannot: proxyUnion},
	"good-trust-all-proxies.yaml": {ok: true, want: []string{`:12: note: serve.trust_all_proxies: the trusted proxies cover 4,256,038,912 globally routable IPv4 addresses`},
		opts: proxyOptions(true, "0.0.0.0/0", "::/0")},
	"bad-url-jwt-fragment.yaml":   {want: []string{`:6: docs_url: has a JSON Web Token in its fragment; declarations are public and MUST NOT include credentials (draft-car 5.3)`}},
	"bad-url-access-token.yaml":   {want: []string{`:13: capabilities[0].auth.docs_url: has the query parameter "access_token", which carries a credential`}},
	"bad-url-fragment-token.yaml": {want: []string{`:6: docs_url: has the fragment member "access_token", which carries a credential`}},
	"good-url-ordinary-id.yaml":   {ok: true},
	"bad-api-key-host.yaml":       {want: []string{`:10: capabilities[0].auth.header: "Host" is the request's authority`}},
	"good-api-key-header.yaml":    {ok: true, want: []string{":10: note: capabilities[0].auth.type: api-key"}},
	"good-rate-note.yaml": {ok: true, want: []string{":10: note: capabilities[0].rate_limit: 50000/second is more than 10,000 requests a second per client, a limit in name only",
		":13: note: agents[0].rate_limit: 864000001/day is more than 10,000"}},
	// Decoding and validation problems in one pass, by line.
	"bad-many.yaml": {want: []string{":3: url:", ":6: capabilities[0].id:", ":9: capabilities[0].rate_limit:", ":12: agents[0].capabilities[0]:", `:13: agents[0]: unknown key "rate"`}},
}

func serveSectionOptions(*testing.T) []agentready.Option {
	return []agentready.Option{agentready.WithClients(agentready.Clients{TrustedProxies: []string{"10.0.0.0/8", "192.0.2.7", "2001:db8::/32"}}),
		agentready.WithDocuments(agentready.Documents{RobotsTxt: true}), agentready.WithReportOnly()}
}

// proxyOptions are what a file's serve.trusted_proxies (and
// trust_all_proxies) give New.
func proxyOptions(all bool, proxies ...string) func(*testing.T) []agentready.Option {
	return func(*testing.T) []agentready.Option {
		return []agentready.Option{agentready.WithClients(agentready.Clients{TrustedProxies: proxies, TrustAllProxies: all})}
	}
}

// credentialOptions are what good-credentials.yaml's serve section gives
// New: request keys for its hmac capability.
func credentialOptions(*testing.T) []agentready.Option {
	return []agentready.Option{agentready.WithRequestSignatures(func(context.Context, string) (verify.RequestKey, error) {
		return verify.RequestKey{}, errors.New("no key")
	})}
}

func auditOptions(t *testing.T) []agentready.Option {
	b, err := os.ReadFile("testdata/verdict/audit-test.key")
	if err != nil {
		t.Fatal(err)
	}
	seed, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return []agentready.Option{agentready.WithAudit(ed25519.NewKeyFromSeed(seed), nil)}
}

// verdictFiles are the declaration files of testdata/verdict.
func verdictFiles(t *testing.T) []string {
	var files []string
	for _, pat := range []string{"*.yaml", "*.json"} {
		m, err := filepath.Glob(filepath.Join("testdata/verdict", pat))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	slices.Sort(files)
	return files
}

var discard = slog.New(slog.NewTextHandler(io.Discard, nil))

// TestVerdict: lint, render, serve's startup and LoadSite + New give each
// file of the table one verdict, and lint says why.
func TestVerdict(t *testing.T) {
	files := verdictFiles(t)
	if len(files) < 25 || len(files) != len(verdicts) {
		t.Fatalf("%d files in testdata/verdict, %d in the table: every file has a row", len(files), len(verdicts))
	}
	good := 0
	for _, file := range files {
		tc, ok := verdicts[filepath.Base(file)]
		if !ok {
			t.Errorf("%s has no row in the table", file)
			continue
		}
		if tc.ok {
			good++
		}
		t.Run(filepath.Base(file), func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run([]string{"lint", file}, &out, &errb)
			if (code == 0) != tc.ok {
				t.Errorf("lint: exit %d\n%s%s", code, out.String(), errb.String())
			}
			for _, w := range tc.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("lint's output lacks %q:\n%s", w, out.String())
				}
			}
			if !tc.ok {
				assertSortedByLine(t, out.String())
			}
			out.Reset()
			errb.Reset()
			if code := run([]string{"render", file}, &out, &errb); (code == 0) != tc.ok {
				t.Errorf("render: exit %d\n%s", code, errb.String())
			}

			p, err := newProxy(proxyConfig{configFile: file, upstream: "http://127.0.0.1:9", log: discard})
			if err == nil {
				p.close()
			}
			switch {
			case tc.serveUnwired != "" && err == nil:
				t.Errorf("serve now takes the file: remove serveUnwired from its row")
			case tc.serveUnwired != "" && !strings.Contains(err.Error(), tc.serveUnwired):
				t.Errorf("serve refused the file, but not for the reason the row names: %v", err)
			case tc.serveUnwired == "" && (err == nil) != tc.ok:
				t.Errorf("serve startup: %v", err)
			}

			site, _, err := config.LoadSite(file)
			if err == nil {
				opts := []agentready.Option{agentready.WithLogger(discard)}
				if !tc.strict {
					opts = append(opts, agentready.WithLenientRouting())
				}
				if tc.opts != nil {
					opts = append(opts, tc.opts(t)...)
				}
				_, err = agentready.New(site, opts...)
			}
			if (err == nil) != (tc.ok || tc.serveKeys != "") {
				t.Errorf("config.LoadSite + agentready.New: %v", err)
			}
		})
	}
	if good < 8 || len(files)-good < 20 {
		t.Errorf("%d good files and %d broken: the table should hold both", good, len(files)-good)
	}
}

// assertSortedByLine: lint's problems come by line (those without one
// first).
func assertSortedByLine(t *testing.T, out string) {
	t.Helper()
	last := 0
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var n int
		_, rest, ok := strings.Cut(l, ":")
		if !ok {
			continue
		}
		if _, err := fmt.Sscanf(rest, "%d:", &n); err != nil {
			n = 0
		}
		if n < last {
			t.Errorf("line %d after line %d:\n%s", n, last, out)
		}
		last = n
	}
}

// TestVerdictSchema: site.schema.json agrees with lint on every file of
// the table, but for the documented exceptions, in two validators: Ajv
// (npm, JSON Schema 2020-12, YAML read as YAML 1.2 core) and
// santhosh-tekuri/jsonschema (Go). Ajv needs node and testdata/ajv's
// node_modules: without them it is skipped, unless
// AGENTREADY_REQUIRE_UPSTREAMS=1.
func TestVerdictSchema(t *testing.T) {
	files := verdictFiles(t)
	lintOK := map[string]bool{}
	for _, f := range files {
		lintOK[f] = run([]string{"lint", f}, io.Discard, io.Discard) == 0
	}
	for name, verdict := range schemaVerdicts(t, files) {
		t.Run(name, func(t *testing.T) {
			for _, f := range files {
				tc := verdicts[filepath.Base(f)]
				got := verdict[f]
				switch {
				case tc.schemaCannot != "" && (lintOK[f] || !got.valid):
					t.Errorf("%s: listed as an exception (%s), but lint %v and the schema %v: remove the exception", f, tc.schemaCannot, lintOK[f], got.valid)
				case tc.schemaCannot == "" && got.valid != lintOK[f]:
					t.Errorf("%s: the schema says valid=%v, lint %v: %v", f, got.valid, lintOK[f], got.errors)
				}
			}
		})
	}
}

type schemaResult struct {
	valid  bool
	errors []string
}

// schemaVerdicts validates files against config/site.schema.json with
// each validator available: by validator, by file.
func schemaVerdicts(t *testing.T, files []string) map[string]map[string]schemaResult {
	t.Helper()
	out := map[string]map[string]schemaResult{"jsonschema": goSchemaVerdicts(t, files)}
	if why := ajvMissing(); why != "" {
		if os.Getenv(envRequireUpstreams) == "1" {
			t.Fatalf("Ajv cannot run: %s", why)
		}
		t.Logf("Ajv skipped: %s", why)
		return out
	}
	out["ajv"] = ajvVerdicts(t, files)
	return out
}

const schemaFile = "../../config/site.schema.json"

func goSchemaVerdicts(t *testing.T, files []string) map[string]schemaResult {
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	sch, err := c.Compile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	res := map[string]schemaResult{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var x any
		if err := yaml.Unmarshal(b, &x); err != nil {
			res[f] = schemaResult{errors: []string{err.Error()}}
			continue
		}
		j, err := json.Marshal(x) // a YAML timestamp becomes its RFC 3339 string
		if err != nil {
			t.Fatal(err)
		}
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(j))
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(inst); err != nil {
			res[f] = schemaResult{errors: []string{err.Error()}}
		} else {
			res[f] = schemaResult{valid: true}
		}
	}
	return res
}

// ajvMissing says what is not installed to run Ajv, "" when all is.
func ajvMissing() string { return testtools.NodePackage("testdata/ajv", "ajv") }

func ajvVerdicts(t *testing.T, files []string) map[string]schemaResult {
	args := []string{"testdata/ajv/validate.mjs", schemaFile}
	cmd := exec.Command("node", append(args, files...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node validate.mjs: %v\n%s", err, stderr.String())
	}
	res := map[string]schemaResult{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var r struct {
			File   string   `json:"file"`
			Valid  bool     `json:"valid"`
			Errors []string `json:"errors"`
		}
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("validate.mjs printed %q: %v", l, err)
		}
		res[r.File] = schemaResult{valid: r.Valid, errors: r.Errors}
	}
	if len(res) != len(files) {
		t.Fatalf("Ajv reported %d files of %d", len(res), len(files))
	}
	return res
}

// TestSchemaValues: site.schema.json's patterns and enums agree with lint
// value by value: path patterns (pathpattern.Check), rates (ParseRate),
// durations, site URLs, agent names, trusted proxies, capability IDs in
// each dialect and methods, each written into a good file.
func TestSchemaValues(t *testing.T) {
	const base = "name: Shop\nurl: %s\ndescription: Gear\n%simplicit_access: ai-agents\ncapabilities:\n  - id: %s\n    description: Search\n    endpoint: https://shop.example/api/search\n    method: %s\n    rate_limit: %s\nsession:\n  ttl: %s\nagents:\n  - name: %s\naccess:\n  disallow: [%s]\nserve:\n  trusted_proxies: [%s]\n"
	type values struct{ url, dialect, id, method, rate, ttl, agent, pattern, proxy string }
	good := values{"https://shop.example", "", "search", "GET", "60/minute", "30m", "GPTBot", "/admin", "10.0.0.0/8"}
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	file := func(v values) string {
		return fmt.Sprintf(base, q(v.url), v.dialect, q(v.id), q(v.method), q(v.rate), q(v.ttl), q(v.agent), q(v.pattern), q(v.proxy))
	}
	var cases []values
	for _, p := range []string{"/admin/*", "*.pdf$", "/a$b", "/a#b", "admin", "/a%2Fb", "/a%2fb", "/a%zz", "/a%2", "/a%41", "/a//b",
		"/a/?x//y", "/./a", "/a/../b", "/a/%2e%2E/b", "/.well-known/x", "/a/.../b", `/a\b`, `/a?x=\`, "/a%3Bb", "/a%3bb", "/a%24", "/a%2A",
		"/a b", "/a\u00a0b", "/a%00", "/a%7F", "/a$", "/a/.$", "/a?b$", "/", "*", "/a/..x", "/a\u2028b"} {
		v := good
		v.pattern = p
		cases = append(cases, v)
	}
	for _, r := range []string{"60/min", "10/S", "+5/h", "0/minute", "60/fortnight", " 60 / Minute ", "5/days", "007/d", "-1/minute", "1.5/minute", "minute", "60/"} {
		v := good
		v.rate = r
		cases = append(cases, v)
	}
	for _, d := range []string{"1h", "90s", "1h30m", "1.5m", "1 hour", "30", "1d", "2H"} {
		v := good
		v.ttl = d
		cases = append(cases, v)
	}
	for _, u := range []string{"HTTPS://shop.example", "http://localhost:8080", "http://127.0.0.1", "http://[::1]:80", "http://shop.example",
		"ftp://shop.example", "https://", "http://localhost.evil.example", "shop.example", "http://LOCALHOST",
		// Credentials in a URL (issue 33), and what is not one.
		"https://shop.example/?access_token=x", "https://shop.example/#a=1&Id-Token=x", "https://shop.example/?a=1;auth=x",
		"https://u@shop.example", "https://shop.example/k/sk_live_AbCdEfGh12345678XyZ", "https://shop.example/#eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln",
		"https://shop.example/#token", "https://shop.example/?id=8f14e45fceea167a5a36dedd4bea2543", "https://shop.example/blog/sk-hynix-earnings-report-2024",
		"https://shop.example/?author=a&keyword=b"} {
		v := good
		v.url = u
		cases = append(cases, v)
	}
	for _, a := range []string{"Claude-User", "*", "Google*", "Mozilla/5.0", "a b", "x_y.z~", "é"} {
		v := good
		v.agent = a
		cases = append(cases, v)
	}
	for _, p := range []string{"192.0.2.7", "::1", "2001:db8::/32", "10.0.0.0/33", "010.0.0.1", "host.example", "fe80::1%eth0", "10.0.0.256"} {
		v := good
		v.proxy = p
		cases = append(cases, v)
	}
	for _, id := range []string{"a-b", "-a", "A", "a.b", "a,b"} {
		v := good
		v.id = id
		cases = append(cases, v)
	}
	for _, id := range []string{"a.b", "a_b", "1a", "a-b", "search"} {
		v := good
		v.id, v.dialect = id, "dialect: v0.1.0\n"
		cases = append(cases, v)
	}
	for _, m := range []string{"get", "POST", "Delete", "PURGE", "GE T"} {
		v := good
		v.method = m
		cases = append(cases, v)
	}
	dir := t.TempDir()
	var files []string
	lintOK := map[string]bool{}
	for i, v := range append([]values{good}, cases...) {
		f := filepath.Join(dir, fmt.Sprintf("v%03d.yaml", i))
		if err := os.WriteFile(f, []byte(file(v)), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
		lintOK[f] = run([]string{"lint", f}, io.Discard, io.Discard) == 0
	}
	if !lintOK[files[0]] {
		var out bytes.Buffer
		run([]string{"lint", files[0]}, &out, &out)
		t.Fatalf("the good file is refused:\n%s", out.String())
	}
	refused := 0
	for _, ok := range lintOK {
		if !ok {
			refused++
		}
	}
	if refused < len(files)/3 || refused > 2*len(files)/3 {
		t.Errorf("lint refuses %d of %d values: the cases should hold both", refused, len(files))
	}
	for name, verdict := range schemaVerdicts(t, files) {
		for _, f := range files {
			if got := verdict[f]; got.valid != lintOK[f] {
				b, _ := os.ReadFile(f)
				t.Errorf("%s: the schema says valid=%v, lint %v, for\n%s%v", name, got.valid, lintOK[f], b, got.errors)
			}
		}
	}
}
