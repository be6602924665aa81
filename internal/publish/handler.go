package publish

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rs/cors"
)

// Content types of the published documents.
const (
	// contentTypeText is agents.txt's: draft-car 2.1 says it MUST be served
	// as "text/plain; charset=utf-8".
	contentTypeText = "text/plain; charset=utf-8"
	// contentTypeJSON is for the JSON documents without a media type of
	// their own (agents.json, AWP agent.json). draft-car 3.1 says agents.json
	// MUST carry the charset parameter, so all of them do.
	contentTypeJSON = "application/json; charset=utf-8"
	// contentTypeMarkdown is agents.md's (agents.md 1 allows text/markdown
	// or text/plain; RFC 7763 makes charset required for text/markdown).
	contentTypeMarkdown = "text/markdown; charset=utf-8"
	// contentTypeAgentJSON is the agent:// descriptor media type
	// (draft-narvaneni-agent-uri-03 7.5, 12.3). A Document with Profiles is
	// served with the first profile as its profile parameter (7.4).
	contentTypeAgentJSON = "application/agent+json"
	// contentTypeProblemJSON is RFC 9457's; every error this package
	// answers carries it (agent:// 9).
	contentTypeProblemJSON = "application/problem+json"
)

// Default Cache-Control max-ages.
const (
	// maxAgeAgentsTxt is draft-car 5.1's RECOMMENDED 300 s, for agents.txt
	// and its agents.json companion.
	maxAgeAgentsTxt = 300 * time.Second
	// maxAgeAgentsMD is agents.md 1's "Cache-Control: public, max-age=86400".
	maxAgeAgentsMD = 24 * time.Hour
	// maxAgeAgentJSON is for AWP's agent.json and agent:// descriptors. Neither
	// draft names a lifetime (agent:// 5.3 only asks for Cache-Control plus
	// ETag or Last-Modified), so agentready uses draft-car's 300 s: short
	// enough that an edited declaration reaches agents within minutes, and
	// revalidation is a cheap 304 thanks to the ETag.
	maxAgeAgentJSON = 300 * time.Second
	// preflightMaxAge is how long browsers may cache a CORS preflight answer
	// (Access-Control-Max-Age), in seconds.
	preflightMaxAge = 300
)

// allowedMethods is the Allow header value of every document: what a
// document path answers (RFC 9110 10.2.1; 405 and OPTIONS carry it).
const allowedMethods = "GET, HEAD, OPTIONS"

// Document is one pre-rendered discovery document and how it is served.
// Renderers produce Documents; NewHandler copies what it needs, so a
// Document may be reused or changed afterwards without affecting a Handler.
type Document struct {
	// Name identifies the document in errors and logs ("agents.txt").
	Name string
	// Paths are the URL paths the document is served at, each starting with
	// "/" and matched exactly against the request path
	// ("/.well-known/agents.txt", "/agents.txt").
	Paths []string
	// ContentType is the Content-Type, e.g. contentTypeText.
	ContentType string
	// Body is the document, served as is.
	Body []byte
	// MaxAge is sent as "Cache-Control: public, max-age=N", N in whole
	// seconds (fractions are dropped). Zero sends max-age=0, so caches
	// revalidate every time, which the ETag makes a 304.
	MaxAge time.Duration
	// LastModified is sent as Last-Modified, truncated to seconds, and
	// answers If-Modified-Since. The zero time sends no Last-Modified and
	// makes the date conditionals inapplicable. It must not lie in the
	// future (RFC 9110 8.8.2.1); renderers set it once, from the declaration.
	LastModified time.Time
	// Profiles are the RFC 6906 profiles an application/agent+json
	// descriptor conforms to, first the one it is labelled with
	// (agent:// 7.4). Non-empty Profiles require a ContentType of
	// application/agent+json and switch on Accept negotiation: see
	// Handler.
	Profiles []string
	// Header holds fields a 200 (and HEAD) response carries besides the
	// standard ones: a signed descriptor's Content-Digest, Signature-Input
	// and Signature, a deprecated one's Deprecation, Sunset and Link. Keys
	// are canonicalised; the values are shared by every response.
	Header http.Header
}

