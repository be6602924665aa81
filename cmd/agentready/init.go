package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/agentready/agentready"
)

// initOptions are init's flags.
type initOptions struct {
	robots, out                     string
	url, name, description, contact string
	allow, disallow                 string
	force                           bool
}

// initNote is what init says of one thing it could not carry, or carried
// otherwise than written: on stderr, at its line of the robots.txt (0 for
// none), and as a comment in the declaration.
type initNote struct {
	line int
	msg  string
	// diffs are the agent/path pairs the generated robots.txt decides
	// otherwise than the original, as RFC 9309 reads them (or, for a
	// line only Google's parser reads, as Google reads the original).
	diffs []verdictDiff
	// google marks diffs between Google's reading of the original and
	// RFC 9309's, not between the original and the generated file.
	google bool
}

// initCmd writes a declaration: from a robots.txt (-robots), its "*"
// groups' rules as the access rules and each agent it names as a policy,
// or from the flags alone. Exit status: 0 written, 1 the robots.txt
// cannot be read or the output not written, 2 a usage error.
func initCmd(args []string, stdout, stderr io.Writer) int {
	var o initOptions
	fs := flag.NewFlagSet("init", flag.ContinueOnError)
	fs.StringVar(&o.robots, "robots", "", "the site's robots.txt, `FILE` or - for stdin")
	fs.StringVar(&o.url, "url", "", "the site's URL (https)")
	fs.StringVar(&o.name, "name", "", "the site's name (default: the URL's host)")
	fs.StringVar(&o.description, "description", "", "what the site offers agents")
	fs.StringVar(&o.contact, "contact", "", "an email address for agent operators")
	fs.StringVar(&o.allow, "allow", "", "comma-separated path patterns agents may fetch (without -robots)")
	fs.StringVar(&o.disallow, "disallow", "", "comma-separated path patterns agents may not fetch (without -robots)")
	fs.StringVar(&o.out, "o", "", "write to `FILE` instead of stdout")
	fs.BoolVar(&o.force, "force", false, "overwrite the -o file")
	rest, code := parseArgs(fs, args, stdout, stderr)
	if code >= 0 {
		return code
	}
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "agentready init: "+format+"\n\n%s", append(a, usage)...)
		return 2
	}
	switch {
	case len(rest) > 0:
		return usageErr("unexpected argument %q", rest[0])
	case o.robots != "" && (o.allow != "" || o.disallow != ""):
		return usageErr("-allow and -disallow are for a declaration without -robots: the robots.txt gives the rules")
	}
	if _, err := os.Lstat(o.out); o.out != "" && !o.force && err == nil {
		// Said before any work, and again by output's O_EXCL if the file
		// appears meanwhile.
		fmt.Fprintf(stderr, "agentready init: %s exists; give -force to overwrite it\n", o.out)
		return 1
	}
	var f *robotsFile
	src := o.robots
	var body []byte
	if o.robots != "" {
		var err error
		if body, err = readRobots(o.robots); err != nil {
			fmt.Fprintf(stderr, "agentready init: %s: %v\n", o.robots, err)
			return 1
		}
		if src == "-" {
			src = "stdin"
		}
		f = parseRobots(body, false)
	}
	if o.url == "" && f != nil {
		o.url = sitemapOrigin(f)
	}
	if o.url == "" {
		return usageErr("-url is required: the site's URL (https://...)%s", map[bool]string{true: "; the robots.txt names no https Sitemap to take it from"}[f != nil])
	}
	u, err := url.Parse(o.url)
	if err != nil || u.Host == "" {
		return usageErr("-url %q: want an absolute URL such as https://example.com", o.url)
	}
	o.name = cmp.Or(o.name, u.Hostname())
	o.description = cmp.Or(o.description, o.name)

	plan, doc, code := initDeclaration(o, src, f, body, stderr)
	if code != 0 {
		return code
	}
	for _, n := range plan.notes {
		where := src
		if n.line > 0 {
			where = fmt.Sprintf("%s:%d", src, n.line)
		}
		fmt.Fprintf(stderr, "%s: %s\n", where, n.msg)
	}
	return output(o, doc, stdout, stderr)
}

// initStdin is what -robots - reads; tests replace it.
var initStdin io.Reader = os.Stdin

// readRobots reads name ("-": stdin), at most maxRobotsBytes of UTF-8
// text (RFC 9309 2.3 and 2.5).
func readRobots(name string) ([]byte, error) {
	r := initStdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	b, err := io.ReadAll(io.LimitReader(r, maxRobotsBytes+1))
	switch {
	case err != nil:
		return nil, err
	case len(b) > maxRobotsBytes:
		return nil, fmt.Errorf("larger than %d KiB, the most crawlers must read (RFC 9309 2.5): a crawler may read less than the file says", maxRobotsBytes>>10)
	case bytes.IndexByte(b, 0) >= 0:
		return nil, errors.New("holds a NUL byte: not a robots.txt, which is text (RFC 9309 2.3)")
	case !utf8.Valid(b):
		return nil, errors.New("is not UTF-8, which RFC 9309 2.3 requires of a robots.txt")
	}
	return b, nil
}

