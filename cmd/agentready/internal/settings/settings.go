// Package settings reads a declaration file as agentready's commands do,
// in one decoding (config.ParseFile): the config.Site, and beside it the
// keys that are agentready serve's own, upstream and serve, which the
// library's config.ParseSite accepts and leaves out.
package settings

import (
	"errors"
	"fmt"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/clientip"
)

// File is a declaration file: the Site's keys, upstream and serve. The
// yaml names are the keys config.ParseFile reads (the snake_case of the
// field names; TestKeys holds them equal), for the schema's generator;
// the validate tags are the rules Parse checks.
type File struct {
	config.Site `yaml:",inline"`
	// Upstream is what agentready serve assumes of the site it proxies.
	Upstream Upstream `yaml:"upstream"`
	// Serve is how agentready serve runs.
	Serve Serve `yaml:"serve"`
}

// Serve holds the settings of agentready serve that are not the
// declaration's: each is also a flag of serve, and a flag given on the
// command line wins over the file.
type Serve struct {
	// TrustedProxies (-trusted-proxies) are the proxies in front, CIDRs or
	// addresses, whose X-Forwarded-For is believed
	// (agentready.Clients.TrustedProxies). Parse refuses what
	// clientip.ParsePrefix, which agentready.WithClients uses, refuses.
	TrustedProxies []string `yaml:"trusted_proxies"`
	// TrustAllProxies (-trust-all-proxies) says that TrustedProxies is
	// meant to cover more than 2^24 globally routable IPv4 addresses, or
	// a globally routable IPv6 prefix shorter than /16: every client
	// there may name its own address (agentready.Clients.TrustAllProxies).
	// Without it such a list is refused.
	TrustAllProxies bool `yaml:"trust_all_proxies"`
	// Hosts (-hosts) are the hosts (host or host:port) an agent's request
	// may name besides the site URL's and the address serve listens on
	// (agentready.Clients.Hosts); another is answered 421.
	Hosts []string `yaml:"hosts"`
	// Robots (-robots) serves /robots.txt generated from the declaration
	// (agentready.Documents.RobotsTxt).
	Robots bool `yaml:"robots"`
	// ReportOnly (-report-only) decides and reports, and denies nothing
	// (agentready.WithReportOnly).
	ReportOnly bool `yaml:"report_only"`
	// AuditKeyFile names the file holding the standard base64 of the
	// 32-byte Ed25519 seed that signs the v0.1.0 audit artifacts
	// (agentready.WithAudit), required when audit.enabled is true. A
	// relative name is relative to the declaration file's directory.
	AuditKeyFile string `yaml:"audit_key_file"`
	// TokensFile (-tokens) names the file of the tokens serve checks
	// bearer-token and api-key capabilities with (CAPABILITY=TOKEN or
	// CAPABILITY=sha256:HEX a line), TokensEnv (-tokens-env) an
	// environment variable holding the same entries, and HMACKeysFile
	// (-hmac-keys) the file of the keys hmac capabilities' request
	// signatures are verified with (KEYID=hmac-sha256:BASE64 or
	// KEYID=ed25519:BASE64). Relative names are relative to the
	// declaration file's directory.
	TokensFile   string `yaml:"tokens_file"`
	TokensEnv    string `yaml:"tokens_env"`
	HMACKeysFile string `yaml:"hmac_keys_file"`
	// A2AVersion (-a2a-version) is the version of the A2A agent card at
	// /.well-known/agent-card.json (agentready.Documents.A2AVersion):
	// "1.0" (the default) or "0.3", for the clients that read only v0.3
	// cards (a2a-go v0.3.3 finds no transport in a v1.0 card).
	A2AVersion string `yaml:"a2a_version" validate:"omitempty,oneof=1.0 0.3"`
}

// The values of Serve.A2AVersion, those of the cards package
// (cards.A2AVersion10, cards.A2AVersion03).
const (
	A2AVersion10 = "1.0"
	A2AVersion03 = "0.3"
)

// CheckA2AVersion refuses an A2A card version agentready does not
// publish; "" is the default, 1.0.
func CheckA2AVersion(v string) error {
	if v != "" && v != A2AVersion10 && v != A2AVersion03 {
		return fmt.Errorf("%q: want %q (the default, A2A v1.0.1) or %q (A2A v0.3.0, for clients not yet on 1.0)", v, A2AVersion10, A2AVersion03)
	}
	return nil
}

