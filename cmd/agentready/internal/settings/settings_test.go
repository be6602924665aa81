package settings_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/agentready/agentready/cmd/agentready/internal/settings"
	"github.com/agentready/agentready/config"
)

// TestParseUpstream: "upstream" is a key beside the Site's, read by
// Parse (lint, serve and New read one format), its mistakes reported
// with their lines like any other, and the Site's field paths unchanged
// by it. (config's TestParseFileUpstream before issue 34.)
func TestParseUpstream(t *testing.T) {
	src := "name: x\nurl: https://x.example\nupstream:\n  strict: true\ncapabilities:\n  - id: a\n"
	f, lines, err := settings.Parse([]byte(src))
	if err != nil || !f.Upstream.Strict || f.Name != "x" || len(f.Capabilities) != 1 {
		t.Fatalf("%+v %v", f, err)
	}
	if lines["Capabilities[0].ID"] != 6 || lines["Upstream.Strict"] != 4 {
		t.Errorf("lines: %v", lines)
	}
	if f, _, err := settings.Parse([]byte("name: x\n")); err != nil || f.Upstream.Strict {
		t.Errorf("no upstream key: %+v %v", f.Upstream, err)
	}
	for src, want := range map[string]string{
		"name: x\nupstream:\n  strict: yes\n":              `line 3: upstream.strict: "yes" is not a bool`,
		"name: x\nupstream:\n  method_overrides: body\n":   `line 3: upstream.method_overrides: "body": want "any"`,
		"name: x\nupstream:\n  path_parameters: servlet\n": `line 3: upstream.path_parameters: "servlet": want "stripped"`,
		"name: x\nserve:\n  a2a_version: \"0.2\"\n":        `line 3: serve.a2a_version: "0.2": want "1.0"`,
		"name: x\nupstream:\n  strcit: true\n":             `line 3: upstream: unknown key "strcit" (keys: strict, path_parameters, method_overrides)`,
		"name: x\nupstream: true\n":                        `line 2: upstream: want a mapping`,
		"name: x\nupstream: {}\nupstream: {}\n":            `key "upstream" is already set on line 2`,
		"name: x\nsite:\n  name: y\n":                      `unknown key "site"`,
	} {
		if _, _, err := settings.Parse([]byte(src)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", src, err, want)
		}
	}
}

// TestParseServe: serve's values are typed as the Site's are, a trusted
// proxy is what agentready.WithClients reads, and a bad one is left out.
// (config's TestParseSiteTypes before issue 34.)
func TestParseServe(t *testing.T) {
	const head = "name: x\nurl: https://x.example\n"
	for src, want := range map[string]string{
		head + "serve: {robots: yes}\n":                        `line 3: serve.robots: "yes" is not a bool`,
		head + "serve:\n  trusted_proxies: [10.0.0.1, nope]\n": `line 4: serve.trusted_proxies[1]: "nope": not an IP address or CIDR`,
		head + "serve: {tokens: x}\n":                          `line 3: serve: unknown key "tokens" (keys: trusted_proxies, trust_all_proxies, hosts, robots, report_only, audit_key_file, tokens_file, tokens_env, hmac_keys_file, a2a_version)`,
		head + "serve:\n":                                      `line 3: serve: has no value`,
	} {
		if _, _, err := settings.Parse([]byte(src)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", src, err, want)
		}
	}
	f, _, err := settings.Parse([]byte(head + "serve:\n  trusted_proxies: [10.0.0.1, nope, \"::1\"]\n"))
	if err == nil || !slices.Equal(f.Serve.TrustedProxies, []string{"10.0.0.1", "::1"}) {
		t.Errorf("a bad proxy is left out: %q %v", f.Serve.TrustedProxies, err)
	}
	src := head + "dialect: v0.1.0\nimplicit_access: all-agents\nserve:\n  trusted_proxies: [10.0.0.0/8, \"::1\"]\n  robots: true\n  report_only: false\n  audit_key_file: k\n"
	f, lines, err := settings.Parse([]byte(src))
	if err != nil || !f.Serve.Robots || f.Serve.AuditKeyFile != "k" || len(f.Serve.TrustedProxies) != 2 || f.ImplicitAccess != "all-agents" {
		t.Errorf("%q: %+v %v", src, f, err)
	}
	if lines["Serve.AuditKeyFile"] != 9 || lines["Serve.TrustedProxies[1]"] != 6 {
		t.Errorf("lines: %v", lines)
	}
}