// Handler serves pre-rendered Documents. Every response header value is
// computed by NewHandler and assigned into the response's header map as is,
// so serving a document allocates nothing beyond what net/http itself does.
//
// For every document path:
//
//   - GET and HEAD answer 200 with Content-Type, Content-Length,
//     Cache-Control, a strong ETag (a SHA-256 prefix of the body),
//     Last-Modified, X-Content-Type-Options: nosniff,
//     Access-Control-Allow-Origin: * and Vary: Origin (Vary: Accept, Origin
//     for descriptors); HEAD sends no body.
//   - Conditional requests follow RFC 9110 13.2.2: If-Match, then
//     If-Unmodified-Since (412), then If-None-Match (weak comparison, 304),
//     then If-Modified-Since only when If-None-Match is absent (304).
//     A 304 carries ETag, Cache-Control, Last-Modified, Vary and the CORS
//     header, and no body, Content-Type or Content-Length. Range is not
//     supported; documents are small and always sent whole.
//   - Descriptors (Documents with Profiles) negotiate Accept with its
//     profile parameter (RFC 6906, agent:// 7.4) and are labelled
//     `application/agent+json; profile="<first profile>"`. When Accept
//     admits no application/agent+json, or only with profiles the descriptor
//     does not have, or with q=0, the answer is 406 with a problem+json
//     naming the requested and the supported profiles.
//   - OPTIONS with Access-Control-Request-Method is a CORS preflight,
//     answered 204 by github.com/rs/cors (Access-Control-Allow-Methods
//     echoes the requested method when it is GET, HEAD or OPTIONS); other
//     OPTIONS answer 204 with Allow; every other method answers 405 with
//     Allow and a problem+json.
//
// Paths that are not documents answer 404 from ServeHTTP and reach the
// wrapped handler through Wrap. A Handler is immutable and safe for
// concurrent use.
type Handler struct {
	docs  map[string]*entry
	paths []string // sorted, for Paths
	cors  *cors.Cors
}

// entry is a Document compiled for serving. Every []string is a complete
// header value with len == cap: the slices are shared by all responses, and
// a middleware that appends to one (h.Add("Vary", ...)) must get a fresh
// array rather than write into ours.
type entry struct {
	body          []byte
	contentType   []string
	contentLength []string
	cacheControl  []string
	etag          []string // etag[0] is the quoted entity-tag
	lastModified  []string // nil when the Document has no LastModified
	modUnix       int64    // LastModified in Unix seconds
	vary          []string
	profiles      []string // non-nil for descriptors
	extra         http.Header
}

// Precomputed values shared by every entry. Each has len == cap (see entry).
var (
	valueNosniff      = []string{"nosniff"}
	valueAllowOrigin  = []string{"*"}
	valueAllow        = []string{allowedMethods}
	valueVaryOrigin   = []string{"Origin"}
	valueVaryDescr    = []string{"Accept", "Origin"}
	valueProblemType  = []string{contentTypeProblemJSON}
	corsAllowedHeader = []string{
		// Accept with a quoted profile is not CORS-safelisted (the quote is
		// a CORS-unsafe byte), nor are the conditional headers; allowing
		// them lets browser agents negotiate and revalidate cross-origin.
		"Accept", "If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since",
	}
)

// etagBytes is how many bytes of the body's SHA-256 form the ETag: 128 bits
// make an accidental collision between two versions of a document
// negligible, and the value is the same on every replica.
const etagBytes = 16

