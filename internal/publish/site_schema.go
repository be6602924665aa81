package publish

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/fieldcheck"
	"github.com/agentready/agentready/internal/httpsyntax"
	"github.com/agentready/agentready/internal/schemagen"
)

// FileSchema is the JSON Schema (2020-12) of a declaration file of type
// file, a struct named File that embeds config.Site beside a program's
// own keys (agentready serve's settings.File): every struct a closed
// object of its snake_case keys, rates, durations and times as the
// strings config.ParseSite reads, the validate tags' rules (required,
// oneof, min, max), the Site's rules (siteRules, siteFileRules,
// agentPolicyRules), every format's (discovery.Format.Schema), whose
// rules apply to a file since every document is published from one, and
// the program's own, rules by "Type.Field" as schemagen.Generator.Rules
// and fileRules of the whole file. config/site.schema.json is its golden
// copy; agentready schema prints it. Patterns are written for both
// ECMA-262 and RE2 (no lookaround; a forbidden form is a "not").
func FileSchema(file reflect.Type, rules map[string]map[string]any, fileRules []any) ([]byte, error) {
	if file.Kind() != reflect.Struct || file.Name() != "File" {
		return nil, fmt.Errorf("publish: a declaration file's type is a struct named File, not %v", file)
	}
	all := siteRules()
	maps.Copy(all, rules)
	g := &schemagen.Generator{
		Key: func(f reflect.StructField) string { return fieldcheck.Key(f.Name) },
		Types: map[reflect.Type]map[string]any{
			reflect.TypeFor[time.Duration]():   {"type": "string", "pattern": durationPattern, "description": "a duration: 30s, 30m, 1h"},
			reflect.TypeFor[time.Time]():       {"type": "string", "format": "date-time"},
			reflect.TypeFor[json.RawMessage](): {},
			reflect.TypeFor[config.Rate]():     {"type": "string", "pattern": ratePattern(), "description": "N/window: 60/minute (second, minute, hour or day)"},
			reflect.TypeFor[config.Dialect]():  {"type": "string"},
		},
		Rules: all,
		Defs:  map[string]any{},
	}
	var allOf []any
	for _, f := range Formats {
		part := f.Schema()
		for k, r := range part.Fields {
			m := maps.Clone(all[k]) // a format's keywords after config's
			if m == nil {
				m = map[string]any{}
			}
			maps.Copy(m, r)
			all[k] = m
		}
		allOf = append(allOf, part.File...)
	}
	root := g.Of(file)
	if u := g.Unused(); len(u) > 0 {
		return nil, fmt.Errorf("publish: rules of no field of the file: %v", u)
	}
	g.Defs["File"].(map[string]any)["allOf"] = append(append(allOf, siteFileRules()...), fileRules...)
	g.Defs["AgentPolicy"].(map[string]any)["allOf"] = agentPolicyRules()
	g.Defs["Auth"].(map[string]any)["allOf"] = authRules()
	g.Defs["CredentialURL"] = credentialURL()
	return schemagen.Document("https://github.com/agentready/agentready/config/site.schema.json",
		"agentready declaration file (a config.Site and the settings of agentready serve)",
		"A site's declaration for agentready, in YAML or JSON; see config.ParseSite. agentready lint FILE decides on it as agentready serve does.",
		root, g.Defs)
}

// Patterns shared by several fields.
const (
	// durationPattern is what time.ParseDuration reads.
	durationPattern = `^[-+]?(?:0|(?:(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:ns|us|µs|μs|ms|s|m|h))+)$`
	// policyNamePattern is a User-Agent product token without "*" (RFC 9110
	// 5.6.2 tchar), or "*" alone (the dialects' agents rule, internal/publish/agentstxt).
	policyNamePattern = `^(?:\*|[!#$%&'+.^_\x60|~0-9A-Za-z-]+)$`
)

// ratePattern is what ParseRate reads: N/window, the window's spellings
// in any case.
func ratePattern() string {
	var ws []string
	for _, w := range []string{"s", "sec", "second", "seconds", "m", "min", "minute", "minutes", "h", "hr", "hour", "hours", "d", "day", "days"} {
		ws = append(ws, schemagen.AnyCase(w))
	}
	return `^\s*\+?0*[1-9][0-9]*\s*/\s*(?:` + strings.Join(ws, "|") + `)\s*$`
}