// Upstream says how the site behind agentready serve routes a request, so
// that serve decides on every spelling the upstream may route alike.
type Upstream struct {
	// Strict declares that the upstream routes a path only as it is
	// spelled: ASCII case and a trailing slash tell routes apart. Without
	// it serve assumes, as Express (case-insensitive, non-strict routing)
	// and ASP.NET do by default, that they may not, and holds the rules
	// and capability endpoints on every such spelling
	// (agentready.WithLenientRouting). Declare it only for an upstream
	// that routes "/ADMIN/users" and "/admin/users/" elsewhere than
	// "/admin/users": otherwise an agent passes a rule by changing case.
	Strict bool `yaml:"strict"`
	// PathParameters says how the upstream reads a ";" in a path segment:
	// "stripped" (the default), as servlet containers (Tomcat, Jetty,
	// Spring) do, removing it and what follows from the segment before
	// routing, so that serve decides "/admin;x/users" as "/admin/users"
	// too; or "literal", as data, so that serve decides on the path only
	// as sent (agentready.WithLiteralPathParameters).
	PathParameters string `yaml:"path_parameters" validate:"omitempty,oneof=stripped literal"`
	// MethodOverrides says whether the upstream may route a request as
	// the method a _method field of its body names: "any" (the default),
	// as Rails, Laravel and Express's method-override can, or "none". It
	// matters only to serve's forward-auth listener, which decides on a
	// subrequest that carries no body: without "none" it refuses an
	// agent's request whose body could carry an override it must read
	// (docs/forward-auth.md).
	MethodOverrides string `yaml:"method_overrides" validate:"omitempty,oneof=any none"`
}

// The values of Upstream.PathParameters.
const (
	PathParamsStripped = "stripped"
	PathParamsLiteral  = "literal"
)

// The values of Upstream.MethodOverrides.
const (
	MethodOverridesAny  = "any"
	MethodOverridesNone = "none"
)

// Parse decodes a declaration file, the Site and serve's keys at once, and
// checks serve's values config.ParseFile cannot (a trusted proxy, the
// path parameters' reading); a trusted proxy refused is left out. Errors
// are *config.FileError, joined, as ParseFile's; the Lines are by Go
// field path ("Serve.Hosts").
func Parse(data []byte) (File, config.Lines, error) {
	var f File
	lines, err := config.ParseFile(data, &f)
	var errs []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	} else if err != nil {
		errs = []error{err}
	}
	// The proxies are checked here, where their lines are known, with the
	// parser agentready.WithClients uses.
	var ok []string
	for i, p := range f.Serve.TrustedProxies {
		if _, err := clientip.ParsePrefix(p); err != nil {
			errs = append(errs, &config.FileError{Line: lines[fmt.Sprintf("Serve.TrustedProxies[%d]", i)],
				Field: fmt.Sprintf("serve.trusted_proxies[%d]", i), Msg: fmt.Sprintf("%q: %v", p, err)})
			continue
		}
		ok = append(ok, p)
	}
	f.Serve.TrustedProxies = ok
	if pp := f.Upstream.PathParameters; pp != "" && pp != PathParamsStripped && pp != PathParamsLiteral {
		errs = append(errs, &config.FileError{Line: lines["Upstream.PathParameters"], Field: "upstream.path_parameters",
			Msg: fmt.Sprintf("%q: want %q (the default: a \";\" parameter is removed from a segment before routing, as servlet containers do) or %q (the upstream routes \";\" as data)", pp, PathParamsStripped, PathParamsLiteral)})
	}
	if mo := f.Upstream.MethodOverrides; mo != "" && mo != MethodOverridesAny && mo != MethodOverridesNone {
		errs = append(errs, &config.FileError{Line: lines["Upstream.MethodOverrides"], Field: "upstream.method_overrides",
			Msg: fmt.Sprintf("%q: want %q (the default: the upstream may route a POST as the method a _method field of its body names) or %q (it honours no override in a body)", mo, MethodOverridesAny, MethodOverridesNone)})
		f.Upstream.MethodOverrides = ""
	}
	if err := CheckA2AVersion(f.Serve.A2AVersion); err != nil {
		errs = append(errs, &config.FileError{Line: lines["Serve.A2AVersion"], Field: "serve.a2a_version", Msg: err.Error()})
		f.Serve.A2AVersion = ""
	}
	return f, lines, errors.Join(errs...)
}
