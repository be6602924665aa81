package webbotauth

import (
	"fmt"
	"net/http"

	sfv "github.com/dunglas/httpsfv"
)

// Tags (the "tag" signature parameter, RFC 9421 2.3) this package acts on.
const (
	tagWebBotAuth = "web-bot-auth"                      // draft-ietf-webbotauth-httpsig-protocol-01 5.2
	tagDirectory  = "http-message-signatures-directory" // idem B.1
)

// maxCandidates bounds the signatures with the wanted tag that one request
// may offer: each may cost a key lookup and a signature verification. (A
// directory response signs once per key: it may offer maxDirectoryKeys.)
const maxCandidates = 8

// maxUnixSeconds bounds created, expires, nbf and exp (9999-12-31T23:59:59Z).
const maxUnixSeconds = 253402300799

// candidate is one signature offered with the wanted tag.
type candidate struct {
	label string
	input sfv.InnerList // the Signature-Input member: covered components and parameters
	sig   []byte        // the Signature member's bytes
	err   error         // set when the candidate is unusable as sent (wraps ErrMalformed)
}

// selectSignatures returns the signatures of h tagged tag, in
// Signature-Input order (RFC 9421 4.1, 4.2): every field line of
// Signature-Input and of Signature is read (a Dictionary may be split over
// lines). No Signature-Input, or no member with the tag, is
// ErrNoSignature; fields that do not parse, a tagged input without its
// Signature member or more than max tagged signatures are ErrMalformed. A tagged input whose signature is unusable is returned with
// err set, so that another candidate may still verify.
func selectSignatures(h http.Header, tag string, max int) ([]candidate, error) {
	inputs := h.Values("Signature-Input")
	sigs := h.Values("Signature")
	if len(inputs) == 0 {
		// A Signature alone is not RFC 9421 (it may be the older
		// draft-cavage scheme): no Web Bot Auth signature is offered.
		return nil, fmt.Errorf("%w: no Signature-Input", ErrNoSignature)
	}
	inDict, err := sfv.UnmarshalDictionary(inputs)
	if err != nil {
		return nil, fmt.Errorf("%w: Signature-Input: %v", ErrMalformed, err)
	}
	var cands []candidate
	for _, label := range inDict.Names() {
		m, _ := inDict.Get(label)
		il, ok := m.(sfv.InnerList)
		if !ok || il.Params == nil {
			continue // not a signature input; it cannot carry our tag
		}
		if t, _ := il.Params.Get("tag"); t != tag {
			continue
		}
		cands = append(cands, candidate{label: label, input: il})
	}
	if len(cands) == 0 {
		return nil, fmt.Errorf("%w: no Signature-Input member with tag=%q", ErrNoSignature, tag)
	}
	if len(cands) > max {
		return nil, fmt.Errorf("%w: %d signatures with tag=%q (at most %d)", ErrMalformed, len(cands), tag, max)
	}
	if len(sigs) == 0 {
		return nil, fmt.Errorf("%w: Signature-Input without Signature", ErrMalformed)
	}
	sigDict, err := sfv.UnmarshalDictionary(sigs)
	if err != nil {
		return nil, fmt.Errorf("%w: Signature: %v", ErrMalformed, err)
	}
	for i := range cands {
		c := &cands[i]
		m, ok := sigDict.Get(c.label)
		if !ok {
			c.err = fmt.Errorf("%w: %s: no Signature member for the label", ErrMalformed, c.label)
			continue
		}
		it, ok := m.(sfv.Item)
		var b []byte
		if ok {
			b, ok = it.Value.([]byte)
		}
		if !ok || len(b) == 0 {
			c.err = fmt.Errorf("%w: %s: Signature member is not a Byte Sequence", ErrMalformed, c.label)
			continue
		}
		c.sig = b
	}
	return cands, nil
}

// sigParams are the signature parameters this package reads (RFC 9421 2.3).
type sigParams struct {
	created, expires       int64
	hasCreated, hasExpires bool
	keyID, alg, nonce      string
}

// readParams reads the signature parameters of a candidate; a parameter of
// the wrong type or out of range is ErrMalformed. Other parameters are
// kept in the signature base and otherwise ignored.
func readParams(c *candidate) (sigParams, error) {
	var p sigParams
	ps := c.input.Params
	for _, name := range ps.Names() {
		v, _ := ps.Get(name)
		switch name {
		case "created", "expires":
			n, ok := v.(int64)
			if !ok || n < 0 || n > maxUnixSeconds {
				return p, fmt.Errorf("%w: %s: %s must be an Integer of seconds", ErrMalformed, c.label, name)
			}
			if name == "created" {
				p.created, p.hasCreated = n, true
			} else {
				p.expires, p.hasExpires = n, true
			}
		case "keyid", "alg", "nonce":
			s, ok := v.(string)
			if !ok {
				return p, fmt.Errorf("%w: %s: %s must be a String", ErrMalformed, c.label, name)
			}
			switch name {
			case "keyid":
				p.keyID = s
			case "alg":
				p.alg = s
			default:
				p.nonce = s
			}
		}
	}
	return p, nil
}

// covers reports whether the candidate covers the derived component name
// (with any parameters).
func (c *candidate) covers(name string) bool {
	for _, it := range c.input.Items {
		if s, ok := it.Value.(string); ok && s == name {
			return true
		}
	}
	return false
}
