package httpsyntax

import (
	"slices"
	"strconv"
	"strings"
)

// HopByHop are the fields that describe one connection, not the request:
// RFC 9110 7.6.1's and the ones RFC 9113 8.2.2 forbids in HTTP/2, which
// a proxy removes (httputil.ReverseProxy does) or HTTP itself consumes.
var HopByHop = []string{
	"Connection", "Keep-Alive", "Proxy-Connection", "Te", "Trailer", "Transfer-Encoding", "Upgrade",
	"Proxy-Authorization", "Proxy-Authenticate", "Http2-Settings",
}

// ForwardingFields are the fields agentready serve sets itself (the
// client address it derived, the Host and scheme the client used) or
// removes from every request because a client may write them to name an
// address or a target (cmd/agentready's clientWritten is this list);
// every X-Forwarded-* field is one too.
var ForwardingFields = []string{
	"X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto", "X-Real-Ip",
	"Forwarded", "True-Client-Ip", "Client-Ip", "Cf-Connecting-Ip", "X-Client-Ip",
	"Fastly-Client-Ip", "X-Cluster-Client-Ip", "X-Original-Url", "X-Rewrite-Url",
	"X-Forwarded", "Forwarded-For", "X-Original-Forwarded-For", "X-Originating-Ip", "X-Remote-Ip",
	"X-Remote-Addr", "X-Envoy-External-Address", "Proxy-Client-Ip", "Wl-Proxy-Client-Ip",
	"X-Proxyuser-Ip", "X-Original-Uri", "X-Host", "X-Scheme",
}

// ForwardingPrefix starts the names of the fields of ForwardingFields'
// family that are not listed one by one.
const ForwardingPrefix = "X-Forwarded-"

// Rewritten says why a request field named name does not reach an
// application behind agentready serve as the client sent it, "" when it
// does: Host is the request's authority (HTTP/2 :authority), a
// hop-by-hop field is consumed or removed on the way, a forwarding field
// is replaced, and a name holding anything but letters, digits and "-"
// is removed (CGI, WSGI and PHP read "_" and "." as "-", so such a name
// could pass for a field serve removed; nginx drops "_" names by
// default). Names are compared without case.
func Rewritten(name string) string {
	switch {
	case strings.EqualFold(name, "Host"):
		return "is the request's authority (Host, HTTP/2 :authority), which HTTP and proxies set, not a field for a key"
	case containsFold(HopByHop, name):
		return "is a hop-by-hop field (RFC 9110 7.6.1): HTTP consumes it or a proxy removes it, so no application receives it"
	case containsFold(ForwardingFields, name) ||
		len(name) >= len(ForwardingPrefix) && strings.EqualFold(name[:len(ForwardingPrefix)], ForwardingPrefix):
		return "is a forwarding field, which agentready serve replaces or removes: the application behind it never receives the key"
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-') {
			return "holds " + strconv.QuoteRune(rune(c)) + ": agentready serve removes a field whose name holds anything but letters, digits and \"-\" (CGI reads \"_\" as \"-\"), as nginx drops \"_\" names by default"
		}
	}
	return ""
}

func containsFold(list []string, s string) bool {
	return slices.ContainsFunc(list, func(v string) bool { return strings.EqualFold(v, s) })
}

// OnlyWebSocket removes from h, the header of a request passed on, an
// upgrade to any protocol but WebSocket (RFC 6455) with its Connection,
// and HTTP2-Settings. An application or upstream that took "Upgrade: h2c"
// (RFC 7540 3.2: x/net's h2c.NewHandler, Tomcat, Jetty) would answer 101
// and serve every later request on the connection past every decision.
// HTTP2-Settings is hop-by-hop (RFC 7540 3.2.1) and goes whether or not
// Connection names it. Without them the request is served as HTTP/1.1.
func OnlyWebSocket(h map[string][]string) {
	if up, ok := h["Upgrade"]; ok && (len(up) != 1 || !strings.EqualFold(up[0], "websocket")) {
		delete(h, "Upgrade")
		delete(h, "Connection")
	}
	delete(h, "Http2-Settings")
}
