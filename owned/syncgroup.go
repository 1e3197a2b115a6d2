package owned

import (
	"sync"
	"time"
)

// SyncGroup shares one sync among the changes made before it started
// (group commit): a caller counts its change with Made once the change is
// made (a line appended, a file renamed), then Waits for a sync that began
// after it. The first waiter runs the sync for every change counted so
// far; the waiters behind it find their changes covered and return at
// once. Each change is still durable before its Wait returns; what is
// saved is the syncs of changes that completed together.
//
// A failed sync fails every change it covered, whenever its Wait comes:
// after an fsync error the kernel may have dropped those changes, and a
// later sync that succeeds does not bring them back. A change counted
// after it gets a sync of its own.
type SyncGroup struct {
	// Gather, when set, is how long the waiter that is to run a sync
	// waits first while changes come from several writers at once (the
	// sync before covered the changes of more than one waiter, or
	// another writer is at work: see Start), so that the changes made
	// meanwhile share that sync: such a change waits that much longer,
	// and changes that complete a little apart cost one sync rather than
	// one each. A lone writer never waits, however many changes it makes
	// for each it waits for.
	Gather time.Duration

	mu      sync.Mutex // guards made and writers
	made    uint64
	writers int // see Start

	syncMu  sync.Mutex // one sync at a time; guards the fields below
	synced  uint64     // every change up to here is durable...
	failed  uint64     // ...except those up to here (the last failed sync's)
	err     error      // the failed sync's error
	from    uint64     // the last sync covered the changes after this, up to synced
	waiters int        // the waits the last sync has answered so far
}

// Made counts a change that is made and returns its number for Wait.
func (g *SyncGroup) Made() uint64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.made++
	return g.made
}

// Start counts a writer that is to make a change soon (an output being
// written into a directory), until its done is called: while a waiter
// is not the only writer counted, it gathers (see Gather).
func (g *SyncGroup) Start() (done func()) {
	g.mu.Lock()
	g.writers++
	g.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			g.mu.Lock()
			g.writers--
			g.mu.Unlock()
		})
	}
}

// Wait returns once change n is durable: after a sync that started after
// it was counted, run here by sync or by another waiter. It returns the
// error of the sync that covered n, if that sync failed.
func (g *SyncGroup) Wait(n uint64, sync func() error) error {
	g.syncMu.Lock()
	defer g.syncMu.Unlock()
	if n <= g.failed {
		return g.err
	}
	if g.synced >= n {
		if n > g.from {
			g.waiters++ // another writer's change the last sync covered
		}
		return nil
	}
	g.mu.Lock()
	others := g.writers > 1
	g.mu.Unlock()
	if g.Gather > 0 && (g.waiters > 1 || others) {
		time.Sleep(g.Gather)
	}
	g.mu.Lock()
	target := g.made
	g.mu.Unlock()
	from := max(g.synced, g.failed)
	if err := sync(); err != nil {
		g.failed, g.err = target, err
		g.from, g.waiters = target, 1
		return err
	}
	g.from, g.synced, g.waiters = from, target, 1
	return nil
}
