package enforcer

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/authority"
	"github.com/agentready/agentready/internal/fields"
	"github.com/agentready/agentready/internal/oauthrs"
	"github.com/agentready/agentready/internal/policy"
	"github.com/agentready/agentready/internal/problem"
	"github.com/agentready/agentready/internal/reqbody"
	"github.com/agentready/agentready/internal/resolve"
	"github.com/agentready/agentready/internal/sessionmgr"
	"github.com/agentready/agentready/ratelimit"
	"github.com/agentready/agentready/session"
)

// setReportHeader adds HeaderReportOnly for d, a denial not applied.
func setReportHeader(w http.ResponseWriter, d *scope) {
	v := d.Outcome.String() + ";status=" + strconv.Itoa(d.Status)
	rule := d.Rule
	if rule == "" && d.Err != nil {
		rule = d.Err.Error()
	}
	if rule != "" {
		v += ";rule=" + fields.SFString(rule)
	}
	w.Header().Set(enforce.HeaderReportOnly, v)
}

// setRateHeaders adds RateLimit-Policy and RateLimit to an allowed response.
func (e *Enforcer) setRateHeaders(w http.ResponseWriter, d *scope) {
	if d.n == 0 || d.set.policy == nil {
		return
	}
	h := w.Header()
	h[fields.RateLimitPolicy] = d.set.policy
	h[fields.RateLimit] = []string{d.set.rateLimit.Value(d.set.limits[:d.n], d.Results[:d.n])}
}

// deny answers a denied request with application/problem+json (RFC 9457)
// whose detail names the declared rule, and a Link to agents.txt.
func (e *Enforcer) deny(w http.ResponseWriter, r *http.Request, d *scope) {
	switch {
	case d.Rule == ruleMCPSession, d.Rule == ruleMCPSessionStore:
		detail := errMCPSession.Error() // nothing of the verdict: a 404 says no more
		if d.Status >= 500 {
			if r.Context().Err() == nil { // else the client went away: no outage
				e.log.Error("agentready: MCP session bindings", "err", d.Err)
			}
			w.Header().Set(fields.RetryAfter, "1")
			detail = ruleMCPSessionStore + "; retry"
		}
		writeRPCError(w, d, problem.Problem{Status: d.Status, Detail: detail,
			Extra: map[string]any{"capability": d.Capability, "rule": d.Rule}})
		return
	case d.Outcome == enforce.DenySession:
		e.denySession(w, d)
		return
	}
	h := w.Header()
	if e.lines.link != nil {
		h["Link"] = e.lines.link
	}
	prob := problem.Problem{Status: d.Status, Extra: map[string]any{}}
	if d.Agent != "" {
		prob.Extra["agent"] = d.Agent
	}
	if d.Grade != "" {
		// Decision.Grade: proven, claimed or anonymous.
		prob.Extra["grade"] = d.Grade
	}
	if d.Grade != enforce.GradeAnonymous || d.Identity.Verified() {
		id := map[string]string{"claimed": d.Identity.Claimed, "verified": d.Identity.Method.String()}
		if d.Identity.Agent != "" {
			id["agent"] = d.Identity.Agent
		}
		prob.Extra["identity"] = id
	}
	if d.Capability != "" {
		prob.Extra["capability"] = d.Capability
	}
	if d.Rule != "" {
		prob.Extra["rule"] = d.Rule
	}
	e.explainDenial(w, r, d, &prob)
	if d.mcp.rpc {
		if d.Tool != "" {
			prob.Extra["tool"] = d.Tool
		}
		writeRPCError(w, d, prob)
		return
	}
	if err := problem.Write(w, prob); err != nil {
		e.log.Debug("agentready: writing problem response", "err", err)
	}
}

