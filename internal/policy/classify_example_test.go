package policy_test

import (
	"fmt"

	"github.com/agentready/agentready/internal/policy"
)

func ExampleClassifier_Classify() {
	// The site's agent policies, in declaration order.
	c := policy.NewClassifier([]string{"*", "ClaudeBot"})
	for _, ua := range []string{
		"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)",
		"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.1; +https://openai.com/gptbot",
		"curl/8.5.0",
		"Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0",
	} {
		cl := c.Classify(ua)
		fmt.Printf("%-8s %-10q policy %d\n", cl.Kind, cl.Name, cl.Policy)
	}
	// Output:
	// declared "ClaudeBot" policy 1
	// known    "GPTBot"   policy -1
	// generic  "curl"     policy -1
	// browser  ""         policy -1
}

func ExampleTokens() {
	t := policy.ProductTokens("Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot")
	for {
		name, ok := t.Next()
		if !ok {
			break
		}
		fmt.Println(name)
	}
	// Output:
	// Mozilla
	// AppleWebKit
	// KHTML
	// like
	// compatible
	// ChatGPT-User
	// +https:
}
