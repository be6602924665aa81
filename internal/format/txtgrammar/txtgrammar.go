// Package txtgrammar holds the rules of the two agents.txt grammars
// (draft-car-agents-txt-wellknown-00 and the agents.txt Format
// Specification v0.1.0) that decide whether a value can be written so that
// it reads back as itself. config.Validate applies them to a Site and names
// the field that breaks one; the agentstxt renderer writes only sites that
// passed, and its parser reads flows with FlowArrows. The rule every line
// shares is package linetext's.
package txtgrammar

import (
	"math"
	"regexp"
	"slices"
	"strings"
	"time"
)

var (
	// DraftCarID: "Capability identifiers MUST consist of lowercase
	// letters, digits, and hyphens only" (draft-car 2.5); the agents.json
	// schema adds that the first is not a hyphen.
	DraftCarID = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)
	// V010ID is a v0.1.0 capability name (Allow: <name>).
	V010ID = regexp.MustCompile(`^[a-z][a-z0-9_.]*$`)
	// ParamName is what a name may hold in a draft-car Param line,
	// "name (location, type[, required]) - description" (2.5).
	ParamName = regexp.MustCompile(`^[^\s(),]+$`)
)

// FlowArrows separate a v0.1.0 flow's name from its steps ("Flow: <name> →
// <step1>, <step2>"). The spec writes "→"; "->" is what people type, and
// the parser reads both.
var FlowArrows = [...]string{"→", "->"}

// FlowNameOK reports whether name can be written before a flow's arrow: it
// holds neither an arrow nor the ',' that separates the steps.
func FlowNameOK(name string) bool {
	return !strings.Contains(name, ",") && !slices.ContainsFunc(FlowArrows[:], func(a string) bool { return strings.Contains(name, a) })
}

// GeneratedAtLayout is RFC 3339 in UTC with whole seconds, as draft-car
// Appendix A writes Generated-At ("2026-02-01T00:00:00Z").
const GeneratedAtLayout = "2006-01-02T15:04:05Z"

// TimeOK reports whether t has an RFC 3339 form: its year is 0000-9999.
func TimeOK(t time.Time) bool {
	y := t.UTC().Year()
	return y >= 0 && y <= 9999
}

// MaxPerMinuteRequests bounds the requests of a rate written as
// "<number>/minute" (v0.1.0 Rate-Limit): converting a rate to per minute
// multiplies its requests by a minute in nanoseconds, which overflows
// int64 above this.
const MaxPerMinuteRequests = math.MaxInt64 / int64(time.Minute)