// explainDenial fills prob's detail, and the fields of the answer, for
// what refused d: the rule and what would be accepted instead.
func (e *Enforcer) explainDenial(w http.ResponseWriter, r *http.Request, d *scope, prob *problem.Problem) {
	h := w.Header()
	switch d.Outcome {
	case enforce.DenyPath:
		if strings.HasPrefix(d.Rule, "paths longer") {
			prob.Detail = d.Rule
		} else if e.p.Implicit {
			prob.Detail = fmt.Sprintf("%s is not a declared capability endpoint; with no Allow/Disallow rules declared, agents may use only capability endpoints (draft-car 2.6)", r.URL.Path)
		} else {
			prob.Detail = fmt.Sprintf("%q in agents.txt closes %s to agents", d.Rule, r.URL.Path)
		}
	case enforce.DenyCapability:
		prob.Detail = fmt.Sprintf("agent policy %q does not permit capability %q (%s)", d.Agent, d.Capability, d.Rule)
		switch {
		case d.mcp.asked != "" && d.mcp.ti < 0:
			prob.Detail = fmt.Sprintf("capability %q does not list the tool %.128q (%s; tool names are matched exactly)", d.Capability, d.mcp.asked, d.Rule)
		case d.mcp.ti >= 0:
			prob.Detail = fmt.Sprintf("agent policy %q does not permit the tool %q of capability %q (%s)", d.Agent, d.Tool, d.Capability, d.Rule)
		}
		if _, ok := e.p.CapabilityIndex(d.Capability); !ok {
			// The Recorder refused a capability a reload removed.
			prob.Detail = d.Rule + "; the session was created before"
		}
	case enforce.DenyPreference:
		prob.Detail = fmt.Sprintf("the site's usage preference %q refuses %s agents this path", d.Rule, d.class.Purpose)
		if d.class.Purpose == policy.PurposeUnknown {
			prob.Detail = fmt.Sprintf("the site's usage preference %q refuses agents of unknown purpose this path (it holds them to a purpose it refuses)", d.Rule)
		}
		prob.Extra["purpose"] = d.Class.Purpose
	case enforce.DenyIdentity:
		prob.Detail = fmt.Sprintf("agent policy %q is verified-only and the request did not prove its claim: %v", d.Identity.Claimed, d.Err)
		prob.Extra["reason"] = d.Identity.Reason
		// draft-ietf-webbotauth-httpsig-protocol-01 5.3: say which
		// signature would be accepted; its nonce is fresh, so the answer
		// is not stored.
		if v := e.verifier.AcceptSignature(d.Agent); v != "" {
			h.Set("Accept-Signature", v)
			h.Set("Cache-Control", "no-store")
		}
	case enforce.DenyAuth:
		e.explainAuth(h, d, prob)
	case enforce.DenyRate:
		secs := problem.RetryAfterSeconds(d.RetryAfter)
		h.Set(fields.RetryAfter, strconv.Itoa(secs))
		e.setRateHeaders(w, d)
		prob.Type = problem.QuotaExceeded
		prob.Title = "Quota Exceeded"
		prob.Extra["limit"] = d.Limit
		prob.Detail = fmt.Sprintf("rate limit %q (%s) is exhausted; retry in %d s", d.Limit, strings.TrimPrefix(d.Rule, "Rate-Limit: "), secs)
	case enforce.DenyHost:
		prob.Detail = d.Err.Error()
		var he *authority.Error
		if errors.As(d.Err, &he) {
			prob.Extra["hosts"] = he.Admitted
		}
	case enforce.DenyTarget:
		if d.mcp.rpc {
			prob.Detail = fmt.Sprintf("the MCP message is refused: %v", d.Err)
			break
		}
		prob.Detail = fmt.Sprintf("the request target %q is refused: %v; agents must send a request that every router reads the same way", r.RequestURI, d.Err)
		var te *policy.TargetError
		if errors.As(d.Err, &te) {
			prob.Extra["fault"] = te.Code
			if te.Part != "" {
				prob.Extra["part"] = te.Part
			}
		}
	case enforce.DenyParams:
		explainParams(d, prob)
	case enforce.DenyBody:
		prob.Detail = fmt.Sprintf("%v; this call is recorded in the session's audit trail, which reads and records a body before the action runs", d.Err)
		if !d.recorded && d.ci >= 0 && (d.Err == reqbody.ErrTooLarge || d.Err == reqbody.ErrRead) {
			// The tool or params stage read it: an MCP message, body params.
			prob.Detail = fmt.Sprintf("%v (%d bytes); agentready reads it before the action runs", d.Err, resolve.BodyLimit(e.p.Capabilities[d.ci].Decl))
		}
	case enforce.StoreError:
		retry := 1
		var ue *ratelimit.UnavailableError
		switch {
		case errors.As(d.Err, &ue):
			// A Failover failing closed: it logged the outage once, and
			// knows when it probes the store again.
			retry = problem.RetryAfterSeconds(ue.RetryAfter)
		case r.Context().Err() != nil && errors.Is(d.Err, r.Context().Err()):
			// The client went away while its limits were asked: no outage,
			// and no error line a client can make at will.
			e.log.Debug("agentready: a request ended while its limits were counted", "err", d.Err)
		default:
			e.log.Error("agentready: rate-limit store failed", "err", d.Err)
		}
		h.Set(fields.RetryAfter, strconv.Itoa(retry))
		prob.Detail = "the rate-limit store is unavailable"
	}
}

