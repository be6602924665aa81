module github.com/agentready/agentready

go 1.26.8

require (
	github.com/dunglas/httpsfv v1.1.2
	github.com/go-jose/go-jose/v4 v4.1.9
	github.com/go-playground/validator/v10 v10.30.6
	github.com/gobwas/glob v1.1.0
	github.com/gowebpki/jcs v1.0.2
	github.com/jimsmart/grobotstxt v1.0.3
	github.com/remitly-oss/httpsig-go v1.2.2
	github.com/rs/cors v1.11.1
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	go.yaml.in/yaml/v3 v3.0.6
	go4.org/netipx v0.0.0-20260823151212-3075585bcbeb
	golang.org/x/text v0.43.0
	golang.org/x/time v0.16.0
)

require (
	github.com/gabriel-vasile/mimetype v1.4.16 // indirect
	github.com/go-playground/locales v0.14.2 // indirect
	github.com/go-playground/universal-translator v0.18.2 // indirect
	github.com/leodido/go-urn v1.5.0 // indirect
	golang.org/x/crypto v0.58.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
)
