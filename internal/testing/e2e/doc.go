// Package e2e holds the library's end-to-end suites: tests that drive
// agentready.New and its Handler over HTTP, with the memory and the Redis
// stores, signed agents, sessions and the audit trail, through the public
// API alone (what a test must read beyond it, internal/testhooks gives).
// It has no code of its own, only tests.
//
// It is a module of its own, so that the library's go.mod requires no
// Redis or Prometheus code: a program that imports agentready downloads
// none. Run it with the README's test command, or
//
//	go test ./internal/testing/e2e/...
package e2e
