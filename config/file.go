package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/agentready/agentready/internal/clientip"
)

// A declaration file is a Site written in YAML or JSON (JSON is read as
// the YAML 1.2 it is), every key the snake_case form of the Go field name
// (fileKey): rate_limit, token_endpoint, requires_session, agents_json_url.
// Rates are written "60/minute", durations "30m", times RFC 3339, the
// dialect "draft-car" or "v0.1.0". Values are typed as JSON types them: a
// string written as a number (name: 42) is quoted, booleans are true and
// false, and a key is given a value or left out. A key that names no field
// is an error, as is a value of the wrong type; every problem is reported
// at once, each with its line. Beside the Site's keys, "upstream" and
// "serve" hold what agentready serve runs with. site.schema.json, beside
// this file, is the JSON Schema of the format (generated from the types by
// TestSiteSchema).
//
//	name: Outdoor Supply Co.
//	url: https://outdoorsupply.example
//	implicit_access: ai-agents   # no access rules: who the default binds
//	capabilities:
//	  - id: product-search
//	    description: Search the catalog
//	    endpoint: https://outdoorsupply.example/api/search
//	    rate_limit: 60/minute
//	agents:
//	  - name: claude
//	    rate_limit: 200/minute
//	serve:
//	  trusted_proxies: [10.0.0.0/8]

// FileError is one problem of a declaration file.
type FileError struct {
	Line int // 0 when unknown
	// Field is the path of the key as the file writes it:
	// "capabilities[1].rate_limit" for FieldError's
	// "Capabilities[1].RateLimit".
	Field string
	Msg   string // values and keys spelled as in the file
	// value marks a value that could not be decoded (not a key's
	// problem): Locate leaves out Validate's problems within it.
	value bool
}

