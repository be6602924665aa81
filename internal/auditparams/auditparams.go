// Package auditparams is the producer's side of an audit event's params:
// the members the trail reserves, how deep params may nest, and the
// Target (what a call addressed) recorded under TargetMember, redacted by
// the store's Redactor. Package audit records it (audit.Prepare);
// internal/trail fills it. No site builds one: it is the middleware's.
package auditparams

// MaxDepth bounds how deeply an event's params may nest (the params
// object is level 1); deeper params, and cyclic maps, are
// audit.ErrInvalidEvent.
const MaxDepth = 64

// Redacted replaces a sensitive value (audit.Redacted).
const Redacted = "[REDACTED]"

// Redactor is audit.Redactor: what a log records of one member of an
// event's params.
type Redactor = func(key string, value any) any

// TargetMember is the params member that records an audit.Event's
// Target; a Params or Query member of this name beside a Target is
// refused (audit.ErrInvalidEvent). Any v0.1.0 verifier hashes it like
// every param.
const TargetMember = "$request"

// Target is what a call addressed besides its query and body: the request
// path and the capability's declared path and header params. It is
// recorded as the params member TargetMember; docs/audit-format.md gives
// its form, the escaping of bytes that are not UTF-8, and its redaction.
type Target struct {
	// Path is the request path as sent, escaped (url.URL.EscapedPath):
	// percent-decoding it gives the path the router reads.
	Path string
	// Query is the request's query as sent (url.URL.RawQuery), "" for
	// none.
	Query string
	// PathParams are the capability's declared path params: each names
	// the segment of Path that holds it (Segment 1 is the segment after
	// the first '/'), and is recorded with that segment as its value. A
	// name given more than one segment is recorded with the first, and
	// every one of them is redacted with it.
	PathParams []PathParam
	// Headers are the capability's declared header params present in the
	// request, each value of a repeated header a Header of its own, in
	// order: recorded grouped by name, a string, or an array for a name
	// with several values.
	Headers []Header
}

// PathParam is a declared path param of a Target: its name and the
// segment of Target.Path that holds its value.
type PathParam struct {
	Name    string
	Segment int
}

// Header is one value of a declared header param of a Target.
type Header struct {
	Name, Value string
}
