// Package logbuf is the log sink the tests share: a buffer that the
// goroutines of concurrent requests may write to at once, read while they
// do.
package logbuf

import (
	"bytes"
	"strings"
	"sync"
)

// Buffer is a bytes.Buffer behind a mutex. The zero value is ready.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

// String returns what was written.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// Count returns how many times substr occurs in what was written.
func (b *Buffer) Count(substr string) int {
	return strings.Count(b.String(), substr)
}