func (e *FileError) Error() string {
	var b strings.Builder
	if e.Line > 0 {
		b.WriteString("line " + strconv.Itoa(e.Line) + ": ")
	}
	if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Lines maps the field paths of a decoded file to their lines.
type Lines map[string]int

// line returns the line of field, or of its closest enclosing field.
func (l Lines) line(field string) int {
	for f := field; f != ""; {
		if n, ok := l[f]; ok {
			return n
		}
		i := strings.LastIndexAny(f, ".[")
		if i < 0 {
			break
		}
		f = f[:i]
	}
	return 0
}

// Locate turns the problems of a Validate or agentready.New error into
// *FileErrors at their lines, in the file's spelling (filePath), and
// returns them joined with the *FileErrors of ParseSite that err holds,
// all sorted by line: give it errors.Join(the ParseSite error, the New
// error) to report every problem of a file in one pass. A problem of a
// value ParseSite could not decode is left out (that value was read as
// its zero value, and ParseSite said why); an error of another kind (an
// option's) is kept as it is, first. nil stays nil.
func (l Lines) Locate(err error) error {
	if err == nil {
		return nil
	}
	var other []error
	var decoded, validated []*FileError
	var walk func(error)
	walk = func(err error) {
		var ve *ValidationError
		switch e := err.(type) {
		case *FileError:
			decoded = append(decoded, e)
			return
		case *ValidationError:
			ve = e
		case interface{ Unwrap() []error }:
			for _, e := range e.Unwrap() {
				walk(e)
			}
			return
		default:
			if !errors.As(err, &ve) {
				other = append(other, err)
				return
			}
		}
		for _, fe := range ve.Errors {
			msg := fe.Msg
			if fe.File != "" {
				msg = fe.File
			}
			validated = append(validated, &FileError{Line: l.line(fe.Field), Field: filePath(fe.Field), Msg: msg})
		}
	}
	walk(err)
	if len(decoded) == 0 && len(validated) == 0 {
		return err
	}
	all := decoded
	for _, v := range validated {
		if !undecoded(decoded, v.Field) {
			all = append(all, v)
		}
	}
	slices.SortStableFunc(all, func(a, b *FileError) int { return a.Line - b.Line })
	for _, fe := range all {
		other = append(other, fe)
	}
	return errors.Join(other...)
}

// undecoded reports whether field is, or is within, a value that one of
// errs says could not be decoded.
func undecoded(errs []*FileError, field string) bool {
	for _, e := range errs {
		if !e.value {
			continue
		}
		if f := e.Field; field == f || f == "" ||
			strings.HasPrefix(field, f) && (field[len(f)] == '.' || field[len(f)] == '[') {
			return true
		}
	}
	return false
}

// file is a declaration file: the Site, and the settings only agentready
// serve reads (the middleware has no upstream). Its keys are the Site's,
// "upstream" and "serve", which ParseSite checks and leaves out, and
// cmd/agentready reads.
type file struct {
	Site
	// Upstream is what agentready serve assumes of the site it proxies.
	Upstream upstream
	// Serve is how agentready serve runs.
	Serve serve
}

// serve holds the settings of agentready serve that are not the
// declaration's: each is also a flag of serve, and a flag given on the
// command line wins over the file.
type serve struct {
	// TrustedProxies (-trusted-proxies) are the proxies in front, CIDRs or
	// addresses, whose X-Forwarded-For is believed
	// (agentready.Clients.TrustedProxies).
	TrustedProxies []string
	// TrustAllProxies (-trust-all-proxies) says that TrustedProxies is
	// meant to cover more than 2^24 globally routable IPv4 addresses, or
	// a globally routable IPv6 prefix shorter than /16: every client
	// there may name its own address (agentready.Clients.TrustAllProxies).
	// Without it such a list is refused.
	TrustAllProxies bool
	// Hosts (-hosts) are the hosts (host or host:port) an agent's request
	// may name besides the site URL's and the address serve listens on
	// (agentready.Clients.Hosts); another is answered 421.
	Hosts []string
	// Robots (-robots) serves /robots.txt generated from the declaration
	// (agentready.Documents.RobotsTxt).
	Robots bool
	// ReportOnly (-report-only) decides and reports, and denies nothing
	// (agentready.WithReportOnly).
	ReportOnly bool
	// AuditKeyFile names the file holding the standard base64 of the
	// 32-byte Ed25519 seed that signs the v0.1.0 audit artifacts
	// (agentready.WithAudit), required when audit.enabled is true. A
	// relative name is relative to the declaration file's directory.
	AuditKeyFile string
	// TokensFile (-tokens) names the file of the tokens serve checks
	// bearer-token and api-key capabilities with (CAPABILITY=TOKEN or
	// CAPABILITY=sha256:HEX a line), TokensEnv (-tokens-env) an
	// environment variable holding the same entries, and HMACKeysFile
	// (-hmac-keys) the file of the keys hmac capabilities' request
	// signatures are verified with (KEYID=hmac-sha256:BASE64 or
	// KEYID=ed25519:BASE64). Relative names are relative to the
	// declaration file's directory.
	TokensFile   string
	TokensEnv    string
	HMACKeysFile string
}

// upstream says how the site behind agentready serve routes a request, so
// that serve decides on every spelling the upstream may route alike.
type upstream struct {
	// Strict declares that the upstream routes a path only as it is
	// spelled: ASCII case and a trailing slash tell routes apart. Without
	// it serve assumes, as Express (case-insensitive, non-strict routing)
	// and ASP.NET do by default, that they may not, and holds the rules
	// and capability endpoints on every such spelling
	// (agentready.WithLenientRouting). Declare it only for an upstream
	// that routes "/ADMIN/users" and "/admin/users/" elsewhere than
	// "/admin/users": otherwise an agent passes a rule by changing case.
	Strict bool
	// PathParameters says how the upstream reads a ";" in a path segment:
	// "stripped" (the default), as servlet containers (Tomcat, Jetty,
	// Spring) do, removing it and what follows from the segment before
	// routing, so that serve decides "/admin;x/users" as "/admin/users"
	// too; or "literal", as data, so that serve decides on the path only
	// as sent (agentready.WithLiteralPathParameters).
	PathParameters string
}

// The values of upstream.path_parameters.
const (
	pathParamsStripped = "stripped"
	pathParamsLiteral  = "literal"
)

// ParseSite decodes a YAML or JSON file (site.schema.json; agentready serve's
// "upstream" and "serve" keys are checked and dropped). Errors are *FileError, joined. It
// does not validate: call Validate, then Lines.Locate.
func ParseSite(data []byte) (Site, Lines, error) {
	f, lines, err := parseFile(data)
	return f.Site, lines, err
}

// parseFile decodes a declaration file, with the settings of agentready
// serve.
func parseFile(data []byte) (file, Lines, error) {
	var root yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&root); err != nil {
		return file{}, nil, &FileError{Msg: "not YAML or JSON: " + err.Error(), value: true}
	}
	var second yaml.Node
	if err := dec.Decode(&second); err == nil {
		return file{}, nil, &FileError{Line: second.Line, Msg: "a second YAML document: a declaration file holds one", value: true}
	} else if err != io.EOF {
		return file{}, nil, &FileError{Msg: "after the declaration, not YAML: " + err.Error(), value: true}
	}
	// Site's fields are promoted in file: their paths (and so Validate's
	// field paths in Lines) are the Site's own.
	var f file
	d := &fileDecoder{lines: Lines{}}
	if len(root.Content) == 1 {
		d.decode(root.Content[0], reflect.ValueOf(&f).Elem(), "")
	}
	// The proxies are checked here, where their lines are known, with the
	// parser agentready.WithClients uses; a bad one is dropped.
	var ok []string
	for i, p := range f.Serve.TrustedProxies {
		if _, err := clientip.ParsePrefix(p); err != nil {
			field := at("Serve.TrustedProxies", i)
			d.errs = append(d.errs, &FileError{Line: d.lines.line(field), Field: filePath(field), Msg: fmt.Sprintf("%q: %v", p, err), value: true})
			continue
		}
		ok = append(ok, p)
	}
	f.Serve.TrustedProxies = ok
	if pp := f.Upstream.PathParameters; pp != "" && pp != pathParamsStripped && pp != pathParamsLiteral {
		field := "Upstream.PathParameters"
		d.errs = append(d.errs, &FileError{Line: d.lines.line(field), Field: filePath(field),
			Msg: fmt.Sprintf("%q: want %q (the default: a \";\" parameter is removed from a segment before routing, as servlet containers do) or %q (the upstream routes \";\" as data)", pp, pathParamsStripped, pathParamsLiteral), value: true})
	}
	return f, d.lines, errors.Join(d.errs...)
}

// LoadSite reads and decodes the declaration file at path.
func LoadSite(path string) (Site, Lines, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Site{}, nil, err
	}
	return ParseSite(b)
}
