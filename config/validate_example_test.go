package config_test

import (
	"errors"
	"fmt"

	"github.com/agentready/agentready/internal/publish"

	"github.com/agentready/agentready/config"
)

func ExampleValidate() {
	site := &config.Site{
		Name: "Acme Shop",
		URL:  "http://shop.example",
		Capabilities: []config.Capability{{
			ID:          "cart.add",
			Description: "Add an item to the cart",
			Endpoint:    "https://shop.example/api/cart",
			Method:      "POST",
			Auth:        config.Auth{Type: config.AuthBearerToken},
		}},
		Access: config.Access{Disallow: []string{"admin/*"}},
	}
	// Publish only the draft-car agents.txt and agents.json.
	formats := config.Formats{Disabled: config.DocAgentsMD | config.DocAWP | config.DocDescriptors}

	err := publish.Validate(site, formats)
	fmt.Println(err)

	var ve *config.ValidationError
	if errors.As(err, &ve) {
		fmt.Println(len(ve.Errors), "problems;", ve.Errors[2].Field, "is forbidden by", ve.Errors[2].Format)
	}
	// Output:
	// Access.Disallow[0]: pattern "admin/*" must start with "/" or "*" (draft-car 2.6: robots.txt path syntax)
	// Capabilities[0].Auth.TokenEndpoint: is required for Auth bearer-token by draft-car agents.txt (2.5: Auth-Endpoint MUST be present when Auth is bearer-token or oauth2)
	// Capabilities[0].ID: "cart.add" is not allowed by draft-car agents.txt (2.5: lowercase letters, digits and hyphens); serve the v0.1.0 dialect or rename it
	// URL: "http://shop.example" must use https: plain http is accepted only for localhost, 127.0.0.0/8 and [::1], or with Formats.AllowHTTP (agentready.Documents.AllowHTTP; draft-car 2.1 and agents.md 5 require HTTPS in production)
	// 4 problems; Capabilities[0].ID is forbidden by draft-car
}
