package webbotauth

import (
	"fmt"
	"strings"

	sfv "github.com/dunglas/httpsfv"

	"github.com/agentready/agentready/internal/httpsyntax"
)

// agentMember is one Signature-Agent member
// (draft-ietf-webbotauth-httpsig-protocol-01 5.2.1).
type agentMember struct {
	name string // Dictionary member name; "" for the legacy sf-string form
	uri  string // the member's String value
	// ignored says why the member is not used: it carries parameters,
	// which 5.2.1 says a verifier MUST ignore ("type" selected a discovery
	// mechanism in earlier revisions; -01 removed them all).
	ignored string
	// err is set when the member is not a String (wraps ErrMalformed).
	err error
}

// agentField is a parsed Signature-Agent field.
type agentField struct {
	present bool
	legacy  bool          // the field is a bare sf-string (the earlier form)
	members []agentMember // in field order; one unnamed member when legacy
	err     error         // why the field does not parse (wraps ErrMalformed)
}

// parseSignatureAgent parses every line of a Signature-Agent field. The
// current form is an SF Dictionary whose members are Strings holding a URL
// (5.2.1); the legacy form is a bare String Item, which 5.2.1 lets a
// verifier read as a Dictionary of one member keyed by the label of the
// signature covering it. They differ at the first character: a String
// starts with a double quote, a Dictionary key never does. A member that
// is not a String is kept with an error, so that it spoils only the
// signature it belongs to (each signature is verified on its own, 5.2.2);
// a field that is not a Dictionary spoils every signature that covers it.
func parseSignatureAgent(lines []string) agentField {
	if len(lines) == 0 {
		return agentField{}
	}
	f := agentField{present: true}
	joined := make([]string, len(lines))
	for i, l := range lines {
		joined[i] = httpsyntax.TrimOWS(l)
	}
	if strings.HasPrefix(joined[0], `"`) {
		it, err := sfv.UnmarshalItem(joined)
		if err != nil {
			f.err = fmt.Errorf("%w: Signature-Agent: %v", ErrMalformed, err)
			return f
		}
		f.legacy = true
		f.members = []agentMember{agentFromItem("", it)}
		return f
	}
	d, err := sfv.UnmarshalDictionary(joined)
	if err != nil {
		f.err = fmt.Errorf("%w: Signature-Agent: %v", ErrMalformed, err)
		return f
	}
	if len(d.Names()) == 0 {
		f.err = fmt.Errorf("%w: Signature-Agent is empty", ErrMalformed)
		return f
	}
	for _, name := range d.Names() {
		v, _ := d.Get(name)
		it, ok := v.(sfv.Item)
		if !ok {
			f.members = append(f.members, agentMember{name: name,
				err: fmt.Errorf("%w: Signature-Agent member %q is an Inner List", ErrMalformed, name)})
			continue
		}
		f.members = append(f.members, agentFromItem(name, it))
	}
	return f
}

func agentFromItem(name string, it sfv.Item) agentMember {
	s, ok := it.Value.(string)
	if !ok {
		return agentMember{name: name, err: fmt.Errorf("%w: Signature-Agent member %q is not a String", ErrMalformed, name)}
	}
	m := agentMember{name: name, uri: s}
	if it.Params != nil && len(it.Params.Names()) > 0 {
		m.ignored = "it carries parameters (" + strings.Join(it.Params.Names(), ", ") + ")"
	}
	return m
}

func (f *agentField) member(name string) (agentMember, bool) {
	for _, m := range f.members {
		if m.name == name {
			return m, true
		}
	}
	return agentMember{}, false
}

// ownAgent returns the Signature-Agent member that is the candidate's own:
// the one it covers, keyed to its label (5.2.1: "Its member keyed to the
// signature label MUST be signed as a component"). A signature is never
// attributed to a member it does not cover (5.2.2), and each signature of
// a request is bound to its own member alone.
//
// The label is not signed, and intermediaries may change it (RFC 9421
// 7.2.5; draft 6.6.1), while the member's key is signed: the draft's own
// test vectors (E.1.1, E.2.1) sign under label "sig2" the member keyed
// "agent2". So a signature covering exactly one keyed member owns that
// member whatever its label; covering several, it owns the one keyed to
// its label (the remote browser of D.2 covers the agent's member beside
// its own); covering the whole field, it owns a legacy string, a
// Dictionary's only member, or the member keyed to its label. Anything
// else is ambiguous, and refused.
//
// No Signature-Agent, or an own member that carries parameters, is
// ErrNoAgent: the signature names no key directory, and is not verified
// (4.3, 5.2.1). A Signature-Agent sent but not covered, covered but not
// sent, or a binding that stays ambiguous is ErrMalformed.
func (c *candidate) ownAgent(f *agentField) (agentMember, error) {
	var keys []string
	whole := false
	for _, it := range c.input.Items {
		if s, ok := it.Value.(string); !ok || s != "signature-agent" {
			continue
		}
		if it.Params != nil {
			if k, ok := it.Params.Get("key"); ok {
				if ks, ok := k.(string); ok {
					keys = append(keys, ks)
				}
				continue
			}
		}
		whole = true
	}
	if !f.present {
		if whole || len(keys) > 0 {
			return agentMember{}, fmt.Errorf("%w: %s covers Signature-Agent but none was sent", ErrMalformed, c.label)
		}
		return agentMember{}, fmt.Errorf("%w: %s: the request has no Signature-Agent, which a signed request must carry (5.2.1)", ErrNoAgent, c.label)
	}
	if f.err != nil {
		return agentMember{}, f.err
	}
	if !whole && len(keys) == 0 {
		return agentMember{}, fmt.Errorf("%w: Signature-Agent is sent but %s does not cover its member", ErrMalformed, c.label)
	}
	var m agentMember
	switch {
	case len(keys) > 0 && f.legacy:
		return agentMember{}, fmt.Errorf("%w: %s covers a Signature-Agent member but the field is a legacy string", ErrMalformed, c.label)
	case len(keys) > 0:
		key := keys[0]
		if len(keys) > 1 {
			key = ""
			for _, k := range keys {
				if k == c.label {
					key = k
				}
			}
			if key == "" {
				return agentMember{}, fmt.Errorf("%w: %s covers several Signature-Agent members, none keyed to its label", ErrMalformed, c.label)
			}
		}
		var ok bool
		if m, ok = f.member(key); !ok {
			return agentMember{}, fmt.Errorf("%w: Signature-Agent has no member %q", ErrMalformed, key)
		}
	case f.legacy || len(f.members) == 1:
		m = f.members[0]
	default:
		var ok bool
		if m, ok = f.member(c.label); !ok {
			return agentMember{}, fmt.Errorf("%w: %s covers a Signature-Agent of several members, none keyed to its label", ErrMalformed, c.label)
		}
	}
	if m.err != nil {
		return agentMember{}, m.err
	}
	if m.ignored != "" {
		return agentMember{}, fmt.Errorf("%w: %s: its Signature-Agent member is ignored: %s (5.2.1)", ErrNoAgent, c.label, m.ignored)
	}
	return m, nil
}