// pathPattern is pathpattern.Check's rule for an Access or usage path
// pattern: the characters (no control character, white space or "#"),
// the start ("/" or "*"), and, as "not" forms, "$" before the end, a "%"
// that starts no escape, and in the path part (before "?") "//", a
// backslash, escapes agentready refuses in request paths and dot
// segments. maxLength counts characters where Check counts bytes.
func pathPattern() map[string]any {
	// unicode.IsControl and unicode.IsSpace: C0, DEL and C1, and the
	// spaces above them.
	const bad = "\\x00-\\x20\\x7f-\\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000#"
	return map[string]any{
		"minLength": 1,
		"maxLength": 2048,
		"pattern":   "^[/*][^" + bad + "]*$",
		"not": map[string]any{"anyOf": []any{
			map[string]any{"pattern": `\$.`},
			map[string]any{"pattern": `%(?:[^0-9A-Fa-f]|[0-9A-Fa-f][^0-9A-Fa-f]|[0-9A-Fa-f]?$)`},
			map[string]any{"pattern": `^[^?]*//`},
			map[string]any{"pattern": `^[^?]*\\`},
			map[string]any{"pattern": `^[^?]*%(?:2[fF]|5[cC]|[01][0-9A-Fa-f]|7[fF]|2[16789bBcC]|3[aAbBdD]|40)`},
			map[string]any{"pattern": `^[^?]*/(?:\.|%2[eE]){1,2}(?:/|\?|\$$|$)`},
		}},
	}
}

// authRules are config's rule of a JWT's auth (validate_capability.go):
// jwt or an audience needs an oauth2 or bearer-token type and the
// authorization server whose keys verify the token.
func authRules() []any {
	verifies := map[string]any{"anyOf": []any{
		map[string]any{"required": []any{"jwt"}, "properties": map[string]any{"jwt": map[string]any{"const": true}}},
		map[string]any{"required": []any{"audience"}, "properties": map[string]any{"audience": map[string]any{"minLength": 1}}},
	}}
	return []any{map[string]any{"if": verifies, "then": map[string]any{
		"required":   []any{"type", "authorization_server"},
		"properties": map[string]any{"type": map[string]any{"enum": []any{config.AuthOAuth2, config.AuthBearerToken}}},
	}}}
}