// NewHandler compiles docs for serving. It reports every problem at once:
// a document without paths, an empty path or one not starting with "/", a
// path served twice, an unparsable ContentType, a negative MaxAge, and
// Profiles on a document that is not application/agent+json or that are
// not usable as RFC 6906 profile URIs.
func NewHandler(docs []Document) (*Handler, error) {
	h := &Handler{
		docs: make(map[string]*entry),
		cors: cors.New(cors.Options{
			AllowedOrigins: []string{"*"},
			// draft-car 5.2 shows "Access-Control-Allow-Methods: GET,
			// OPTIONS"; HEAD is as safe as GET. rs/cors answers a preflight
			// with the requested method when it is one of these, as the
			// Fetch standard allows.
			AllowedMethods: []string{http.MethodGet, http.MethodHead, http.MethodOptions},
			AllowedHeaders: corsAllowedHeader,
			MaxAge:         preflightMaxAge,
		}),
	}
	var errs []error
	owner := make(map[string]string)
	for i := range docs {
		d := &docs[i]
		name := d.Name
		if name == "" {
			name = "document " + strconv.Itoa(i)
		}
		e, derrs := compile(d, name)
		errs = append(errs, derrs...)
		if len(d.Paths) == 0 {
			errs = append(errs, fmt.Errorf("publish: %s: no path to serve it at", name))
		}
		for _, p := range d.Paths {
			if err := checkPath(p); err != nil {
				errs = append(errs, fmt.Errorf("publish: %s: %w", name, err))
				continue
			}
			if prev, dup := owner[p]; dup {
				errs = append(errs, fmt.Errorf("publish: path %q is served by both %s and %s", p, prev, name))
				continue
			}
			owner[p] = name
			h.docs[p] = e
			h.paths = append(h.paths, p)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	slices.Sort(h.paths)
	return h, nil
}

// checkPath accepts what can equal a request's URL.Path: absolute, without
// query, fragment, whitespace or control characters.
func checkPath(p string) error {
	switch {
	case p == "":
		return errors.New("empty path")
	case p[0] != '/':
		return fmt.Errorf("path %q does not start with /", p)
	case strings.ContainsAny(p, "?#"):
		return fmt.Errorf("path %q contains a query or fragment", p)
	}
	for i := 0; i < len(p); i++ {
		if p[i] <= ' ' || p[i] == 0x7f {
			return fmt.Errorf("path %q contains whitespace or a control character", p)
		}
	}
	return nil
}

// compile precomputes every header value of d.
func compile(d *Document, name string) (*entry, []error) {
	var errs []error
	fail := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("publish: %s: "+format, append([]any{name}, args...)...))
	}
	e := &entry{
		body: slices.Clone(d.Body),
		vary: valueVaryOrigin,
	}
	if e.body == nil {
		e.body = []byte{}
	}

	ctype := d.ContentType
	mediatype, params, err := mime.ParseMediaType(ctype)
	switch {
	case ctype == "":
		fail("no content type")
	case err != nil:
		fail("content type %q: %v", ctype, err)
	case strings.ContainsAny(ctype, "\r\n"):
		fail("content type %q contains a line break", ctype)
	}
	if len(d.Profiles) > 0 {
		if err == nil && mediatype != contentTypeAgentJSON {
			fail("profiles need content type %s, not %q", contentTypeAgentJSON, mediatype)
		}
		if _, ok := params["profile"]; ok {
			fail("content type %q has a profile parameter; Profiles sets it", ctype)
		}
		for _, p := range d.Profiles {
			if err := checkProfile(p); err != nil {
				fail("%v", err)
			}
		}
		e.profiles = slices.Clone(d.Profiles)
		e.vary = valueVaryDescr
		// agent:// 7.4: servers SHOULD indicate the selected version.
		ctype += `; profile="` + d.Profiles[0] + `"`
	}
	e.contentType = []string{ctype}
	e.contentLength = []string{strconv.Itoa(len(e.body))}
	for k, v := range d.Header {
		if e.extra == nil {
			e.extra = http.Header{}
		}
		for _, x := range v {
			if strings.ContainsAny(x, "\r\n") {
				fail("header %s holds a line break", k)
			}
		}
		e.extra[http.CanonicalHeaderKey(k)] = slices.Clip(slices.Clone(v))
	}

	if d.MaxAge < 0 {
		fail("negative max-age %v", d.MaxAge)
	}
	e.cacheControl = []string{"public, max-age=" + strconv.FormatInt(int64(d.MaxAge/time.Second), 10)}

	sum := sha256.Sum256(e.body)
	e.etag = []string{`"` + hex.EncodeToString(sum[:etagBytes]) + `"`}

	if !d.LastModified.IsZero() {
		lm := d.LastModified.UTC().Truncate(time.Second)
		e.lastModified = []string{lm.Format(http.TimeFormat)}
		e.modUnix = lm.Unix()
	}
	return e, errs
}

