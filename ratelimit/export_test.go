package ratelimit

// QueueTimeoutError is the error type a failover store returns when a call
// waited too long for a turn, for errors.As in the external tests.
type QueueTimeoutError = queueTimeoutError

// InFlight is the number of calls in flight it waited behind.
func (e *QueueTimeoutError) InFlight() int { return e.inFlight }
