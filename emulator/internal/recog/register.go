package recog

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/voxform/voxform/emulator/internal/emu"
)

// service holds the recognition half's state: batch jobs, older batch jobs
// and presigned links.
type service struct {
	env     *emu.Env
	fetcher *http.Client // URL sources (fetch.go)

	mu      sync.Mutex
	jobs    map[string]*job
	order   []*job // creation order
	legacy  map[string]*legacyJob
	links   map[string]link
	pending []webhook // webhooks due, sent by the background loop

	ctx    context.Context // cancelled by stop
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// tickEvery is how often the background loop advances jobs, so that
// terminal transitions send their webhooks without anyone polling.
const tickEvery = 20 * time.Millisecond

// Register adds the recognition endpoints to m and returns a function that
// stops background work.
func Register(m *emu.Mux, env *emu.Env) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	s := &service{env: env, fetcher: newFetcher(env.Scaled(fetchTimeout)), jobs: map[string]*job{}, legacy: map[string]*legacyJob{},
		links: map[string]link{}, ctx: ctx, cancel: cancel}
	rest, batch := emu.ShapeREST, emu.ShapeBatch
	for _, rt := range []emu.Route{
		{Pattern: "POST /stt/v3", Shape: rest, Handler: s.transcribe},
		{Pattern: "GET /stt/v3", Shape: rest, Handler: s.realtime},
		{Pattern: "POST /stt/v3/batch/submit", Shape: rest, Handler: s.legacySubmit},
		{Pattern: "GET /stt/v3/batch/status/{job_id}", Shape: rest, Handler: s.legacyStatus},
		{Pattern: "POST /stt/v3/batch/jobs", Shape: batch, Handler: s.createJob},
		{Pattern: "GET /stt/v3/batch/jobs", Shape: batch, Handler: s.listJobs},
		{Pattern: "POST /stt/v3/batch/jobs/{job_id}/start", Shape: batch, Handler: s.startJob},
		{Pattern: "GET /stt/v3/batch/jobs/{job_id}", Shape: batch, Handler: s.jobStatus},
		{Pattern: "GET /stt/v3/batch/jobs/{job_id}/files", Shape: batch, Handler: s.jobFiles},
		{Pattern: "POST /stt/v3/batch/jobs/{job_id}/cancel", Shape: batch, Handler: s.cancelJob},
	} {
		m.Handle(rt)
	}
	if env.Opts.Live() {
		// The live service's realtime recognition, with its own protocol.
		m.Handle(emu.Route{Pattern: liveRoute, Shape: rest, OwnAuth: true, Handler: s.liveRealtime})
	}
	m.Handle(emu.Route{Pattern: "GET " + storagePrefix + "{token}", Storage: true, Handler: s.download})
	s.wg.Add(1)
	go s.loop()
	return func() {
		cancel()
		s.wg.Wait()
	}
}

// loop advances running jobs and sends due webhooks until stopped.
func (s *service) loop() {
	defer s.wg.Done()
	t := time.NewTicker(tickEvery)
	defer t.Stop()
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-t.C:
			s.mu.Lock()
			now := s.env.Now()
			for _, j := range s.order {
				s.advance(j, now)
			}
			hooks := s.pending
			s.pending = nil
			s.mu.Unlock()
			for _, h := range hooks {
				s.send(h)
			}
		}
	}
}

// id returns a fresh seeded identifier with a prefix.
func (s *service) id(prefix string) string {
	return fmt.Sprintf("%s_%016x", prefix, s.env.Uint64())
}