// denySession answers 401 (or the status sessionmgr.ErrorStatus gives) in
// problem+json with the v0.1.0 envelope members ok and error.
func (e *Enforcer) denySession(w http.ResponseWriter, d *scope) {
	status, msg := sessionmgr.ErrorStatus(d.Err)
	if status >= 500 {
		e.log.Error("agentready: session store failed", "err", d.Err)
		w.Header().Set(fields.RetryAfter, "1")
	}
	if e.lines.link != nil {
		w.Header()["Link"] = e.lines.link
	}
	detail := "capability " + `"` + d.Capability + `"` + " requires a session: " + msg +
		" (create one with POST on the session endpoint and send its token in " + session.HeaderSession + ")"
	if d.Rule == enforce.RuleSessionStore {
		detail = "the session presented in " + session.HeaderSession + " cannot be checked: " + msg + "; retry"
	}
	prob := problem.Problem{Status: status, Detail: detail,
		Extra: map[string]any{"ok": false, "error": msg, "rule": d.Rule, "capability": d.Capability}}
	if d.Agent != "" {
		prob.Extra["agent"] = d.Agent
	}
	_ = problem.Write(w, prob)
}

func credentialHint(a *config.Auth) string {
	switch resolve.AuthType(*a) {
	case config.AuthBearerToken, config.AuthOAuth2:
		return "send an Authorization: Bearer token"
	case config.AuthAPIKey:
		return "send the key in the " + resolve.Header(*a) + " header"
	case config.AuthHMAC:
		return "sign the request (Signature, RFC 9421) or send an Authorization header"
	}
	return ""
}

// explainAuth fills prob and the answer's fields for a refused credential:
// the challenge (the capability's and tool's scopes and metadata, or a
// verified token's own answer), what credential is wanted and where it is
// had.
func (e *Enforcer) explainAuth(h http.Header, d *scope, prob *problem.Problem) {
	ci := d.ci
	c := &e.p.Capabilities[ci]
	ch := e.lines.challenges[ci]
	if d.mcp.ti >= 0 {
		ch = e.lines.toolChallenges[ci][d.mcp.ti]
	}
	var oe *oauthrs.Error
	if errors.As(d.Err, &oe) {
		// The verified token's answer: invalid_token, or
		// insufficient_scope with every scope the call needs; none
		// while the issuer's keys cannot be had (503).
		ch = ""
		if oe.Status() != http.StatusServiceUnavailable {
			decl := c.Decl
			if d.mcp.ti >= 0 {
				decl = c.Tools[d.mcp.ti].Decl
			}
			ch = oe.Challenge(e.p.Site().Name, metadataURL(c.Decl), decl.Auth.Scopes).String()
		} else {
			h.Set(fields.RetryAfter, "1")
		}
	}
	if ch != "" {
		h.Set("WWW-Authenticate", ch)
	}
	if d.Err != nil {
		prob.Detail = fmt.Sprintf("capability %q rejected the credential: %v", d.Capability, d.Err)
	} else {
		prob.Detail = fmt.Sprintf("capability %q declares %q: %s", d.Capability, d.Rule, credentialHint(&c.Auth))
	}
	if c.Auth.TokenEndpoint != "" {
		prob.Extra["token_endpoint"] = c.Auth.TokenEndpoint
		prob.Detail += "; tokens from " + c.Auth.TokenEndpoint
	}
	if c.Auth.DocsURL != "" {
		prob.Extra["auth_docs"] = c.Auth.DocsURL
	}
}
