// Package e2e holds the library's end-to-end suites: tests that drive
// agentready.New and its Handler over HTTP, with the memory and the Redis
// stores, signed agents, sessions and the audit trail. They go through the
// public API; what package agentready keeps unexported (a middleware's
// verifier, the session endpoint's event names) they read through
// internal/testhooks, and they take fixtures, helpers and a few constants
// from internal packages. It has no code of its own, only tests.
//
// It is a module of its own, so that the library's go.mod requires no
// Redis or Prometheus code: a program that imports agentready downloads
// none. Run it with the README's test command, or
//
//	go test ./internal/testing/e2e/...
package e2e
