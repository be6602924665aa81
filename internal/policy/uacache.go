package policy

import (
	"hash/maphash"
	"strings"
	"sync/atomic"
)

// uaCacheSize is the number of slots of the User-Agent cache (a power of
// two). Traffic repeats a few hundred User-Agent strings (browser builds,
// agents); a hit costs one hash and one compare instead of the
// classifier's pass, which for a browser's User-Agent (the plausibility
// check of its platform comment and every product) is about a microsecond:
// some 5% of a loopback request, and ten times the rest of a browser's
// pipeline (bench/compare, BenchmarkPipeline/case=browser, 0.05 of the
// peer with the cache, 0.4 without).
const uaCacheSize = 4096

// UACache remembers the classification of recent User-Agents. It is
// direct-mapped and lock-free: a slot holds the last User-Agent that hashed
// to it, so memory is bounded whatever the traffic, and a flood of distinct
// strings only costs misses. The hash is seeded per process, so an attacker
// cannot aim strings at one slot.
type UACache struct {
	seed  maphash.Seed
	slots [uaCacheSize]atomic.Pointer[uaEntry]
}

type uaEntry struct {
	ua    string
	class Class
}

// NewUACache returns an empty cache, its hash seeded for this process.
func NewUACache() *UACache { return &UACache{seed: maphash.MakeSeed()} }

// Classify returns c's classification of ua, from the cache when it can.
func (u *UACache) Classify(c *Classifier, ua string) Class {
	slot := &u.slots[maphash.String(u.seed, ua)&(uaCacheSize-1)]
	if e := slot.Load(); e != nil && e.ua == ua {
		return e.class
	}
	class := c.Classify(ua)
	if len(ua) <= MaxUserAgentLen {
		// Cloned: the header value shares its memory with the rest of the
		// request's headers, which the cache must not keep alive.
		slot.Store(&uaEntry{ua: strings.Clone(ua), class: class})
	}
	return class
}
