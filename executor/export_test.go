package executor

// LimiterWaiters reports how many callers wait for a slot of l.
func LimiterWaiters(l *Limiter) int {
	_, _, w := l.limit.snapshot()
	return w
}

// snapshot returns the limit in force, the requests in flight and the
// callers waiting.
func (a *adaptiveLimit) snapshot() (limit, inflight, waiters int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.limit, a.inflight, a.waiters
}