// TestKeys: the yaml names of Upstream and Serve are the keys Parse
// reads: a file written with them sets every field, as yaml.v3 reads it.
func TestKeys(t *testing.T) {
	var b strings.Builder
	b.WriteString("name: x\n")
	for _, section := range []reflect.StructField{field(t, "Upstream"), field(t, "Serve")} {
		fmt.Fprintf(&b, "%s:\n", section.Tag.Get("yaml"))
		for _, f := range reflect.VisibleFields(section.Type) {
			v := map[reflect.Kind]string{reflect.Bool: "true", reflect.String: `"literal"`, reflect.Slice: `["10.0.0.1"]`}[f.Type.Kind()]
			switch f.Name {
			case "A2AVersion":
				v = `"0.3"` // one of the two versions
			case "MethodOverrides":
				v = `"none"` // one of the two values
			}
			if v == "" {
				t.Fatalf("%s.%s: a %s: extend the test", section.Name, f.Name, f.Type)
			}
			fmt.Fprintf(&b, "  %s: %s\n", f.Tag.Get("yaml"), v)
		}
	}
	got, _, err := settings.Parse([]byte(b.String()))
	if err != nil {
		t.Fatalf("%s\n%v", b.String(), err)
	}
	var want settings.File
	if err := yaml.Unmarshal([]byte(b.String()), &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Upstream, want.Upstream) || !reflect.DeepEqual(got.Serve, want.Serve) {
		t.Errorf("Parse: %+v %+v\nyaml.v3: %+v %+v", got.Upstream, got.Serve, want.Upstream, want.Serve)
	}
	for _, v := range []any{got.Upstream, got.Serve} {
		rv := reflect.ValueOf(v)
		for i := range rv.NumField() {
			if rv.Field(i).IsZero() {
				t.Errorf("%s.%s is not set by its yaml name", rv.Type().Name(), rv.Type().Field(i).Name)
			}
		}
	}
}

func field(t *testing.T, name string) reflect.StructField {
	f, ok := reflect.TypeFor[settings.File]().FieldByName(name)
	if !ok {
		t.Fatalf("no File.%s", name)
	}
	return f
}

// FuzzParse: Parse and config.ParseSite read one format. Where Parse
// takes a file, ParseSite takes it too, as the same Site; where ParseSite
// takes a file Parse refuses, every problem is in serve's keys (upstream,
// serve), which ParseSite leaves out. Neither panics.
func FuzzParse(f *testing.F) {
	seeds, _ := filepath.Glob("../../testdata/verdict/*.yaml")
	for _, name := range seeds {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("name: x\nserve: &s {robots: true}\nupstream: *s\n"))
	f.Add([]byte("name: x\nupstream: {strict: yes, path_parameters: servlet}\nserve:\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, _, err := settings.Parse(data)
		site, _, siteErr := config.ParseSite(data)
		switch {
		case err == nil && siteErr != nil:
			t.Fatalf("Parse takes it, ParseSite refuses it: %v", siteErr)
		case err == nil && !reflect.DeepEqual(file.Site, site):
			t.Fatalf("two Sites:\n%+v\n%+v", file.Site, site)
		case err != nil && siteErr == nil && !strings.Contains(err.Error(), "expands to more than"):
			// (An expansion limit reached within serve's keys may be
			// reported at a key of the Site's decoded after them.)
			for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
				var fe *config.FileError
				if !errors.As(e, &fe) || !inServeKeys(fe.Field) {
					t.Fatalf("ParseSite takes it, Parse refuses it outside serve's keys: %v", e)
				}
			}
		}
	})
}

func inServeKeys(field string) bool {
	for _, k := range []string{"upstream", "serve"} {
		if rest, ok := strings.CutPrefix(field, k); ok && (rest == "" || rest[0] == '.' || rest[0] == '[') {
			return true
		}
	}
	return false
}
