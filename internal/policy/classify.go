package policy

import (
	"errors"
	"fmt"
)

// Kind is what a User-Agent says its client is.
type Kind uint8

// Kinds, from Classify.
const (
	// Browser: a plausible browser (see the package documentation) in
	// which no declared, known or generic name appears; not an agent.
	Browser Kind = iota
	// Declared: a name of one of the site's agent policies appears.
	Declared
	// Known: a known automated agent (AI agents and crawlers) appears.
	Known
	// Generic: a generic automation client (an HTTP library, a command-
	// line tool, a headless browser).
	Generic
	// Unknown: neither a browser nor a listed name: an unknown client
	// ("MyScraper/1.0"), an empty or missing User-Agent, one longer than
	// the classifier reads, one with control or non-ASCII characters. An
	// agent under the default policy "*".
	Unknown
)

func (k Kind) String() string {
	switch k {
	case Browser:
		return "browser"
	case Declared:
		return "declared"
	case Known:
		return "known"
	case Generic:
		return "generic"
	case Unknown:
		return "unknown"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// MarshalText implements encoding.TextMarshaler with String, so that a
// Kind logs by name in JSON (log/slog, encoding/json), not as a number.
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// Class is the classification of one User-Agent.
type Class struct {
	Kind Kind
	// Name is the canonical name of what matched: the declared policy
	// name as written, the known agent's or generic client's name as
	// listed; "" for a browser and an unknown client.
	Name string
	// Policy is the index of the declared policy (in the slice given to
	// NewClassifier) when Kind is Declared, -1 otherwise.
	Policy int
	// Purpose is the known purpose of the name that matched (PurposeOf).
	Purpose Purpose
}

// Agent reports whether the client is an agent (anything but a browser).
func (c Class) Agent() bool { return c.Kind != Browser }

// maxNameLen bounds the names the classifier can hold and look up: a
// token is lower-cased into a fixed stack buffer of this size.
const maxNameLen = 64

// Classifier classifies User-Agents by their product tokens. It is
// immutable and safe for concurrent use; the zero value knows no names
// (use NewClassifier). Classify costs the same whatever
// the length of the name lists: one hash-table probe per token.
type Classifier struct {
	tab         nameTable
	hasDeclared bool
	// browser holds the site's own browser product tokens, lower case
	// (WithBrowserTokens); nil when there are none.
	browser map[string]bool
}

// emptyClassifier stands in for a zero Classifier.
var emptyClassifier = &Classifier{tab: newNameTable(nil)}

// ClassifierOption adjusts the name lists of NewClassifier.
type ClassifierOption func(*classifierLists)

type classifierLists struct {
	known, generic []string
	without        []string
	browser        []string
}

// WithBrowserTokens names product tokens that pass as browsers: a
// User-Agent in which one of them appears as a product token (and no
// declared, known or generic name does) is a Browser, whatever its shape,
// and a plausible browser User-Agent may carry them after its browser
// products. Use it for the site's own apps ("ShopApp/3.2 (iPhone; iOS
// 17.1)") or an in-app browser the site wants to treat as a person's.
// Anyone can send these tokens: they only decide which requests skip
// enforcement, so name only what the site is ready to let pass.
func WithBrowserTokens(names ...string) ClassifierOption {
	return func(l *classifierLists) { l.browser = append(l.browser, names...) }
}

// WithExtraKnown adds names of known agents to the built-in list.
func WithExtraKnown(names ...string) ClassifierOption {
	return func(l *classifierLists) { l.known = append(l.known, names...) }
}

// WithExtraGeneric adds names of generic automation clients to the
// built-in list.
func WithExtraGeneric(names ...string) ClassifierOption {
	return func(l *classifierLists) { l.generic = append(l.generic, names...) }
}

// WithoutNames removes names (case-insensitively) from the known and
// generic lists: for instance "okhttp" and "Dart" for a site whose own
// mobile apps call it with those clients' default User-Agents.
func WithoutNames(names ...string) ClassifierOption {
	return func(l *classifierLists) { l.without = append(l.without, names...) }
}

// NewClassifier returns a classifier for the declared agent policy names
// (in AgentPolicy order; Class.Policy indexes this slice). The default
// policy "*" is not a name and is ignored, and so are names that
// CheckAgentName rejects, which can never match a product token. When a
// name appears twice (case-insensitively) the first policy is used.
//
// Precedence for one token: declared, then known, then generic. Names of
// the known list that contain a space cannot be product tokens; they are
// looked up by their first word (see KnownAgents).
func NewClassifier(declared []string, opts ...ClassifierOption) *Classifier {
	lists := classifierLists{known: KnownAgents(), generic: GenericClients()}
	for _, o := range opts {
		o(&lists)
	}
	without := make(map[string]bool, len(lists.without))
	for _, n := range lists.without {
		without[asciiLower(n)] = true
	}
	var entries []nameEntry
	seen := map[string]bool{}
	add := func(key string, c Class) {
		key = asciiLower(key)
		if seen[key] || CheckAgentName(key) != nil {
			return
		}
		seen[key] = true
		entries = append(entries, nameEntry{key: key, class: c})
	}
	c := &Classifier{}
	for i, n := range declared {
		if n == "*" || CheckAgentName(n) != nil {
			continue
		}
		c.hasDeclared = true
		add(n, Class{Kind: Declared, Name: n, Policy: i, Purpose: PurposeOf(n)})
	}
	generic := make(map[string]bool, len(lists.generic))
	for _, n := range lists.generic {
		generic[asciiLower(n)] = true
	}
	// Names listed as product tokens come first, so that "Brightbot" is
	// reported as itself, not as "Brightbot 1.0".
	for _, exact := range []bool{true, false} {
		for _, n := range lists.known {
			k, ok := knownToken(n, generic)
			if !ok || (k == n) != exact || without[asciiLower(n)] || without[asciiLower(k)] {
				continue
			}
			add(k, Class{Kind: Known, Name: n, Policy: -1, Purpose: PurposeOf(k)})
		}
	}
	for _, n := range lists.generic {
		if !without[asciiLower(n)] {
			add(n, Class{Kind: Generic, Name: n, Policy: -1})
		}
	}
	c.tab = newNameTable(entries)
	for _, n := range lists.browser {
		if CheckAgentName(n) != nil {
			continue
		}
		if c.browser == nil {
			c.browser = map[string]bool{}
		}
		c.browser[asciiLower(n)] = true
	}
	return c
}

// asciiLower lower-cases ASCII letters only, as lookups fold case: a
// non-ASCII name must match byte for byte.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		b[i] = lower(c)
	}
	return string(b)
}

