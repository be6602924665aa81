package policy

import "testing"

// TestOperators: the operators of the embedded data, by their link text.
func TestOperators(t *testing.T) {
	ops := Operators()
	for name, want := range map[string]string{"GPTBot": "OpenAI", "ClaudeBot": "Anthropic", "ChatGPT-User": "OpenAI"} {
		if got := ops[name]; got != want {
			t.Errorf("Operators()[%q] = %q, want %q", name, got, want)
		}
	}
	for name, op := range ops {
		if op == "" || op[0] == '[' || op == "Unclear at this time." {
			t.Errorf("Operators()[%q] = %q", name, op)
		}
	}
	for _, c := range []struct{ field, want string }{
		{"[OpenAI](https://openai.com)", "OpenAI"},
		{"Meta/Facebook", "Meta/Facebook"},
		{"Unclear at this time.", ""},
		{"https://brightdata.com/brightbot", ""},
		{"[broken](", "[broken]("},
		{"", ""},
	} {
		if got := operatorName(c.field); got != c.want {
			t.Errorf("operatorName(%q) = %q, want %q", c.field, got, c.want)
		}
	}
}
