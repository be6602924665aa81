package ratelimit

// QueueTimeoutError is the error type Failover returns when a call waited
// too long for a slot, for errors.As in the external tests.
type QueueTimeoutError = queueTimeoutError
