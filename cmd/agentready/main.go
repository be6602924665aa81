// Command agentready is the agentready toolbox:
//
//	agentready check [-json] URL
//	agentready init [-robots FILE|-] [-url URL] [-o FILE] [flags]
//	agentready lint [-dialect draft-car|v0.1.0] FILE
//	agentready render [-dialect draft-car|v0.1.0] [-out DIR] FILE
//	agentready schema
//	agentready serve -config FILE -upstream URL [flags]
//	agentready verify-audit [-key BASE64] FILE|URL
//	agentready version
//
// serve runs agentready as a reverse proxy in front of any site. lint
// validates a declaration file, render prints the documents it yields and
// schema prints the file format's JSON Schema. verify-audit checks an agents.txt v0.1.0 audit artifact as any
// third party can:
//
// reads the artifact from a file or an http(s) URL (at most 16 MiB, 10 s),
// recomputes its hash chain and root hash, checks its Ed25519 signature
// (package audit documents the exact serialisation), prints a one-line
// verdict and exits 0 when it verifies, 1 when it does not or cannot be
// read, 2 on a usage error. Give -key the site's published key (agents.json
// audit.public_key): without it the key inside the artifact is used, which
// proves the artifact intact but not that the site made it.
package main

import (
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/agentready/agentready/audit"
	"github.com/agentready/agentready/cmd/agentready/internal/earlysignal"
)

// Limits on reading an artifact.
const (
	maxArtifactSize = 16 << 20
	fetchTimeout    = 10 * time.Second
)

// httpClient fetches artifacts; the timeout covers the whole exchange,
// body included.
var httpClient = &http.Client{Timeout: fetchTimeout}

