package fieldcheck

import (
	"net"
	"net/mail"
	"net/netip"
	"regexp"
	"strings"
)

// SemVer is the SemVer 2.0.0 pattern of the agent:// descriptor schema.
var SemVer = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$`)

// ToolNamePattern is MCP's tool-name rule (MCP 2025-11-25, Server
// Features, Tools, "Tool Names"): 1 to 128 of A-Z a-z 0-9 _ - ., matched
// case-sensitively. config checks it, and the file's schema states it.
const ToolNamePattern = `^[A-Za-z0-9_.\-]{1,128}$`

// ToolName matches ToolNamePattern.
var ToolName = regexp.MustCompile(ToolNamePattern)

// IsEmail reports whether s is a bare addr-spec whose domain is a host
// name, as JSON Schema's "email" format wants.
func IsEmail(s string) bool {
	a, err := mail.ParseAddress(s)
	if err != nil || a.Name != "" || a.Address != s {
		return false
	}
	i := strings.LastIndexByte(s, '@')
	local, domain := s[:i], s[i+1:]
	return len(local) <= 64 && IsHostname(domain)
}

// IsHostname reports whether s is a DNS host name (RFC 1123 labels).
func IsHostname(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	for _, label := range strings.Split(strings.TrimSuffix(s, "."), ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}

// IsDomain reports whether d is a host name or IP address, with an
// optional port.
func IsDomain(d string) bool {
	host := d
	if h, port, err := net.SplitHostPort(d); err == nil {
		if port == "" || strings.Trim(port, "0123456789") != "" {
			return false
		}
		host = h
	}
	if _, err := netip.ParseAddr(host); err == nil {
		return true
	}
	return IsHostname(host)
}

// SameSite reports whether two hosts may share a registrable domain.
// Without the Public Suffix List it compares the last two labels: hosts
// with one registrable domain always agree there, so nothing the spec
// allows is rejected; only hosts that certainly differ are.
func SameSite(a, b string) bool {
	a, b = strings.ToLower(strings.TrimSuffix(a, ".")), strings.ToLower(strings.TrimSuffix(b, "."))
	if a == b {
		return true
	}
	_, errA := netip.ParseAddr(a)
	_, errB := netip.ParseAddr(b)
	if errA == nil || errB == nil {
		return false
	}
	la, lb := strings.Split(a, "."), strings.Split(b, ".")
	if len(la) < 2 || len(lb) < 2 {
		return false
	}
	return la[len(la)-1] == lb[len(lb)-1] && la[len(la)-2] == lb[len(lb)-2]
}

// IsScopeToken reports whether s is an RFC 6749 3.3 scope-token.
func IsScopeToken(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x21 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return s != ""
}

// IsToken reports whether s is an RFC 9110 5.6.2 token (1*tchar).
func IsToken(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isTchar(s[i]) {
			return false
		}
	}
	return s != ""
}

func isTchar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}
