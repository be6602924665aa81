//go:build !race

package redisstore

const raceEnabled = false