// siteRules are the rules of single fields, by "Type.Field"; "[]" after
// the name applies them to each item of a list. They merge into what the
// type and the validate tag say.
func siteRules() map[string]map[string]any {
	pref := map[string]any{"enum": []any{"", config.Allowed, config.Denied}}
	// The purposes usage.go's check names (enforce.Purpose*).
	purpose := map[string]any{"enum": []any{"", "training-crawler", "search-crawler", "user-agent"}}
	web := fieldcheck.WebURLSchema()
	return map[string]map[string]any{
		"File.Name":           {"pattern": `\S`},
		"File.Description":    {"pattern": `^$|\S`},
		"File.URL":            web,
		"File.PrivacyPolicy":  web,
		"File.OperatesOn[]":   {"minLength": 1, "pattern": fieldcheck.WebURLPattern, "not": fieldcheck.CredentialRef},
		"File.DocsURL":        web,
		"File.AgentsJSONURL":  web,
		"File.Dialect":        {"enum": []any{config.DialectIETFDraft.String(), config.DialectV010.String()}},
		"File.ImplicitAccess": {"enum": []any{"", fieldcheck.ImplicitAll, fieldcheck.ImplicitAI}},
		// One default policy "*" (draft-car 2.7).
		"File.Agents": {"contains": map[string]any{"required": []any{"name"}, "properties": map[string]any{"name": map[string]any{"const": "*"}}},
			"minContains": 0, "maxContains": 1},
		"Access.Allow[]":                 pathPattern(),
		"Access.Disallow[]":              pathPattern(),
		"PathUsage.Path":                 pathPattern(),
		"PathUsage.Train":                pref,
		"PathUsage.Search":               pref,
		"PathUsage.AIInput":              pref,
		"Usage.Train":                    pref,
		"Usage.Search":                   pref,
		"Usage.AIInput":                  pref,
		"Usage.Use":                      {"enum": []any{"", "immediate", "reference", "full"}},
		"Usage.Vocabulary":               {"enum": []any{"", "aipref-vocab-08", "aipref-vocab-07"}},
		"Usage.UnknownPurpose":           purpose,
		"PathUsage.UnknownPurpose":       purpose,
		"AgentPolicy.Name":               {"pattern": policyNamePattern},
		"AgentPolicy.AgentDeclaration":   web,
		"Verification.Methods[]":         {"enum": []any{config.VerifySignature, config.VerifyIPRange, config.VerifyReverseDNS}},
		"Capability.Description":         {"minLength": 1},
		"Capability.ID":                  {"pattern": `^[^/]*$`}, // "/" separates a tool in grants
		"Tool.Name":                      {"pattern": fieldcheck.ToolNamePattern},
		"AgentPolicy.Capabilities[]":     {"pattern": toolGrantPattern},
		"Grant.Capabilities[]":           {"pattern": toolGrantPattern},
		"Capability.Endpoint":            {"minLength": 1, "not": fieldcheck.CredentialRef},
		"Capability.OpenAPI":             web,
		"Auth.TokenEndpoint":             web,
		"Auth.DocsURL":                   web,
		"Auth.AuthorizationServer":       web,
		"Auth.ProtectedResourceMetadata": web,
		"Auth.Header":                    {"not": rewrittenHeader()},
		"Audit.Endpoint":                 web,
		"Audit.PublicKey":                {"pattern": `^$|^[A-Za-z0-9+/]{43}=$`},
	}
}

// toolGrantPattern is an agent policy's grant: a capability ID, or
// CAPABILITY/TOOL with a tool name MCP allows (docs/mcp.md).
var toolGrantPattern = `^[^/]*(?:/` + strings.TrimPrefix(fieldcheck.ToolNamePattern, "^") + `)?$`

// credentialURL matches a URL fieldcheck.URLCredentials refuses as it is written:
// user information, a query parameter or fragment member named as a
// credential (credentialParam; a fragment member only with "="), a JSON
// Web Token, an AWS access key ID, or a known key prefix starting a word
// whose rest is long enough and mixes upper and lower case letters and
// digits (urlCredentialKind). lint also decodes percent-encoded names
// and values, which a pattern cannot.
func credentialURL() map[string]any {
	// name is a pattern of a member name that credentialParam normalises
	// to n ("-" and "_" anywhere, any case), or ends in n (suffix).
	name := func(n string, suffix bool) string {
		var parts []string
		for _, c := range n {
			parts = append(parts, schemagen.AnyCase(string(c)))
		}
		pre := "[-_]*"
		if suffix {
			pre = "[^=&;#]*"
		}
		return pre + strings.Join(parts, "[-_]*") + "[-_]*"
	}
	var names []string
	for _, n := range fieldcheck.CredentialParamNames {
		names = append(names, name(n, false))
	}
	for _, n := range fieldcheck.CredentialParamSuffixes {
		names = append(names, name(n, true))
	}
	member := "(?:" + strings.Join(names, "|") + ")"
	anyOf := []any{
		map[string]any{"pattern": `^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*@`},
		map[string]any{"pattern": `^[^?#]*\?(?:[^#]*[&;])?` + member + `(?:[=&;#]|$)`},
		map[string]any{"pattern": `#(?:.*[&;])?` + member + `=`},
		map[string]any{"pattern": fieldcheck.JWTPattern.String()},
		map[string]any{"pattern": fieldcheck.AWSKeyPattern.String()},
	}
	const word = `[A-Za-z0-9_-]`
	for _, p := range fieldcheck.KeyPrefixes {
		start := `(?:^|[^A-Za-z0-9_-])` + regexp.QuoteMeta(p.Prefix)
		anyOf = append(anyOf, map[string]any{"allOf": []any{
			map[string]any{"pattern": start + word + "{" + strconv.Itoa(p.Rest) + ",}"},
			map[string]any{"pattern": start + word + "*[A-Z]"},
			map[string]any{"pattern": start + word + "*[a-z]"},
			map[string]any{"pattern": start + word + "*[0-9]"},
		}})
	}
	return map[string]any{"anyOf": anyOf}
}

