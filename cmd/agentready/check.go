package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/agentready/agentready/internal/specschemas"
)

// finding is one result of check.
type finding struct {
	Document string `json:"document"` // the path checked
	Spec     string `json:"spec"`     // the draft it is checked against
	Level    string `json:"level"`    // pass, warn (a SHOULD) or fail (a MUST)
	Message  string `json:"message"`
}

// checkBodyLimit bounds what check reads of one document.
const checkBodyLimit = 1 << 20

// checker fetches a site's documents and checks them.
type checker struct {
	base   *url.URL // the URL checked
	origin string   // its origin (origin())
	client *http.Client
	// docs is every document looked for, in order; findings what the
	// fetched ones were found to be.
	docs     []document
	findings []finding
	// seen maps each URL fetched to its entry in docs, so that a
	// document two others name is fetched once.
	seen map[string]int
	// declared are the origins the site's documents declare as the
	// site's; siteURL the first site URL declared.
	declared []declared
	siteURL  string
}

func newChecker(base *url.URL, client *http.Client) *checker {
	return &checker{base: base, origin: origin(base), client: client, seen: map[string]int{}}
}

func (c *checker) add(doc, spec, level, format string, args ...any) {
	c.findings = append(c.findings, finding{Document: doc, Spec: spec, Level: level, Message: fmt.Sprintf(format, args...)})
}

// contentType checks the media type (and charset, when want names one).
func (c *checker) contentType(path, spec string, h http.Header, wantType, wantCharset string) {
	mt, params, err := mime.ParseMediaType(h.Get("Content-Type"))
	switch {
	case err != nil || mt != wantType:
		c.add(path, spec, "fail", "Content-Type %q, want %s", h.Get("Content-Type"), wantType)
	case wantCharset != "" && !strings.EqualFold(params["charset"], wantCharset):
		c.add(path, spec, "fail", "Content-Type %q lacks charset=%s", h.Get("Content-Type"), wantCharset)
	}
}

func (c *checker) schema(path, spec, file string, body []byte) bool {
	if err := specschemas.Validate(file, body); err != nil {
		c.add(path, spec, "fail", "does not validate against %s: %v", file, oneLine(err))
		return false
	}
	return true
}

func oneLine(err error) string {
	s := strings.Join(strings.Fields(err.Error()), " ")
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}

// run looks for every document, in the order in which each tells where
// the next ones are: agents.txt declares the site URL and may name
// agents.json; agents.json may be the agent:// registry naming the
// descriptors; the AI Catalog names the cards.
func (c *checker) run() {
	named := c.agentsTxt()
	registry, registryPath := c.agentsJSON(named)
	c.descriptors(registry, registryPath)
	c.agentsMD()
	c.awp()
	c.cards()
	c.robots()
}

// report is check's result, as -json prints it.
type report struct {
	Site      string     `json:"site"` // the origin checked
	Declared  []declared `json:"declared"`
	Documents []document `json:"documents"`
	Findings  []finding  `json:"findings"`
	Verdict   verdict    `json:"verdict"`
}

// verdict sums a check up: FAIL when any finding fails (a MUST broken,
// or a document that should be there and could not be read), PASS
// otherwise; either way it names the documents that were not published,
// not checked or skipped, so that a PASS is never silent about them.
type verdict struct {
	Result      string   `json:"result"`
	Fetched     int      `json:"fetched"`
	Fails       int      `json:"fails"`
	Warnings    int      `json:"warnings"`
	Missing     []string `json:"missing,omitempty"`     // "location (status)"
	Unavailable []string `json:"unavailable,omitempty"` // "location (status or error)"
	Skipped     []string `json:"skipped,omitempty"`
	// OtherOrigins are the site origins the documents declare that are
	// not the one checked (each also a warning).
	OtherOrigins []string `json:"otherOrigins,omitempty"`
}