const usage = `Usage:
  agentready verify-audit [-key BASE64] FILE|URL
      Verify an agents.txt v0.1.0 audit artifact read from a file or an
      http(s) URL: hash chain, root hash, Ed25519 signature. -key is the
      site's published audit.public_key (standard base64); without it the
      key embedded in the artifact is used, which proves integrity only.
      Exit status: 0 verified, 1 not verified or unreadable, 2 usage error.
  agentready check [-json] URL
      Fetch a site's discovery documents where the site says they are
      (agents.txt, agents.json or the agent:// registry and its
      descriptors, agents.md, agent.json, the A2A card, MCP server cards
      and the AI Catalog, robots.txt), list each with its status (fetched,
      missing, unavailable, skipped and why) and report per specification
      pass/warn/fail; warn when the declared site URL is not the origin
      checked. Exit status: 0 nothing fails, 1 something fails or could
      not be read, 2 usage error.
  agentready init [-robots FILE|-] [-url URL] [-name NAME] [-description TEXT]
                  [-contact EMAIL] [-allow PATTERNS -disallow PATTERNS] [-o FILE [-force]]
      Write a commented declaration file: from a robots.txt (-robots; - is
      stdin), its "*" groups' rules as the access rules and each agent it
      names as a policy, or from the flags alone (-allow, -disallow:
      comma-separated patterns). -url is required unless a Sitemap line
      gives an https origin. Whatever a declaration cannot say (other
      agents' own rules, Crawl-delay, Sitemap, Host, unknown records, lines
      only Google's parser reads) is reported on stderr at its line and as
      a comment in the file. It checks the file as lint does and compares
      the robots.txt the file renders with the original, agent by agent.
      Output: stdout, or -o FILE (refused if it exists unless -force).
      Exit status: 0 written, 1 unreadable input or output, 2 usage error.
  agentready lint [-dialect draft-car|v0.1.0] FILE
      Validate a declaration file (YAML or JSON, snake_case keys; see
      config.ParseSite and config/site.schema.json): every problem with its
      line and field path. Exit status: 0 valid, 1 not, 2 usage error.
  agentready render [-dialect draft-car|v0.1.0] [-out DIR] FILE
      Print every document the declaration file yields.
  agentready schema
      Print the declaration file's JSON Schema (config/site.schema.json),
      for editors; lint agrees with it.
  agentready serve -config FILE -upstream URL [-addr HOST:PORT] [-metrics HOST:PORT]
                   [-health-addr HOST:PORT] [-forward-auth HOST:PORT] [-tls-cert FILE -tls-key FILE]
                   [-report-only] [-robots] [-a2a-version 1.0|0.3] [-redis HOST:PORT|redis://...|rediss://...]
                   [-redis-policy fallback-memory|fail-open|fail-closed]
                   [-trusted-proxies CIDRS [-trust-all-proxies]] [-hosts HOSTS] [-upstream-timeout DURATION] [-strict-upstream]
                   [-log-format text|json] [-log-level debug|info|warn|error]
                   [-log-decisions none|deny|all] [-log-rate N]
                   [-log-interval DURATION] [-tokens FILE] [-tokens-env VAR] [-hmac-keys FILE]
                   [-report HOST:PORT [-report-token-file FILE] [-report-token-env VAR]
                    [-report-window DURATION]]
      Run agentready as a reverse proxy in front of any site: the documents
      and the enforcement of the declaration file, everything else proxied.
      The upstream gets the client address agentready derived in X-Real-IP
      and X-Forwarded-For, and no address or target field the client wrote.
      Unless -strict-upstream (or upstream: {strict: true} in the file)
      declares an upstream that routes a path only as spelled, rules and
      capability endpoints hold on every case and trailing-slash spelling.
      Every line it logs is structured (slog, text or JSON): denials by
      default, at most -log-rate a second. -tokens and -tokens-env give the
      tokens of bearer-token and api-key capabilities (CAPABILITY=TOKEN or
      CAPABILITY=sha256:HEX), -hmac-keys the keys of hmac ones
      (KEYID=hmac-sha256:BASE64 or KEYID=ed25519:BASE64); without tokens a
      credential is checked for presence only. The file (and the tokens)
      are reloaded on SIGHUP and when the file changes; a file with
      problems is refused and the running declaration keeps serving.
      -report serves the live report of agents (by name, grade and
      purpose, with their allowed, denied and rate-limited counts; the
      rules that denied most; sessions and sealed audit artifacts) over
      the last -report-window (default 1h), as HTML and as JSON at
      /report.json, on a listener of its own, never -addr. Off loopback it
      asks for a token (at least 16 characters), the first line of
      -report-token-file or the variable -report-token-env names (default
      AGENTREADY_REPORT_TOKEN), as "Authorization: Bearer TOKEN" or as the
      password of Basic authentication; without one serve does not start.
      The report is this process's: the fleet's view is Prometheus's.
      /healthz (alive) and /readyz (the declaration loaded; Redis's state
      in its JSON body, failing for Redis only under -redis-policy
      fail-closed) are served on -metrics' listener, or -health-addr's.
      -tls-cert and -tls-key serve TLS with HTTP/2; SIGHUP reloads them.
      -forward-auth answers the decision subrequests of nginx auth_request
      (at /auth/nginx), Caddy forward_auth and Traefik forwardAuth (at
      /auth) from the trusted proxies, beside the proxy the site runs
      (docs/forward-auth.md).
      Every flag is also read from AGENTREADY_ and its name in upper case,
      dashes as underscores (-trusted-proxies: AGENTREADY_TRUSTED_PROXIES);
      a flag on the command line wins.
  agentready version
      Print the command's module version: v0.1.0 when installed with
      go install github.com/agentready/agentready/cmd/agentready@v0.1.0,
      (devel) when built in a clone (a go.work build carries no version).
  agentready -h
      Show this help.
`

