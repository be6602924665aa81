package policy_test

import (
	"fmt"

	"github.com/agentready/agentready/internal/policy"
)

func ExampleRules_Match() {
	rules, err := policy.CompileRules(
		[]string{"/", "/admin/help$"},
		[]string{"/admin", "/*.php$"},
	)
	if err != nil {
		panic(err)
	}
	buf := make([]byte, 0, 128) // reused across requests
	for _, req := range []struct{ path, query string }{
		{"/docs/intro", ""},
		{"/%61dmin/users", ""},
		{"/admin/help", ""},
		{"/index.php", ""},
		{"/index.php", "page=2"},
	} {
		buf = policy.Canonical(buf[:0], req.path, req.query)
		rule, ok := rules.Match(string(buf))
		if !ok {
			fmt.Printf("%-22s no rule\n", buf)
			continue
		}
		verdict := "disallowed"
		if rule.Allow {
			verdict = "allowed"
		}
		fmt.Printf("%-22s %s by %q\n", buf, verdict, rule.Pattern)
	}
	// Output:
	// /docs/intro            allowed by "/"
	// /admin/users           disallowed by "/admin"
	// /admin/help            allowed by "/admin/help$"
	// /index.php             disallowed by "/*.php$"
	// /index.php?page=2      allowed by "/"
}