func (c *checker) verdict() verdict {
	v := verdict{Result: "PASS"}
	for _, d := range c.declared {
		if d.Origin != c.origin {
			v.OtherOrigins = append(v.OtherOrigins, d.Origin)
		}
	}
	for _, f := range c.findings {
		switch f.Level {
		case "fail":
			v.Fails++
		case "warn":
			v.Warnings++
		}
	}
	if v.Fails > 0 {
		v.Result = "FAIL"
	}
	for _, d := range c.docs {
		switch d.Status {
		case docFetched, docInline:
			v.Fetched++
		case docMissing:
			v.Missing = append(v.Missing, d.Location+" ("+strconv.Itoa(d.HTTPStatus)+")")
		case docUnavailable:
			why := d.Note
			if d.HTTPStatus != 0 {
				why = strconv.Itoa(d.HTTPStatus)
			}
			v.Unavailable = append(v.Unavailable, d.Location+" ("+why+")")
		case docSkipped:
			if !d.covered {
				v.Skipped = append(v.Skipped, d.Location)
			}
		}
	}
	return v
}

func (v verdict) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d documents checked, %s, %s", v.Result, v.Fetched, count(v.Fails, "failure"), count(v.Warnings, "warning"))
	if len(v.OtherOrigins) > 0 {
		fmt.Fprintf(&b, "; the documents declare the site at %s, not the origin checked", strings.Join(v.OtherOrigins, ", "))
	}
	if len(v.Unavailable) > 0 {
		fmt.Fprintf(&b, "; not checked, could not be read: %s", strings.Join(v.Unavailable, ", "))
	}
	if len(v.Missing) > 0 {
		fmt.Fprintf(&b, "; not published: %s", strings.Join(v.Missing, ", "))
	}
	if len(v.Skipped) > 0 {
		fmt.Fprintf(&b, "; skipped (see why above): %s", strings.Join(v.Skipped, ", "))
	}
	return b.String()
}

// count is n noun, in the plural unless n is 1 ("entry": "entries").
func count(n int, noun string) string {
	plural := noun + "s"
	if strings.HasSuffix(noun, "y") {
		plural = strings.TrimSuffix(noun, "y") + "ies"
	}
	switch n {
	case 0:
		return "no " + plural
	case 1:
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + plural
}

// check fetches a site's discovery documents and reports what conforms.
func check(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print the report as JSON")
	sites, code := parseArgs(fs, args, stdout, stderr)
	if code >= 0 {
		return code
	}
	if len(sites) != 1 {
		fmt.Fprintf(stderr, "agentready check: want one site URL\n\n%s", usage)
		return 2
	}
	base, err := url.Parse(sites[0])
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		fmt.Fprintf(stderr, "agentready check: %q is not an http(s) URL\n", sites[0])
		return 2
	}
	c := newChecker(base, checkClient())
	if !*asJSON {
		fmt.Fprintf(stderr, "checking %s ...\n", c.origin)
	}
	c.run()
	r := report{Site: c.origin, Declared: c.declared, Documents: c.docs, Findings: c.findings, Verdict: c.verdict()}
	if r.Declared == nil {
		r.Declared = []declared{}
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(r); err != nil {
			fmt.Fprintln(stderr, err)
		}
	} else {
		printReport(stdout, r)
	}
	if r.Verdict.Result == "FAIL" {
		return 1
	}
	return 0
}

// printReport prints the documents looked for, the findings and the
// verdict.
func printReport(w io.Writer, r report) {
	fmt.Fprintf(w, "documents looked for at %s:\n", r.Site)
	for _, d := range r.Documents {
		code := ""
		if d.HTTPStatus != 0 {
			code = strconv.Itoa(d.HTTPStatus)
		}
		what := d.What
		if d.From != "" {
			what += ", named by " + d.From
		}
		fmt.Fprintf(w, "  %-11s %3s  %-40s %s%s\n", d.Status, code, d.Location, what, prefixed(": ", d.Note))
	}
	fmt.Fprintln(w, "findings:")
	for _, f := range r.Findings {
		fmt.Fprintf(w, "%-4s %-36s %-18s %s\n", strings.ToUpper(f.Level), f.Document, f.Spec, f.Message)
	}
	fmt.Fprintf(w, "verdict: %s\n", r.Verdict)
}

// checkClient is the HTTP client of check: a test replaces it to trust
// its TLS test server.
var checkClient = func() *http.Client {
	return &http.Client{Timeout: 10 * time.Second}
}
