package agentstxt

import (
	"strconv"
	"strings"
	"time"

	"github.com/agentready/agentready/config"
)

// parseV010 reads the v0.1.0 grammar ("Format Rules", "Parsing"). It has no
// blocks: indentation is insignificant.
func parseV010(src string, f *File, w *warner) {
	s := &f.Site
	top := scope{w: w}
	var caps map[string]int
	flowDescribed := false
	each(src, w, func(l *line) bool {
		switch l.fld {
		case fSite:
			if top.take(l) {
				s.Name = l.value
			}
		case fURL:
			if top.take(l) {
				s.URL = l.value
			}
		case fDescription:
			if top.take(l) {
				s.Description = l.value
			}
		case fContact:
			if top.take(l) {
				s.Contact = l.value
			}
		case fAgentsJSON:
			if top.take(l) {
				s.AgentsJSONURL = l.value
			}
		case fAllow:
			// One capability per line ("Allow Field").
			if !nonEmpty(w, l) {
				break
			}
			if caps == nil {
				caps = map[string]int{}
			}
			if first, dup := caps[l.value]; dup {
				w.add(l.num, "duplicate Allow "+quote(l.value)+" (first on line "+itoa(first)+")")
			} else {
				caps[l.value] = l.num
			}
			s.Capabilities = append(s.Capabilities, config.Capability{ID: l.value})
		case fFlow:
			if fl, ok := parseFlow(w, l); ok {
				s.Flows = append(s.Flows, fl)
				flowDescribed = false
			}
		case fFlowDescription:
			// Describes the preceding Flow.
			switch {
			case !nonEmpty(w, l):
			case len(s.Flows) == 0:
				w.add(l.num, "Flow-Description without a preceding Flow ignored")
			case flowDescribed:
				w.add(l.num, "duplicate Flow-Description ignored; the first one counts")
			default:
				s.Flows[len(s.Flows)-1].Description = l.value
				flowDescribed = true
			}
		case fRateLimit:
			if top.take(l) {
				s.RateLimit = parseRate(w, l)
			}
		case fSessionTTL:
			if top.take(l) {
				s.Session.TTL = parseTTL(w, l)
			}
		case fAudit:
			if top.take(l) {
				switch strings.ToLower(l.value) {
				case "true":
					s.Audit.Enabled = true
				case "false":
				default:
					w.add(l.num, "Audit "+quote(l.value)+" is not true or false; read as false")
				}
			}
		case fAuditEndpoint:
			if top.take(l) {
				s.Audit.Endpoint = l.value
			}
		case fUnknown:
			unknownField(w, l)
		default:
			w.add(l.num, l.fld.String()+" is not a v0.1.0 field (draft-car?); ignored")
		}
		return true
	})
	for _, req := range [...]field{fSite, fURL} {
		if !top.seen.has(req) {
			w.add(0, req.String()+" missing (required, v0.1.0)")
		}
	}
	if len(s.Capabilities) == 0 {
		w.add(0, "no Allow line: the site declares no capability")
	}
}

// parseFlow reads "name → step, step" ("Flow Field").
func parseFlow(w *warner, l *line) (config.Flow, bool) {
	name, steps, ok := cutFlow(l.value)
	if !ok {
		w.add(l.num, `Flow skipped: want "name → step, step, ..."`)
		return config.Flow{}, false
	}
	if name == "" {
		w.add(l.num, "Flow skipped: empty flow name")
		return config.Flow{}, false
	}
	fl := config.Flow{Name: name, Steps: splitList(steps)}
	if len(fl.Steps) == 0 {
		w.add(l.num, "Flow "+quote(name)+" skipped: no steps")
		return config.Flow{}, false
	}
	return fl, true
}

// parseTTL reads "<number>s"; the unit may be left out.
func parseTTL(w *warner, l *line) time.Duration {
	v := strings.TrimSuffix(strings.TrimSuffix(l.value, "s"), "S")
	n, err := strconv.ParseInt(trim(v), 10, 64)
	if err != nil || n <= 0 || n > maxTTLSeconds {
		w.add(l.num, "Session-TTL "+quote(l.value)+" ignored: want a positive number of seconds, as in 1800s")
		return 0
	}
	return time.Duration(n) * time.Second
}

// parseRate reads "N/window" (draft-car 2.5; v0.1.0 writes N/minute).
func parseRate(w *warner, l *line) config.Rate {
	r, err := config.ParseRate(l.value)
	if err != nil {
		w.add(l.num, "Rate-Limit "+quote(l.value)+" ignored: want N/window, window one of second, minute, hour, day")
		return config.Rate{}
	}
	return r
}
