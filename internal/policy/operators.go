package policy

import (
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"sync"
)

// loadOperators reads the operator field of data/ai-robots.json: the
// names of an operator's agents, for lint to suggest when a policy names
// the operator ("openai") instead of an agent.
var loadOperators = sync.OnceValue(func() map[string]string {
	var m map[string]struct {
		Operator string `json:"operator"`
	}
	if err := json.Unmarshal(aiRobotsJSON, &m); err != nil {
		// Embedded at build time and parsed by the tests (loadKnown).
		panic(fmt.Sprintf("policy: embedded data/ai-robots.json: %v", err))
	}
	out := make(map[string]string, len(m))
	for name, e := range m {
		if op := operatorName(e.Operator); op != "" {
			out[name] = op
		}
	}
	return out
})

// Operators returns the operator of each agent of the ai.robots.txt data
// (data/ai-robots.json) that names one, keyed by the agent's name as
// KnownAgents lists it: the link text of a Markdown link ("[OpenAI](https://openai.com)"
// is "OpenAI"), else the field as written; an agent whose operator is
// "Unclear at this time." or a bare URL is left out. Our supplementary
// agents have no operator here.
func Operators() map[string]string { return maps.Clone(loadOperators()) }

// operatorName is the operator a field of the data names, "" for none.
func operatorName(field string) string {
	field = strings.TrimSpace(field)
	if text, rest, ok := strings.Cut(strings.TrimPrefix(field, "["), "]("); ok && strings.HasPrefix(field, "[") && strings.HasSuffix(rest, ")") {
		return strings.TrimSpace(text)
	}
	if field == "" || strings.HasPrefix(field, "Unclear") || strings.Contains(field, "://") {
		return ""
	}
	return field
}
