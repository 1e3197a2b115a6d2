package executor

import (
	"container/heap"
	"math"
	"math/rand/v2"
	"net/http"
	"testing"
	"time"

	"golang.org/x/time/rate"
)

// simulation runs a pacer against a model of a rate-limited service on a
// virtual clock: n requests by par workers, each sent, admitted or refused
// by a token bucket of rps and burst, and after a 429 sent again after the
// Retry-After the bucket gives (whole seconds, at least 1), as speechapi's
// retry does. Network and service times are drawn from a seeded source.
type simulation struct {
	rps   float64
	burst int
	par   int
	n     int
	seed  uint64
	// rtt is the mean time from send to answer.
	rtt time.Duration
	// work is the time a worker spends between an answer and its next
	// request (writing the output, recording it).
	work time.Duration
}

type simResult struct {
	elapsed  time.Duration
	attempts int
	refused  int
}

func (r simResult) achieved(n int, rps float64) float64 {
	return float64(n) / r.elapsed.Seconds() / rps
}

type simEvent struct {
	at  time.Time
	seq int
	do  func(time.Time)
}

type simQueue []simEvent

func (q simQueue) Len() int { return len(q) }
func (q simQueue) Less(i, j int) bool {
	if q[i].at.Equal(q[j].at) {
		return q[i].seq < q[j].seq
	}
	return q[i].at.Before(q[j].at)
}
func (q simQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *simQueue) Push(x any)   { *q = append(*q, x.(simEvent)) }
func (q *simQueue) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}

func (s simulation) run() simResult {
	rnd := rand.New(rand.NewPCG(s.seed, 1))
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	server := rate.NewLimiter(rate.Limit(s.rps), s.burst)
	p := newPacer(0, s.par)
	var q simQueue
	seq := 0
	at := func(t time.Time, do func(time.Time)) {
		seq++
		heap.Push(&q, simEvent{at: t, seq: seq, do: do})
	}
	jitter := func(d time.Duration) time.Duration {
		return time.Duration(float64(d) * (0.5 + rnd.Float64()))
	}
	var res simResult
	left := s.n
	var last time.Time
	var attempt, next func(now time.Time)
	// waiting are the requests waiting for the pace, in turn.
	var waiting []func(sent time.Time)
	pumping := false
	var pump func(now time.Time)
	pump = func(now time.Time) {
		for len(waiting) > 0 {
			if slot := p.slot(now); slot.After(now) {
				if !pumping {
					pumping = true
					at(slot, func(t time.Time) { pumping = false; pump(t) })
				}
				return
			}
			send := waiting[0]
			waiting = waiting[1:]
			send(now)
		}
	}
	attempt = func(now time.Time) {
		waiting = append(waiting, func(sent time.Time) {
			at(sent.Add(jitter(s.rtt/2)), func(t time.Time) {
				res.attempts++
				if server.AllowN(t, 1) {
					at(t.Add(jitter(s.rtt/2)), func(t time.Time) {
						p.outcome(t, sent, http.StatusOK)
						last = t
						at(t.Add(jitter(s.work)), next)
					})
					return
				}
				res.refused++
				wait := (1 - server.TokensAt(t)) / s.rps
				retry := time.Duration(max(1, math.Ceil(wait))) * time.Second
				at(t.Add(jitter(s.rtt/2)), func(t time.Time) {
					p.outcome(t, sent, http.StatusTooManyRequests)
					at(t.Add(retry), attempt)
				})
			})
		})
		pump(now)
	}
	next = func(now time.Time) {
		if left == 0 {
			return
		}
		left--
		attempt(now)
	}
	for range s.par {
		at(start, next)
	}
	for q.Len() > 0 {
		e := heap.Pop(&q).(simEvent)
		e.do(e.at)
	}
	res.elapsed = last.Sub(start)
	return res
}

// Against a model of a service with a token bucket, on a virtual clock,
// the pace settles near the service's rate whatever the number of workers:
// at least 95% of it, with at most 2% of requests refused (bench/ measures
// the real thing). With one worker, every 429 stops all progress for its
// Retry-After, so less is asked of it.
func TestPacerSimulated(t *testing.T) {
	for _, rps := range []float64{5, 20, 100} {
		for _, par := range []int{1, 16, 64} {
			n := 2000
			if rps == 5 {
				n = 500
			}
			s := simulation{rps: rps, burst: max(2, int(math.Ceil(rps/10))), par: par, n: n, seed: 1, rtt: 3 * time.Millisecond, work: time.Millisecond}
			r := s.run()
			share := float64(r.refused) / float64(r.attempts)
			t.Logf("R=%v, %d workers, %d requests: %.1f%% of R, %d of %d refused (%.2f%%) in %v", rps, par, n, 100*r.achieved(n, rps), r.refused, r.attempts, 100*share, r.elapsed)
			want := 0.95
			if par == 1 {
				want = 0.60
			}
			if r.achieved(n, rps) < want || share > 0.02 {
				t.Errorf("R=%v, %d workers: %.1f%% of R with %.2f%% refused; want at least %.0f%% and at most 2%%", rps, par, 100*r.achieved(n, rps), 100*share, 100*want)
			}
		}
	}
}

// A 429 cuts the pace; another 429 of a request sent before the cut does
// not cut it again; successes raise it again; requests_per_second is a
// ceiling it never passes.
func TestPacerCutsOncePerRefusal(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	p := newPacer(0, 16)
	for i := range 40 {
		p.outcome(t0.Add(time.Duration(i)*time.Millisecond), t0, http.StatusOK)
	}
	before := p.rate()
	if before <= startPace {
		t.Fatalf("pace %v after 40 successes, want above %v", before, startPace)
	}
	p.outcome(t0.Add(time.Second), t0.Add(900*time.Millisecond), http.StatusTooManyRequests)
	cut := p.rate()
	if cut >= before {
		t.Fatalf("pace %v after a 429, was %v", cut, before)
	}
	p.outcome(t0.Add(time.Second+time.Millisecond), t0.Add(950*time.Millisecond), http.StatusTooManyRequests)
	if p.rate() != cut {
		t.Errorf("a 429 of a request sent before the cut moved the pace from %v to %v", cut, p.rate())
	}
	p.outcome(t0.Add(2*time.Second), t0.Add(2*time.Second), http.StatusInternalServerError)
	if p.rate() != cut {
		t.Errorf("a 500 moved the pace from %v to %v", cut, p.rate())
	}
	for i := range 200 {
		p.outcome(t0.Add(3*time.Second+time.Duration(i)*time.Millisecond), t0.Add(3*time.Second), http.StatusOK)
	}
	if p.rate() <= cut {
		t.Errorf("pace %v after 200 successes, not above %v", p.rate(), cut)
	}

	capped := newPacer(3, 16)
	for i := range 100 {
		capped.outcome(t0.Add(time.Duration(i)*time.Millisecond), t0, http.StatusOK)
	}
	if capped.rate() != 3 {
		t.Errorf("pace %v with requests_per_second 3", capped.rate())
	}
}
