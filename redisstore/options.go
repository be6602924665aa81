package redisstore

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentready/agentready/audit"
	"github.com/agentready/agentready/internal/clock"
)

// Option configures a store of this package. WithKeyPrefix applies to
// every store; WithClock to the session store only; WithRedactor and
// WithRetention to the audit store only. A store given an option it does
// not take says so.
type Option func(*config)

type config struct {
	prefix    string
	now       func() time.Time
	redactor  audit.Redactor
	retention time.Duration
	kinds     kind // the stores the options given apply to, besides WithKeyPrefix
	errs      []error
}

// kind is a store of this package, as a bit.
type kind uint8

const (
	kindLimit kind = 1 << iota
	kindSession
	kindAudit
)

// WithClock sets the clock the session store judges a session's expiry by
// (default time.Now), for tests that move time themselves.
func WithClock(now func() time.Time) Option {
	return func(c *config) {
		if now == nil {
			c.errs = append(c.errs, errors.New("redisstore: WithClock(nil)"))
			return
		}
		c.now, c.kinds = now, c.kinds|kindSession
	}
}

// defaultPrefix is the default key prefix of the session store and the
// replay cache.
const defaultPrefix = "agentready:"

// WithKeyPrefix sets the prefix of every key a store writes (default
// "agentready:" for the limit and session stores, "agentready:audit:" for
// the audit store), to
// share one Redis between sites or environments. It may not contain '{' or
// '}': the stores place their own Cluster hash tags after it.
func WithKeyPrefix(p string) Option {
	return func(c *config) {
		if strings.ContainsAny(p, "{}") {
			c.errs = append(c.errs, fmt.Errorf("redisstore: WithKeyPrefix(%q): '{' and '}' are reserved for the hash tag", p))
			return
		}
		c.prefix = p
	}
}

// WithRedactor sets the Redactor the audit store applies to params before
// hashing (default audit.DefaultRedactor).
func WithRedactor(r audit.Redactor) Option {
	return func(c *config) {
		if r == nil {
			c.errs = append(c.errs, errors.New("redisstore: WithRedactor(nil)"))
			return
		}
		c.redactor, c.kinds = r, c.kinds|kindAudit
	}
}

// WithRetention sets how long the audit store keeps a sealed artifact
// after sealing, and an active log after its last event (default and
// minimum audit.MinRetention, 30 days).
func WithRetention(d time.Duration) Option {
	return func(c *config) {
		if d < audit.MinRetention {
			c.errs = append(c.errs, fmt.Errorf("redisstore: WithRetention(%v): the audit trail keeps artifacts at least %v", d, audit.MinRetention))
			return
		}
		c.retention, c.kinds = d, c.kinds|kindAudit
	}
}

// apply runs opts over a config with the store's default prefix, and
// reports the options given that store k does not take.
func apply(store, prefix string, k kind, opts []Option) (config, error) {
	c := config{prefix: prefix, now: clock.Wall, redactor: audit.DefaultRedactor, retention: audit.MinRetention}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	if c.kinds&^k != 0 {
		c.errs = append(c.errs, fmt.Errorf("redisstore: %s: WithClock applies to the session store, WithRedactor and WithRetention to the audit store only", store))
	}
	return c, errors.Join(c.errs...)
}
