package executor

import (
	"context"
	"math"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/voxform/voxform/internal/clock"
)

// pacer spaces requests at the rate the service admits, which it learns
// from the service's answers: the documents give no rate limit values
// (speech synthesis and recognition, Limits), so voxform cannot be told it,
// and a 429 costs the request that drew it a whole Retry-After (at least a
// second) before it is sent again. Limiting concurrency alone cannot hold a
// rate: how many requests a second a number in flight makes depends on how
// long each takes. So the pace is a token bucket of its own, one request
// at a time, whose rate adapts:
//
//   - Start: the pace begins at startPace and every success raises it by
//     startGrowth, so that a service with no limit in reach is no longer
//     paced after a fraction of a second (the first 429 ends this).
//   - A 429 is a refusal of a pace the service does not admit. The pace it
//     was sent at, or the rate requests actually went out at if that was
//     lower, is the service's rate plus what its bucket held: the plateau
//     becomes just below it, and the pace is cut to cutFactor of the
//     plateau, which lets the service's bucket fill again. Only the first
//     429 of requests sent after a cut cuts again: those sent before it
//     were sent at the pace already cut. A 429 that comes before the pace
//     climbed back to the plateau means the plateau is too high (the
//     service's rate is lower than learned, or the start overshot): the
//     pace is halved instead, and the plateau learned anew. One a little
//     later (within shortRefusal successes) cuts the pace by a tenth, and
//     the plateau becomes that pace: the pace refused was reached on what
//     the service's bucket saved during the last Retry-After.
//   - Between 429s the pace follows a cubic of the successes since the cut
//     (as TCP CUBIC grows its window in time): it climbs quickly back
//     towards the plateau, stays near it for a long stretch, then probes
//     beyond it ever faster, so that a service that allows more (or a
//     plateau learned too low) is found again.
//
// Successes and 429s count the same whether the request went over HTTP or
// opened a WebSocket session. A 429 never counts as work done: the executor
// records only what a success returned, and the request sent again after
// Retry-After is the same request (speechapi's one retry layer sends it).
// A configured requests_per_second is a ceiling the pace never passes.
type pacer struct {
	// turn admits one waiter at a time to wait for the next slot, so
	// that each slot is spaced at the pace in force when it comes due (a
	// token bucket would hand every waiter a slot at once, at the pace of
	// the moment, and a cut would reach only those who come later).
	turn chan struct{}

	mu sync.Mutex
	// last is when the latest request went.
	last time.Time
	// ceiling is requests_per_second, or +Inf.
	ceiling float64
	// pace is the rate requests are spaced at (+Inf: none).
	pace float64
	// plateau is the rate learned from the 429s; 0 before the first.
	plateau float64
	// cut is when the pace was last cut, from is the pace it was cut to,
	// and since counts the successes after it.
	cut time.Time
	// climbing is set after the pace was halved: it climbs back quickly
	// to cutFactor of the plateau, then follows the cubic.
	climbing bool
	// climbed is how many of the successes since the cut the climb took.
	climbed int
	from    float64
	since   int
	// cubicTime is cubicTime for this pacer's workers (see newPacer).
	cubicTime time.Duration
	// sent holds the send times of the latest requests, to measure the
	// rate they actually went out at.
	sent [sentWindow]time.Time
	next int
}

const (
	// startPace is the first pace, in requests a second.
	startPace = 40
	// startGrowth is how much each success raises the pace before the first
	// 429: the pace doubles in a few successes, and an apply that meets no
	// limit is paced for about 0.1 s (a faster growth overshoots a service
	// of 100 requests a second into a run of 429s).
	startGrowth = 0.35
	// climbGrowth is how much each success raises a halved pace.
	climbGrowth = 0.02
	// plateauFactor places the plateau this far below the refused pace.
	plateauFactor = 0.99
	// cutFactor is the pace after a 429, as a fraction of the plateau.
	cutFactor = 0.97
	// shortRefusal and shortCutFactor: a 429 within shortRefusal
	// successes of a cut cuts the pace to shortCutFactor of the pace
	// refused.
	shortRefusal   = 40
	shortCutFactor = 0.9
	// cubicSpan is how many successes after a cut to cutFactor the cubic
	// reaches the plateau; it is as long again before the pace is 5% above.
	cubicSpan = 150
	// quickRefusal: a 429 within this many successes of a cut means the
	// cut was not deep enough, and the pace is halved.
	quickRefusal = 5
	// cubicTime is the least time the cubic takes to reach the plateau at
	// the plateau's pace: a 429 costs its request a Retry-After of at least
	// a second, all of the apply's progress when it runs one request at a
	// time, so the probes are spaced more widely than cubicSpan successes
	// at high rates.
	cubicTime = 15 * time.Second
	// unpaced: requests that went out at less than this fraction of the
	// pace were not held back by it.
	unpaced = 0.8
	// sentWindow is how many send times measure the rate sent at.
	sentWindow = 12
	// minPace bounds the pace below, in requests a second.
	minPace = 0.05
)

