package webbotauth

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	sfv "github.com/dunglas/httpsfv"
)

// TestAcceptSignature: the field is an RFC 9421 5.1 Accept-Signature a
// signer can fulfil, and a request signed as it asks verifies.
func TestAcceptSignature(t *testing.T) {
	if got, want := AcceptSignature(""), `sig1=("@method" "@authority" "@path" "signature-agent";key="sig1");tag="web-bot-auth"`; got != want {
		t.Fatalf("%s\nwant %s", got, want)
	}
	nonce := NewNonce()
	field := AcceptSignature(nonce)
	if !strings.HasSuffix(field, `;nonce="`+nonce+`"`) || NewNonce() == nonce {
		t.Fatalf("%s", field)
	}
	// A nonce an sf-string cannot hold is left out rather than break the field.
	if got := AcceptSignature("bad\nnonce"); got != AcceptSignature("") {
		t.Fatalf("%s", got)
	}

	// The signer's side of RFC 9421 5.2: the member's key is the label,
	// its value the covered components with the requested parameters.
	d, err := sfv.UnmarshalDictionary([]string{field})
	if err != nil {
		t.Fatal(err)
	}
	m, ok := d.Get(AcceptLabel)
	il, isList := m.(sfv.InnerList)
	if !ok || !isList || len(d.Names()) != 1 {
		t.Fatalf("%s", field)
	}
	var comps []string
	for _, it := range il.Items {
		id, _ := sfv.Marshal(it)
		comps = append(comps, id)
	}
	tag, _ := il.Params.Get("tag")
	got, _ := il.Params.Get("nonce")
	if tag != tagWebBotAuth || got != nonce {
		t.Fatalf("params %v %v", tag, got)
	}
	k := newEd25519Key(t)
	r, s := baseRequest(t)
	s.label, s.components, s.nonce = AcceptLabel, comps, nonce
	signRequest(t, r, k, s)
	v := &Verifier{Keys: newKeyMap().add(testAgent, k).resolve, Now: func() time.Time { return testNow }, RequireNonce: true}
	sig, err := v.Verify(context.Background(), r, testAuthority)
	if err != nil || sig.Nonce != nonce || sig.Label != AcceptLabel {
		t.Fatalf("%+v %v", sig, err)
	}
}

// TestReason names every sentinel, through wrapping, and nothing else.
func TestReason(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range sentinels {
		r := Reason(fmt.Errorf("webbotauth: x: %w", s))
		if r == "" || seen[r] || r != reasons[s] {
			t.Fatalf("%v: reason %q", s, r)
		}
		seen[r] = true
	}
	if Reason(nil) != "" || Reason(errors.New("other")) != "" {
		t.Fatal("a reason for nil or a foreign error")
	}
	// The two refusals a site answers differently from a forgery.
	if Reason(ErrLifetime) != ReasonLifetime || Reason(ErrReplay) != ReasonReplay || ReasonLifetime == ReasonBadSignature {
		t.Fatal("lifetime or replay reasons")
	}
	for err, want := range map[error]bool{ErrNoSignature: false, ErrNoAgent: true, ErrUntrusted: true,
		ErrUnavailable: true, ErrBadSignature: false, ErrLifetime: false, ErrReplay: false} {
		if unverified(err) != want {
			t.Errorf("%v: unverified %v", err, !want)
		}
	}
}
