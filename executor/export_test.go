package executor

// LimiterWaiters reports how many callers wait for a slot of l.
func LimiterWaiters(l *Limiter) int {
	_, _, w := l.limit.snapshot()
	return w
}
