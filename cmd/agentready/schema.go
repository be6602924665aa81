package main

import (
	"flag"
	"fmt"
	"io"
	"reflect"

	"github.com/agentready/agentready/cmd/agentready/internal/settings"
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/publish"
	"github.com/agentready/agentready/internal/schemagen"
)

// schema prints the JSON Schema of a declaration file
// (config/site.schema.json), for editors: it refuses what lint refuses,
// save the cross references JSON Schema cannot express (a capability ID
// named in agents[].capabilities must be declared, IDs and names are
// unique).
func schema(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("schema", flag.ContinueOnError)
	rest, code := parseArgs(fs, args, stdout, stderr)
	if code >= 0 {
		return code
	}
	if len(rest) != 0 {
		fmt.Fprintf(stderr, "agentready schema: takes no arguments\n\n%s", usage)
		return 2
	}
	b, err := fileSchema()
	if err != nil {
		fmt.Fprintf(stderr, "agentready schema: %v\n", err)
		return 1
	}
	stdout.Write(append(b, '\n'))
	return 0
}

// fileSchema is the JSON Schema of a declaration file (publish.FileSchema)
// generated from settings.File: the Site's part and serve's, its keys'
// types and validate tags and the rules here, stated once
// (docs/design.md, "Architecture").
func fileSchema() ([]byte, error) {
	// octet is a decimal IPv4 octet as netip.ParseAddr reads it.
	const octet = `(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])`
	rules := map[string]map[string]any{
		// An IPv4 address or CIDR (netip: no leading zeros), or what may be
		// an IPv6 one (clientip.ParsePrefix decides).
		"Serve.TrustedProxies[]": {"pattern": `^(?:` + octet + `\.` + octet + `\.` + octet + `\.` + octet + `(?:/(?:3[0-2]|[12]?[0-9]))?|[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*(?:/(?:12[0-8]|1[01][0-9]|[1-9]?[0-9]))?)$`},
	}
	// needs is a rule of the whole file: where the Site says cond, serve
	// names a file (Parse and agentready.New refuse the Site without it).
	needs := func(cond map[string]any, key string) map[string]any {
		return map[string]any{"if": cond, "then": schemagen.Has("serve", schemagen.Has(key, map[string]any{"minLength": 1}))}
	}
	is := func(v any) map[string]any { return map[string]any{"const": v} }
	return publish.FileSchema(reflect.TypeFor[settings.File](), rules, []any{
		// An hmac capability needs the keys its requests are signed with.
		needs(schemagen.Has("capabilities", map[string]any{"contains": schemagen.Has("auth", schemagen.Has("type", is(config.AuthHMAC)))}), "hmac_keys_file"),
		// An audit trail needs the key that signs it.
		needs(schemagen.Has("audit", schemagen.Has("enabled", is(true))), "audit_key_file"),
	})
}
