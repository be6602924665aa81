//go:build race

package redisstore

// raceEnabled: under the race detector sync.Pool drops items at random, so
// allocation counts are not asserted. RaceEnabled (redis_internal_test.go)
// exports it to the external tests.
const raceEnabled = true
