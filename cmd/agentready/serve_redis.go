package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/agentready/agentready/audit"
	"github.com/agentready/agentready/ratelimit"
	"github.com/agentready/agentready/redisstore"
	"github.com/agentready/agentready/session"
)

// redisOptions reads -redis: a redis:// or rediss:// (TLS) URL, with the
// user, password, database and options go-redis's ParseURL reads
// (redis://user:secret@host:6379/0?dial_timeout=1s), or a bare host:port.
// Unless the URL sets them, a failed dial is not retried and a failed
// command neither: go-redis's defaults (5 dials, 3 retries with backoff)
// outlast the rate-limit store's 200 ms per call, which then reports
// "context deadline exceeded" instead of the cause ("connection
// refused"), and a retry cannot succeed within it anyway.
func redisOptions(s string) (*redis.Options, error) {
	var o *redis.Options
	set := map[string]bool{}
	if strings.Contains(s, "://") {
		var err error
		if o, err = redis.ParseURL(s); err != nil {
			// url.Parse's error quotes the whole URL, password and all.
			var ue *url.Error
			if errors.As(err, &ue) {
				err = ue.Err
			}
			return nil, fmt.Errorf("-redis %q: %s", redacted(s), scrubSecret(err.Error(), s))
		}
		u, _ := url.Parse(s)
		for k := range u.Query() {
			set[k] = true
		}
	} else {
		host, port, err := net.SplitHostPort(s)
		if n, perr := strconv.Atoi(port); err != nil || !hostName(host) || perr != nil || n < 1 || n > 65535 {
			return nil, fmt.Errorf("-redis %q: want host:port or a redis:// or rediss:// URL", redacted(s))
		}
		o = &redis.Options{Addr: s}
	}
	if !set["max_retries"] {
		o.MaxRetries = -1
	}
	if !set["dialer_retries"] {
		o.DialerRetries = 1
	}
	// The stores require deadlines to bound socket reads.
	o.ContextTimeoutEnabled = true
	return o, nil
}

// hostName reports whether h is an IP address or a host name (letters,
// digits, '-', '.' and '_'), so that a mistyped URL ("redis//h:6379") is
// not taken for a host.
func hostName(h string) bool {
	if _, err := netip.ParseAddr(h); err == nil {
		return true
	}
	return h != "" && !strings.ContainsFunc(h, func(c rune) bool {
		return !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_')
	})
}

// redacted is a -redis value without its password, for messages, as
// url.URL.Redacted writes it (redis://user:xxxxx@host:6379), also when
// it does not parse as a URL: then everything between the first ":" after
// the scheme and the last "@" is taken for the password.
func redacted(s string) string {
	if u, err := url.Parse(s); err == nil && strings.Contains(s, "://") {
		// A "/" in an unescaped password ends the authority early: what
		// url.Parse took for a host may hold the rest of it.
		return scrubSecret(u.Redacted(), s)
	}
	prefix, user, _, rest, ok := splitSecret(s)
	if !ok {
		return s
	}
	return prefix + user + ":xxxxx@" + rest
}

// splitSecret cuts s, a URL or host:port, into what precedes the user
// information, the user, the password and what follows the "@"; ok is
// false when s has no password.
func splitSecret(s string) (prefix, user, secret, rest string, ok bool) {
	body := s
	if i := strings.Index(s, "://"); i >= 0 {
		prefix, body = s[:i+3], s[i+3:]
	}
	at := strings.LastIndex(body, "@")
	if at < 0 {
		return "", "", "", "", false
	}
	user, secret, ok = strings.Cut(body[:at], ":")
	if !ok || secret == "" {
		return "", "", "", "", false
	}
	return prefix, user, secret, body[at+1:], true
}

// scrubSecret is msg with the password of s (as written and
// percent-decoded) replaced by xxxxx.
func scrubSecret(msg, s string) string {
	_, _, secret, _, ok := splitSecret(s)
	if !ok {
		return msg
	}
	forms := []string{secret}
	if d, err := url.PathUnescape(secret); err == nil && d != secret {
		forms = append(forms, d)
	}
	// A "/", "?" or "#" in an unescaped password splits it between the
	// parts of the URL a message may quote one by one.
	for _, part := range strings.FieldsFunc(secret, func(r rune) bool { return r == '/' || r == '?' || r == '#' }) {
		if len(part) >= 3 {
			forms = append(forms, part)
		}
	}
	for _, f := range forms {
		msg = strings.ReplaceAll(msg, f, "xxxxx")
	}
	return msg
}

// redisName is how messages name the Redis: its address, and the scheme
// when TLS.
func redisName(o *redis.Options) string {
	if o.TLSConfig != nil {
		return "rediss://" + o.Addr
	}
	return o.Addr
}

// redisStore is the rate-limit store of -redis: redisstore's, behind a
// failover (-redis-policy; fallback-memory, the default: limits hold per
// replica while Redis fails).
type redisStore struct {
	client *redis.Client
	name   string
	log    *slog.Logger
	store  ratelimit.Store
	// sessions and audit keep the v0.1.0 sessions (and the bindings of
	// MCP sessions to their owners) and the audit trail in the same
	// Redis, so that every replica honours a session another opened.
	sessions session.Store
	audit    audit.Store

	stop   context.CancelFunc
	wg     sync.WaitGroup
	probes time.Duration // between start-up checks while unreachable
}