// CheckAgentName reports why name can never equal a product-token name,
// or nil: it must be 1 to 64 bytes of characters other than whitespace,
// controls, '/', ';', ',', '(' and ')'. A declaration whose agent name
// fails this check would never apply to any request.
func CheckAgentName(name string) error {
	switch {
	case name == "":
		return errors.New("empty agent name")
	case len(name) > maxNameLen:
		return fmt.Errorf("agent name longer than %d bytes", maxNameLen)
	}
	for i := 0; i < len(name); i++ {
		if uaClass[name[i]] != 0 {
			return fmt.Errorf("agent name %q contains %q, which ends a User-Agent product token", name, name[i])
		}
	}
	return nil
}

// Classify classifies a User-Agent header value. It reads the product
// tokens in order (see Tokens) and compares each, case-insensitively and
// exactly, with the names: a declared name wins wherever it appears;
// otherwise the first token that is a known or generic name decides. With
// no match the client is a Browser if the User-Agent is a plausible
// browser's (see the package documentation) or carries one of the site's
// browser tokens (WithBrowserTokens), and Unknown otherwise: empty,
// unknown, longer than MaxUserAgentLen. Classify does not allocate.
func (c *Classifier) Classify(ua string) Class {
	s := ua
	if len(s) > MaxUserAgentLen {
		s = s[:MaxUserAgentLen]
	}
	if len(c.tab.slots) == 0 {
		// A zero Classifier knows no names.
		c = emptyClassifier
	}
	slots, mask := c.tab.slots, c.tab.mask
	var found *Class
	siteBrowser := false
	i, depth, tokens := 0, 0, 0
	// The loop is Tokens.Next inlined by hand: this is the per-request
	// path, and the tokenizer state stays in registers.
	for tokens < MaxUserAgentTokens {
		var start, end int
		start, end, i, depth = nextName(s, i, depth)
		if start == end {
			break
		}
		tokens++
		name := s[start:end]
		if len(name) > maxNameLen {
			continue
		}
		if c.browser != nil && !siteBrowser && hasLower(c.browser, name) {
			siteBrowser = true
		}
		// nameTable.lookup, its common miss inlined: most tokens are no
		// name, and their first slot is empty.
		h := hashName(name)
		j := h & mask
		if slots[j].entry == 0 {
			continue
		}
		e := c.tab.probe(name, h, j)
		if e == nil {
			continue
		}
		if e.Kind == Declared || !c.hasDeclared {
			return *e
		}
		if found == nil {
			found = e
		}
	}
	switch {
	case found != nil:
		return *found
	case siteBrowser || plausibleBrowser(ua, c.browser):
		return Class{Kind: Browser, Policy: -1}
	}
	return Class{Kind: Unknown, Policy: -1}
}

// hasLower reports whether m holds name lower-cased (ASCII); name has at
// most maxNameLen bytes. The conversion of the stack buffer in the map
// index does not allocate.
func hasLower(m map[string]bool, name string) bool {
	if len(name) > maxNameLen {
		return false
	}
	var buf [maxNameLen]byte
	n := copy(buf[:], name)
	for i := range n {
		buf[i] = lower(buf[i])
	}
	return m[string(buf[:n])]
}