// rewrittenHeader matches an api-key header name httpsyntax.Rewritten
// refuses: Host, a hop-by-hop or forwarding field (any case, and any
// X-Forwarded-* name), or a name holding anything but letters, digits
// and "-".
func rewrittenHeader() map[string]any {
	var names []string
	for _, n := range append(append([]string{"Host"}, httpsyntax.HopByHop...), httpsyntax.ForwardingFields...) {
		names = append(names, schemagen.AnyCase(strings.ToLower(n)))
	}
	return map[string]any{"anyOf": []any{
		map[string]any{"pattern": "^(?:" + strings.Join(names, "|") + ")$"},
		map[string]any{"pattern": "^" + schemagen.AnyCase(strings.ToLower(httpsyntax.ForwardingPrefix))},
		map[string]any{"pattern": "[^A-Za-z0-9-]"},
	}}
}

// siteFileRules are the rules of a whole file that tie keys together; each
// format adds its own (discovery.Format.Schema).
func siteFileRules() []any {
	return []any{
		// Without Allow or Disallow rules, implicit_access says to whom
		// draft-car 2.6's capability-only default applies.
		map[string]any{
			"if":   map[string]any{"not": schemagen.Has("access", map[string]any{"anyOf": []any{nonEmpty("allow"), nonEmpty("disallow")}})},
			"then": nonEmptyString("implicit_access"),
		},
	}
}

// nonEmpty, nonEmptyString and isTrue are the rules that an object has a
// list with items, a string that is not empty, or true at key.
func nonEmpty(key string) map[string]any { return schemagen.Has(key, map[string]any{"minItems": 1}) }

func nonEmptyString(key string) map[string]any {
	return schemagen.Has(key, map[string]any{"minLength": 1})
}

func isTrue(key string) map[string]any { return schemagen.Has(key, map[string]any{"const": true}) }

// agentPolicyRules are the rules of one agent policy that tie its keys
// together, as validate_cross.go's verification checks them: "*" names no
// agent, so it cannot require proof and has no addresses or host names
// to check, only key directories, which need a proven grant beside them;
// a policy neither verified-only nor graded (proven) has no use for
// methods, sources or fall_back, and fall_back needs required.
func agentPolicyRules() []any {
	isDefault := schemagen.Has("name", map[string]any{"const": "*"})
	verify := func(rule map[string]any) map[string]any {
		return map[string]any{"properties": map[string]any{"verify": rule}}
	}
	sources := []any{nonEmpty("methods"), nonEmpty("signature_agents"), nonEmpty("ip_ranges"), nonEmpty("reverse_dns"), nonEmptyString("card"), isTrue("fall_back")}
	return []any{
		map[string]any{
			"if": isDefault,
			"then": verify(map[string]any{"not": map[string]any{"anyOf": []any{
				isTrue("required"), nonEmpty("methods"), nonEmpty("ip_ranges"), nonEmpty("reverse_dns"), nonEmptyString("card"), isTrue("fall_back"),
			}}}),
		},
		map[string]any{
			"if":   map[string]any{"allOf": []any{isDefault, verify(nonEmpty("signature_agents")), map[string]any{"required": []any{"verify"}}}},
			"then": map[string]any{"required": []any{"proven"}},
		},
		map[string]any{
			"if": map[string]any{"not": verify(isTrue("required")), "required": []any{"verify"}},
			"then": map[string]any{"allOf": []any{
				verify(map[string]any{"not": isTrue("fall_back")}),
				map[string]any{"anyOf": []any{
					map[string]any{"required": []any{"proven"}},
					verify(map[string]any{"not": map[string]any{"anyOf": sources}}),
				}},
			}},
		},
	}
}