// newPacer returns the pacer of an apply with at most workers requests in
// flight. A 429 stops its worker for the Retry-After: all of the apply
// with one worker, a share with a few, so with fewer than soloWorkers the
// probes beyond the plateau are spaced soloWorkers/workers times more
// widely (at one worker, R = 20, the simulation's share of R rises from
// 91% to 95%).
func newPacer(ceiling float64, workers int) *pacer {
	if ceiling <= 0 {
		ceiling = math.Inf(1)
	}
	span := cubicTime * time.Duration(max(1, soloWorkers/max(workers, 1)))
	return &pacer{turn: make(chan struct{}, 1), ceiling: ceiling, pace: math.Min(startPace, ceiling), cubicTime: span}
}

// soloWorkers: see newPacer.
const soloWorkers = 8

// wait waits for the pace and returns when the request went.
func (p *pacer) wait(ctx context.Context) (time.Time, error) {
	select {
	case p.turn <- struct{}{}:
	case <-ctx.Done():
		return time.Time{}, ctx.Err()
	}
	defer func() { <-p.turn }()
	for {
		now := time.Now()
		next := p.slot(now)
		if !next.After(now) {
			return now, nil
		}
		if err := clock.Sleep(ctx, next.Sub(now)); err != nil {
			return time.Time{}, err
		}
	}
}

// slot takes the next slot if it has come by now, and returns now; else
// it returns when the next slot comes, at the pace in force.
func (p *pacer) slot(now time.Time) time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !math.IsInf(p.pace, 1) && !p.last.IsZero() {
		gap := time.Duration(float64(time.Second) / p.pace)
		next := p.last.Add(gap)
		if next.After(now) {
			return next
		}
		if now.Sub(next) < gap/4 {
			now = next // a wake-up a little late does not lower the pace
		}
	}
	p.last = now
	p.sent[p.next%sentWindow] = now
	p.next++
	return now
}

// sendRate is the rate the latest requests went out at, from the median
// gap between them (a pause, such as a lone worker's Retry-After, does not
// count), or +Inf when too few have gone to tell.
func (p *pacer) sendRate() float64 {
	n := min(p.next, sentWindow)
	if n < 8 {
		return math.Inf(1)
	}
	gaps := make([]time.Duration, 0, n-1)
	for i := p.next - n + 1; i < p.next; i++ {
		gaps = append(gaps, p.sent[i%sentWindow].Sub(p.sent[(i-1)%sentWindow]))
	}
	slices.Sort(gaps)
	if m := gaps[len(gaps)/2]; m > 0 {
		return float64(time.Second) / float64(m)
	}
	return math.Inf(1)
}

// outcome adapts the pace to the answer, at now, of a request that went
// at sent: a success (status below 400) or a 429;
// anything else says nothing of the rate.
func (p *pacer) outcome(now, sent time.Time, status int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case status == http.StatusTooManyRequests:
		p.refusal(now, sent)
	case status > 0 && status < 400:
		p.since++
		switch {
		case p.plateau == 0:
			p.setPace(p.pace * (1 + startGrowth))
		case p.climbing && p.pace*(1+climbGrowth) < p.plateau*cutFactor:
			p.setPace(p.pace * (1 + climbGrowth))
		default:
			if p.climbing {
				p.climbing, p.from, p.climbed = false, p.pace, p.since
			}
			p.setPace(p.cubic())
		}
	}
}

func (p *pacer) refusal(now, sent time.Time) {
	if sent.Before(p.cut) {
		return // sent at the pace already cut
	}
	// The pace, unless requests went out well below it (fewer workers
	// than it takes, or all waiting out a Retry-After).
	refused := p.pace
	if r := p.sendRate(); r < unpaced*p.pace {
		refused = r
	}
	switch {
	case p.plateau == 0 || p.since < quickRefusal:
		// The first 429, or one right after a cut: the pace is far
		// above the service's rate.
		p.setPace(refused / 2)
		p.climbing = true
		p.plateau = refused * plateauFactor
	case p.since < shortRefusal:
		// Refused soon after a cut: the pace cut to is still above the
		// service's rate, and the pace refused was reached on what the
		// service's bucket saved while its worker waited out the last
		// Retry-After, not at its rate. The plateau is the pace cut to.
		p.setPace(refused * shortCutFactor)
		p.climbing = false
		p.plateau = p.pace
	default:
		p.setPace(refused * plateauFactor * cutFactor)
		p.climbing = false
		p.plateau = refused * plateauFactor
	}
	p.cut, p.from, p.since, p.climbed = now, p.pace, 0, 0
}

// cubic is the pace p.since successes after a cut to p.from: it rises
// towards the plateau, flattens there and grows beyond it as the cube of
// the successes, reaching the plateau after cubicSpan successes for a cut
// to cutFactor of it (later for a deeper cut).
func (p *pacer) cubic() float64 {
	span := math.Max(cubicSpan, p.plateau*p.cubicTime.Seconds())
	c := (1 - cutFactor) * p.plateau / (span * span * span)
	k := math.Cbrt(math.Max(p.plateau-p.from, 0) / c)
	x := float64(p.since-p.climbed) - k
	return p.plateau + c*x*x*x
}

func (p *pacer) setPace(r float64) {
	r = math.Min(math.Max(r, minPace), p.ceiling)
	if math.IsInf(p.pace, 1) && math.IsInf(r, 1) || r == p.pace {
		return
	}
	p.pace = r
}

// rate is the pace in force (+Inf: none).
func (p *pacer) rate() float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.pace
}