// checkProfile accepts what fits in a quoted profile parameter as one URI
// of RFC 6906's space-separated list: visible ASCII except '"' and '\'.
func checkProfile(p string) error {
	if p == "" {
		return errors.New("empty profile")
	}
	for i := 0; i < len(p); i++ {
		if c := p[i]; c <= ' ' || c >= 0x7f || c == '"' || c == '\\' {
			return fmt.Errorf("profile %q: byte %q is not allowed in a profile URI", p, c)
		}
	}
	return nil
}

// Lookup reports whether path is a document path. It is a map lookup.
func (h *Handler) Lookup(path string) bool {
	_, ok := h.docs[path]
	return ok
}

// Paths returns every document path, sorted.
func (h *Handler) Paths() []string { return slices.Clone(h.paths) }

// ServeHTTP serves the document at r.URL.Path, or 404 (problem+json).
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if e := h.docs[r.URL.Path]; e != nil {
		h.serve(w, r, e)
		return
	}
	writeProblem(w, r, &problemNotFound)
}

// Wrap returns a handler that serves the documents and passes every other
// path to next (nil next: 404 as ServeHTTP).
func (h *Handler) Wrap(next http.Handler) http.Handler {
	if next == nil {
		return h
	}
	return &wrapped{h: h, next: next}
}

// wrapped is a struct rather than a closure so that Wrap's handler is one
// allocation at construction and none per request.
type wrapped struct {
	h    *Handler
	next http.Handler
}

func (wr *wrapped) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if e := wr.h.docs[r.URL.Path]; e != nil {
		wr.h.serve(w, r, e)
		return
	}
	wr.next.ServeHTTP(w, r)
}

// serve answers a request for a document. GET and HEAD are the hot path:
// header values are assigned straight into the map under their canonical
// keys (Header().Set would canonicalise the key and allocate a slice).
//
// CORS on GET and HEAD: rs/cors allocates on actual requests (in v1.11.1 a
// request with an Origin costs one allocation for the arguments of its
// debug logger, and appending "Origin" to an existing Vary another one), so
// the hot path writes the headers rs/cors's documented behaviour produces
// for AllowedOrigins ["*"] itself: "Access-Control-Allow-Origin: *" and
// "Vary: Origin" appended to the response's Vary. TestCORSMatchesRSCors
// holds the two side by side. The one difference is deliberate: rs/cors
// omits Access-Control-Allow-Origin when a request has no Origin, while
// draft-car 5.2 says servers SHOULD send it; it is inert for non-browser
// clients, and Vary: Origin keeps shared caches correct either way.
// Preflights and the other methods, which may allocate, go through rs/cors.
func (h *Handler) serve(w http.ResponseWriter, r *http.Request, e *entry) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.serveOther(w, r)
		return
	}
	if e.profiles != nil && !e.acceptable(r.Header["Accept"]) {
		h.notAcceptable(w, r, e)
		return
	}
	hdr := w.Header()
	hdr["Access-Control-Allow-Origin"] = valueAllowOrigin
	hdr["Vary"] = e.vary
	switch e.evaluate(r) {
	case preconditionFailed:
		writeProblem(w, r, &problemPreconditionFailed)
		return
	case notModified:
		// RFC 9110 15.4.5: the fields a 200 would have carried that
		// matter to caches, and no representation metadata.
		hdr["Etag"] = e.etag
		hdr["Cache-Control"] = e.cacheControl
		if e.lastModified != nil {
			hdr["Last-Modified"] = e.lastModified
		}
		w.WriteHeader(http.StatusNotModified)
		return
	}
	hdr["Content-Type"] = e.contentType
	hdr["Content-Length"] = e.contentLength
	hdr["Cache-Control"] = e.cacheControl
	hdr["Etag"] = e.etag
	if e.lastModified != nil {
		hdr["Last-Modified"] = e.lastModified
	}
	hdr["X-Content-Type-Options"] = valueNosniff
	for k, v := range e.extra {
		hdr[k] = v
	}
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(e.body)
	}
}

