package enforcer

import (
	"fmt"
	"testing"

	"github.com/agentready/agentready/internal/webbotauth"
	"github.com/agentready/agentready/verify"
)

// TestOtherSigner: a claim refused by its own directory's verdict on the
// signature is not checked against the other directories (the signature
// would fail again, verified twice for a hostile client); one its sources
// did not prove, or signed by a directory it does not trust, is.
func TestOtherSigner(t *testing.T) {
	sig := func(e error) error { return fmt.Errorf("%w: signature: %w", verify.ErrFailed, e) }
	for err, want := range map[error]bool{
		fmt.Errorf("%w: 198.51.100.5 is not in the list", verify.ErrFailed): true,
		fmt.Errorf("%w: the list is not loaded", verify.ErrUnavailable):     true,
		sig(webbotauth.ErrUntrusted):                                        true,
		sig(webbotauth.ErrBadSignature):                                     false,
		sig(webbotauth.ErrReplay):                                           false,
		sig(webbotauth.ErrExpired):                                          false,
		sig(webbotauth.ErrUnknownKey):                                       false,
		sig(webbotauth.ErrAuthority):                                        false,
	} {
		if got := otherSigner(err); got != want {
			t.Errorf("otherSigner(%v) = %v, want %v", err, got, want)
		}
	}
}
