//go:build !race

package agentready_test

const raceSlowdown = 1