func main() {
	if len(os.Args) < 2 || os.Args[1] != "serve" {
		// Only serve reloads on SIGHUP; the other commands end on it.
		earlysignal.Release()
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is the command with its arguments (without the program name); it
// returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, usage)
		return 0
	case "verify-audit":
		return verifyAudit(args[1:], stdout, stderr)
	case "lint":
		return lint(args[1:], stdout, stderr)
	case "render":
		return render(args[1:], stdout, stderr)
	case "serve":
		return serve(args[1:], stdout, stderr)
	case "schema":
		return schema(args[1:], stdout, stderr)
	case "check":
		return check(args[1:], stdout, stderr)
	case "version", "-version", "--version":
		return version(args[1:], stdout, stderr)
	case "init":
		return initCmd(args[1:], stdout, stderr)
	}
	fmt.Fprintf(stderr, "agentready: unknown command %q\n\n%s", args[0], usage)
	return 2
}

// parseArgs parses the flags of fs, which may come before or after the
// positional arguments, and returns those. On -h it prints the usage to
// stdout and returns code 0; on a bad flag, the error and the usage to
// stderr and code 2; otherwise code is -1. fs itself prints nothing.
func parseArgs(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (positional []string, code int) {
	fs.SetOutput(io.Discard)
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Fprint(stdout, usage)
				return nil, 0
			}
			fmt.Fprintf(stderr, "agentready %s: %v\n\n%s", fs.Name(), err, usage)
			return nil, 2
		}
		if fs.NArg() == 0 {
			return positional, -1
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

func verifyAudit(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("verify-audit", flag.ContinueOnError)
	keyFlag := fs.String("key", "", "the site's Ed25519 public key, standard base64")
	sources, code := parseArgs(fs, args, stdout, stderr)
	if code >= 0 {
		return code
	}
	if len(sources) != 1 {
		fmt.Fprintf(stderr, "agentready verify-audit: want one FILE or URL, got %d\n\n%s", len(sources), usage)
		return 2
	}
	var key ed25519.PublicKey
	if *keyFlag != "" {
		b, err := base64.StdEncoding.DecodeString(*keyFlag)
		if err != nil || len(b) != ed25519.PublicKeySize {
			fmt.Fprintf(stderr, "agentready verify-audit: -key is not standard base64 of a %d-byte Ed25519 public key\n", ed25519.PublicKeySize)
			return 2
		}
		key = b
	}

	src := sources[0]
	doc, err := read(src)
	if err != nil {
		fmt.Fprintf(stdout, "FAIL: %s: %v\n", src, err)
		return 1
	}
	a, err := audit.VerifyJSON(doc, key)
	if err != nil {
		fmt.Fprintf(stdout, "FAIL: %s: %v\n", src, err)
		return 1
	}
	how := "with the key given by -key"
	if key == nil {
		how = "with the key embedded in the artifact, " + a.PublicKey +
			" (integrity only: pass -key with the site's published audit.public_key to prove the site signed it)"
	}
	unrecorded := ""
	n := 0
	for _, e := range a.Events {
		if e.ResponseStatus == audit.StatusUnrecorded {
			n++
		}
	}
	if n > 0 {
		// Recorded before they ran, their outcome never bound: the actions
		// may have happened, and their agents were answered 503.
		unrecorded = fmt.Sprintf(" (%d of them with their outcome not recorded: response_status 0)", n)
	}
	fmt.Fprintf(stdout, "OK: %s: session %q of %q, %d events%s, root hash %s, verified %s\n",
		src, a.SessionID, a.Site, len(a.Events), unrecorded, a.RootHash, how)
	return 0
}

// read returns the artifact at src, a file name or an http(s) URL, of at
// most maxArtifactSize bytes.
func read(src string) ([]byte, error) {
	var r io.Reader
	if strings.HasPrefix(src, "http://") || strings.HasPrefix(src, "https://") {
		resp, err := httpClient.Get(src)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("GET answered %s", resp.Status)
		}
		r = resp.Body
	} else {
		f, err := os.Open(src)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	b, err := io.ReadAll(io.LimitReader(r, maxArtifactSize+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxArtifactSize {
		return nil, fmt.Errorf("larger than %d MiB", maxArtifactSize>>20)
	}
	return b, nil
}
