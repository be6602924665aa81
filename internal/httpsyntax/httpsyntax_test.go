package httpsyntax

import "testing"

func TestTrimOWS(t *testing.T) {
	for in, want := range map[string]string{
		"": "", " ": "", "\t \t": "", "a": "a", " a ": "a", "\ta b\t": "a b", "a\n": "a\n", " \r": "\r",
	} {
		if got := TrimOWS(in); got != want {
			t.Errorf("TrimOWS(%q) = %q, want %q", in, got, want)
		}
	}
}