// sitemapOrigin is the origin of the first https Sitemap, "" for none.
func sitemapOrigin(f *robotsFile) string {
	for _, r := range f.records {
		if r.kind != recordSitemap {
			continue
		}
		if u, err := url.Parse(r.value); err == nil && u.Scheme == "https" && u.Host != "" {
			return "https://" + u.Host
		}
	}
	return ""
}

// output writes doc to stdout or to o.out, which must not exist unless
// o.force.
func output(o initOptions, doc []byte, stdout, stderr io.Writer) int {
	if o.out == "" {
		stdout.Write(doc)
		return 0
	}
	flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if o.force {
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	w, err := os.OpenFile(o.out, flags, 0o644)
	if errors.Is(err, fs.ErrExist) {
		fmt.Fprintf(stderr, "agentready init: %s exists; give -force to overwrite it\n", o.out)
		return 1
	}
	if err == nil {
		_, err = w.Write(doc)
		err = errors.Join(err, w.Close())
	}
	if err != nil {
		fmt.Fprintf(stderr, "agentready init: %v\n", err)
		return 1
	}
	fmt.Fprintf(stderr, "agentready init: wrote %s; check it with agentready lint %s\n", o.out, o.out)
	return 0
}

// initDeclaration is the declaration of f (parsed from body), nil for one
// of the flags alone, with its notes; code is the exit status when it is
// not 0.
func initDeclaration(o initOptions, src string, f *robotsFile, body []byte, stderr io.Writer) (plan *initPlan, doc []byte, code int) {
	if f != nil {
		p := planFromRobots(f, body)
		plan = &p
	} else {
		p := planFromFlags(o)
		plan = &p
	}
	doc, code = writeDeclaration(o, src, plan, stderr)
	return plan, doc, code
}

// writeDeclaration writes the declaration of plan, checks it as lint
// does and, from a robots.txt, adds to plan.notes every agent/path pair
// its robots.txt decides otherwise than the original. A declaration lint
// refuses is a usage error: init refuses every part of a robots.txt that
// lint would, so the flags' values are what it refuses.
func writeDeclaration(o initOptions, src string, plan *initPlan, stderr io.Writer) ([]byte, int) {
	body := plan.yaml(o, src)
	name := cmp.Or(o.out, "init.yaml")
	d, err := prepareData(name, body, overrides{noNotes: true}, quiet)
	if err != nil {
		fmt.Fprintf(stderr, "agentready init: the flags give a declaration lint refuses:\n%v\n", err)
		return nil, 2
	}
	if plan.robots != nil {
		rendered, err := renderedRobots(&d)
		if err != nil {
			fmt.Fprintf(stderr, "agentready init: rendering robots.txt: %v\n", err)
			return nil, 1
		}
		plan.explain(parseRobots(rendered, false))
		body = append(body, plan.notesYAML()...)
	}
	if _, err := prepareData(name, body, overrides{}, quiet); err != nil {
		// The notes are comments: nothing in them changes the file.
		fmt.Fprintf(stderr, "agentready init: %v\n", err)
		return nil, 1
	}
	return body, 0
}

// renderedRobots is the robots.txt d's declaration renders, as render
// -out writes it.
func renderedRobots(d *declaration) ([]byte, error) {
	opts := append(d.options(), agentready.WithLogger(slog.New(slog.DiscardHandler)),
		agentready.WithDocuments(agentready.Documents{RobotsTxt: true, A2AVersion: d.a2aVersion}))
	m, err := agentready.New(d.Site, opts...)
	if err != nil {
		return nil, err
	}
	w := httptest.NewRecorder()
	m.Handler(nil).ServeHTTP(w, httptest.NewRequest(http.MethodGet, strings.TrimSuffix(d.Site.URL, "/")+"/robots.txt", nil))
	if w.Code != http.StatusOK {
		return nil, fmt.Errorf("/robots.txt: served %d", w.Code)
	}
	return w.Body.Bytes(), nil
}

// yamlString writes s as a YAML double-quoted scalar: JSON's string
// syntax is YAML's (YAML 1.2 is a superset of JSON).
func yamlString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

// comment keeps text on one comment line: control characters escaped.
func comment(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r == 0x2028 || r == 0x2029 || r == 0x85 {
			fmt.Fprintf(&b, "%%%02X", r)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}
