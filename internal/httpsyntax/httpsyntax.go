// Package httpsyntax holds small pieces of HTTP field syntax (RFC 9110)
// that more than one agentready package parses.
package httpsyntax

// TrimOWS trims optional whitespace, spaces and horizontal tabs (RFC 9110
// 5.6.3), from both ends of s. strings.Trim would build its byte set on
// every call.
func TrimOWS(s string) string {
	for s != "" && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	for s != "" && (s[len(s)-1] == ' ' || s[len(s)-1] == '\t') {
		s = s[:len(s)-1]
	}
	return s
}