// whileDown says what rate limits do while Redis does not answer, by
// failure policy (-redis-policy).
var whileDown = map[string]string{
	ratelimit.FallbackMemory: "rate limits are counted per replica until it does",
	ratelimit.FailOpen:       "rate limits are not counted until it does (fail-open)",
	ratelimit.FailClosed:     "rate-limited requests are refused 503 until it does (fail-closed)",
}

// redisCheckTimeout bounds the check at start and a diagnosis.
const redisCheckTimeout = 2 * time.Second

// newRedisStore connects to the Redis of -redis and checks it at once: an
// unreachable Redis is one line naming the address and the cause, and
// serve starts anyway (limits follow the failure policy, per replica,
// until it answers, which another line says): agentready is in front of
// the whole site, which a Redis outage should not take down.
func newRedisStore(addr, policy string, l *slog.Logger) (*redisStore, error) {
	o, err := redisOptions(addr)
	if err != nil {
		return nil, err
	}
	s := &redisStore{client: redis.NewClient(o), name: redisName(o), log: l, probes: 2 * time.Second}
	rs, err := redisstore.NewLimitStore(s.client)
	if err != nil {
		s.client.Close()
		return nil, err
	}
	if s.sessions, err = redisstore.NewSessionStore(s.client); err != nil {
		s.client.Close()
		return nil, err
	}
	if s.audit, err = redisstore.NewAuditStore(s.client); err != nil {
		s.client.Close()
		return nil, err
	}
	if s.store, err = ratelimit.NewFailover(rs, ratelimit.FailoverConfig{Policy: policy, Logger: l.With("redis", s.name),
		OnStateChange: s.changed}); err != nil {
		s.client.Close()
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.stop = cancel
	if err := s.ping(ctx); err != nil {
		l.Error("agentready serve: Redis does not answer; "+whileDown[cmp.Or(policy, ratelimit.FallbackMemory)],
			"redis", s.name, "err", cause(err))
		s.wg.Add(1)
		go s.waitUp(ctx)
	} else {
		l.Info("agentready serve: Redis answers; rate limits, sessions and the audit trail are shared through it", "redis", s.name)
	}
	return s, nil
}

func (s *redisStore) ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, redisCheckTimeout)
	defer cancel()
	return s.client.Ping(ctx).Err()
}

// waitUp pings an unreachable Redis until it answers, and says so.
func (s *redisStore) waitUp(ctx context.Context) {
	defer s.wg.Done()
	t := time.NewTicker(s.probes)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if s.ping(ctx) == nil {
				s.log.Info("agentready serve: Redis answers now; rate limits, sessions and the audit trail are shared through it", "redis", s.name)
				return
			}
		}
	}
}

// changed is the failover's state hook. When the failure it saw is a
// deadline (its 200 ms per call), the cause may be elsewhere: a refused or
// reset connection that took retries, a name that does not resolve. One
// PING with its own time says which, in agentready's own line.
func (s *redisStore) changed(e ratelimit.FailoverEvent) {
	if !e.Down || !errors.Is(e.Err, context.DeadlineExceeded) {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), redisCheckTimeout)
		defer cancel()
		err := s.client.Ping(ctx).Err()
		switch {
		case err == nil:
			s.log.Warn("agentready serve: Redis answers, but slower than the rate-limit store waits (200 ms a call)", "redis", s.name)
		default:
			s.log.Error("agentready serve: Redis does not answer", "redis", s.name, "err", cause(err))
		}
	}()
}

// cause is err as an operator reads it: a deadline says how long was
// waited for what.
func cause(err error) string {
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Sprintf("no answer within %v (%v)", redisCheckTimeout, err)
	}
	return err.Error()
}

func (s *redisStore) close() {
	s.stop()
	s.wg.Wait()
	s.client.Close()
}

// redisLogger receives go-redis's own messages ("connection pool: failed
// to dial after ...", one per failed dial), which it would print
// unstructured on stderr: they become agentready's lines, once per
// interval with a count (repeated).
type redisLogger struct{ r *repeated }

func (l redisLogger) Printf(_ context.Context, format string, v ...any) {
	l.r.add(errors.New(strings.TrimPrefix(fmt.Sprintf(format, v...), "redis: ")))
}

// redisLog is the one redisLogger of the process: go-redis has one logger
// for every client (redis.SetLogger).
var redisLog struct {
	once sync.Once
	r    atomic.Pointer[repeated]
}

// routeRedisLog sends go-redis's messages to l, once per interval with a
// count; the first call decides for the process.
func routeRedisLog(l *slog.Logger, every time.Duration) {
	redisLog.once.Do(func() {
		r := &repeated{log: l, msg: "agentready serve: the Redis client reports", every: every}
		redisLog.r.Store(r)
		redis.SetLogger(redisLogger{r})
	})
}
