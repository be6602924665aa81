package audit_test

import (
	"reflect"
	"testing"

	"github.com/agentready/agentready/audit"
)

func TestSensitiveKey(t *testing.T) {
	tests := []struct {
		key  string
		want bool
	}{
		{"password", true}, {"PASSWORD", true}, {"Passwd", true}, {"secret", true}, {"token", true},
		{"api_key", true}, {"apikey", true}, {"API-KEY", true}, {"X-Api-Key", true}, {"apiKey", true}, {"APIKey", true},
		{"authorization", true}, {"Authorization", true}, {"card", true}, {"card_number", true}, {"cardNumber", true},
		{"q", false}, {"id", false}, {"CardNumber", true}, {"cvv", true}, {"CVV2", true}, {"cvc", true}, {"ssn", true}, {"pin", true}, {"otp", true},
		{"OTPCode", true}, {"access_token", true}, {"refreshToken", true}, {"client_secret", true},
		{"newPassword", true}, {"user.password", true}, {"pin-code", true}, {"credit card", true},
		{"", false}, {"q", false}, {"shipping", false}, {"spinner", false}, {"tokens", false}, {"discard", false},
		{"opinion", false}, {"api", false}, {"key", false}, {"keyboard", false}, {"passport", false},
		{"item_id", false}, {"quantity", false}, {"___", false}, {"cardboard", false}, {"number", false},
		{"cookie", true}, {"Cookie", true}, {"Set-Cookie", true}, {"session", true}, {"sessionid", true}, {"SessionId", true},
		{"JSESSIONID", true}, {"PHPSESSID", true}, {"connect.sid", true}, {"sid", true}, {"sessid", true},
		{"auth", true}, {"X-Auth", true}, {"auth_code", true}, {"authCode", true}, {"oauth", true}, {"oauth_verifier", true},
		{"author", false}, {"authority", false}, {"side", false}, {"cookies", false}, {"sessions", false}, {"said", false},
		{"X-Agent-Session", false}, {"x-agent-session", false}, {"session_id", false}, {"Session_ID", false},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			if got := audit.SensitiveKey(tt.key); got != tt.want {
				t.Fatalf("SensitiveKey(%q) = %v, want %v", tt.key, got, tt.want)
			}
			want := any("v")
			if tt.want {
				want = audit.Redacted
			}
			if got := audit.DefaultRedactor(tt.key, "v"); got != want {
				t.Fatalf("DefaultRedactor(%q) = %v", tt.key, got)
			}
		})
	}
}

type login struct {
	User     string `json:"user"`
	Password string `json:"password"`
}

func TestRedact(t *testing.T) {
	in := map[string]any{
		"q":        "mugs",
		"password": map[string]any{"nested": "whole value goes"},
		"payment": map[string]any{
			"card_number": 4111111111111111,
			"holder":      "Ann",
			"extra":       []any{map[string]any{"cvv": "123", "ok": 1}, "plain", []any{map[string]any{"otp": 9}}},
		},
		"headers": map[string]string{"Authorization": "Bearer x", "Accept": "json"},
		"login":   login{User: "ann", Password: "hunter2"},
		"tokens":  []string{"a", "b"},
	}
	want := map[string]any{
		"q":        "mugs",
		"password": audit.Redacted,
		"payment": map[string]any{
			"card_number": audit.Redacted,
			"holder":      "Ann",
			"extra":       []any{map[string]any{"cvv": audit.Redacted, "ok": 1.0}, "plain", []any{map[string]any{"otp": audit.Redacted}}},
		},
		"headers": map[string]any{"Authorization": audit.Redacted, "Accept": "json"},
		"login":   map[string]any{"user": "ann", "password": audit.Redacted},
		"tokens":  []any{"a", "b"},
	}
	got, err := audit.Redact(in, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Redact =\n%#v\nwant\n%#v", got, want)
	}
	if in["payment"].(map[string]any)["card_number"] != 4111111111111111 || in["login"].(login).Password != "hunter2" {
		t.Fatal("Redact modified its input")
	}
}

// TestRedactorVisitsEveryMember: a custom Redactor sees every member at
// every depth, with the caller's value, and its replacement is walked.
func TestRedactorVisitsEveryMember(t *testing.T) {
	var seen []string
	r := func(key string, v any) any {
		seen = append(seen, key)
		if key == "swap" {
			return map[string]any{"inner": v}
		}
		return v
	}
	got, err := audit.Redact(map[string]any{"a": []any{map[string]any{"b": 1}}, "swap": 2}, r)
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != 4 { // a, b, swap, inner
		t.Fatalf("redactor saw %v", seen)
	}
	if !reflect.DeepEqual(got["swap"], map[string]any{"inner": 2.0}) {
		t.Fatalf("replacement not normalised: %#v", got["swap"])
	}
}