// serveOther answers OPTIONS and the methods a document does not support.
// rs/cors decides every CORS header here: preflights (its Handler answers
// them with OptionsSuccessStatus, 204), and for the rest the same headers
// as for an actual request, which for a disallowed method is Vary only.
func (h *Handler) serveOther(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
		h.cors.HandlerFunc(w, r)
		return
	}
	hdr := w.Header()
	hdr["Allow"] = valueAllow
	h.cors.HandlerFunc(w, r)
	if r.Method == http.MethodOptions {
		// No Content-Length: RFC 9110 8.6 forbids it on a 204.
		w.WriteHeader(http.StatusNoContent)
		return
	}
	writeProblem(w, r, &problemMethodNotAllowed)
}

// problem is a precomputed RFC 9457 response.
type problem struct {
	status int
	body   []byte
	length []string
}

// The fixed error responses, immutable once built. Being package-level,
// they also keep a zero Handler's 404 well-formed.
var (
	problemNotFound = newProblem(http.StatusNotFound,
		"no discovery document is published at this path")
	problemMethodNotAllowed = newProblem(http.StatusMethodNotAllowed,
		"discovery documents answer "+allowedMethods)
	problemPreconditionFailed = newProblem(http.StatusPreconditionFailed,
		"If-Match or If-Unmodified-Since does not hold for the current document")
)

func newProblem(status int, detail string) problem {
	body := problemBody(status, detail, nil, nil)
	return problem{status: status, body: body, length: []string{strconv.Itoa(len(body))}}
}

// problemBody renders an RFC 9457 document. The type is about:blank, which
// makes the title the status phrase (RFC 9457 4.2.1); the profile members
// are extensions (agent:// 7.3: "MAY include supported formats").
func problemBody(status int, detail string, requested, supported []string) []byte {
	b, err := json.Marshal(struct {
		Type      string   `json:"type"`
		Title     string   `json:"title"`
		Status    int      `json:"status"`
		Detail    string   `json:"detail"`
		Requested []string `json:"requestedProfiles,omitempty"`
		Supported []string `json:"supportedProfiles,omitempty"`
	}{"about:blank", http.StatusText(status), status, detail, requested, supported})
	if err != nil {
		// Strings and ints always marshal; keep the response well-formed
		// regardless.
		return []byte(`{"type":"about:blank","status":` + strconv.Itoa(status) + `}`)
	}
	return b
}

// writeProblem sends p; HEAD gets the headers only.
func writeProblem(w http.ResponseWriter, r *http.Request, p *problem) {
	hdr := w.Header()
	hdr["Content-Type"] = valueProblemType
	hdr["Content-Length"] = p.length
	hdr["X-Content-Type-Options"] = valueNosniff
	w.WriteHeader(p.status)
	if r.Method != http.MethodHead {
		w.Write(p.body)
	}
}
