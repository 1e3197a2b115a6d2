package recog

import (
	"math"
	"slices"

	"github.com/voxform/voxform/emulator/internal/emu"
)

// Multi-channel audio not known as a whole (a call recording: one party
// per channel, each speaking in turn) is heard channel by channel: each
// channel's speech is cut into runs at silences, runs are joined into
// islands, and each island is looked up among the audio the emulator
// synthesized by the length and shape of its speech.
const (
	// maxIslandChannels bounds the channels heard one by one (synthesis
	// allows 1 to 8); audio with more is heard downmixed only.
	maxIslandChannels = 8
	// islandFloor is the level (-60 dBFS) under which a window is silent
	// whatever the channel's peak; islandRelative is the level relative
	// to the channel's peak under which it is silent too.
	islandFloor    = 0.001
	islandRelative = 0.005
	// islandSplit is the silence, in windows (200 ms), that ends a run.
	islandSplit = 10
	// maxIslandJoin is how many runs one island may join: a turn's own
	// pauses (between sentences, <pauses> tags) split it into runs.
	maxIslandJoin = 24
	// maxIslandRuns bounds the runs of a channel that are looked up; a
	// channel with more is not a conversation and is heard as a whole.
	maxIslandRuns = 400
	// minUnknownIsland is the shortest run, in windows (200 ms), of
	// speech the emulator did not make that gets placeholder words.
	minUnknownIsland = 10
	// islandSlack is how far, in quarter windows, from where its speech
	// was heard to begin a remembered envelope is tried (two windows).
	islandSlack = 2 * fineSteps
)

// island is one turn heard on one channel.
type island struct {
	Channel    int
	Start, End float64 // where its speech begins and ends, seconds
	Known      bool    // the emulator synthesized it
	Spoken     emu.Spoken
	Seed       uint64 // for placeholder text, when not Known
}

// hearChannels hears each channel on its own and keeps the islands, merged
// by start time, when at least one of them is known.
func (a *analysis) hearChannels(env *emu.Env, chans []*fineEnvelope) {
	var all []island
	known := false
	for c, fe := range chans {
		for _, is := range channelIslands(env, fe, c, a.Seed) {
			known = known || is.Known
			all = append(all, is)
		}
	}
	if !known {
		return
	}
	slices.SortStableFunc(all, func(x, y island) int {
		if x.Start != y.Start {
			return cmpFloat(x.Start, y.Start)
		}
		return x.Channel - y.Channel
	})
	a.Islands = distinct(all)
	for _, is := range a.Islands {
		if is.Known {
			a.Spoken.Language = is.Spoken.Language // the first turn's
			break
		}
	}
}

// distinct drops from islands, sorted by start, a turn heard at the same
// time (within two windows) on an earlier channel too: the same audio on
// several channels (a mono recording copied to each) is one turn, on the
// first of them.
func distinct(islands []island) []island {
	out := islands[:0:0]
	for _, is := range islands {
		dup := false
		for k := len(out) - 1; k >= 0 && is.Start-out[k].Start <= 2*emu.EnvelopeWindow; k-- {
			if o := out[k]; o.Known && is.Known && o.Spoken.Audio == is.Spoken.Audio && o.Channel != is.Channel {
				dup = true
			}
		}
		if !dup {
			out = append(out, is)
		}
	}
	return out
}

func cmpFloat(x, y float64) int {
	if x < y {
		return -1
	}
	return 1
}

// run is a stretch of windows [lo, hi) of a channel holding sound.
type run struct{ lo, hi int }

// channelScan looks up the islands of one channel; it is the emu.Speech of
// the group of runs being looked up.
type channelScan struct {
	fe     *fineEnvelope
	coarse []float32
	onset  int // window where the speech being looked up begins
	cache  map[[2]int][][]float32
}

// channelIslands cuts channel c into runs and joins each run with those
// after it as long as they make a remembered synthesis, the longest one
// found; a run that starts none is an island of unknown speech.
func channelIslands(env *emu.Env, fe *fineEnvelope, c int, seed uint64) []island {
	sc := &channelScan{fe: fe, coarse: fe.at(0)}
	runs := sc.runs()
	if len(runs) > maxIslandRuns {
		return nil
	}
	var out []island
	for i := 0; i < len(runs); {
		j, sp, lo, hi, ok := sc.longestMatch(env, runs, i)
		if !ok {
			if r := runs[i]; r.hi-r.lo >= minUnknownIsland {
				out = append(out, island{Channel: c, Start: windowSeconds(r.lo), End: windowSeconds(r.hi),
					Seed: seed ^ uint64(c)<<56 ^ uint64(r.lo)})
			}
			i++
			continue
		}
		out = append(out, island{Channel: c, Start: windowSeconds(lo), End: windowSeconds(hi),
			Known: true, Spoken: env.Hear(sp)})
		i = j + 1
	}
	return out
}

func windowSeconds(w int) float64 { return round3(float64(w) * emu.EnvelopeWindow) }

// runs cuts the channel at silences of islandSplit windows or more.
func (sc *channelScan) runs() []run {
	var peak float32
	for _, v := range sc.coarse {
		peak = max(peak, v)
	}
	level := float32(math.Max(islandFloor, islandRelative*float64(peak)))
	var out []run
	for i, v := range sc.coarse {
		if v < level {
			continue
		}
		if n := len(out); n > 0 && i-out[n-1].hi < islandSplit {
			out[n-1].hi = i + 1
			continue
		}
		out = append(out, run{lo: i, hi: i + 1})
	}
	return out
}

// longestMatch joins runs[i] with up to maxIslandJoin-1 runs after it and
// returns the last run of the longest group that is a remembered
// synthesis, what it says and where its speech lies.
func (sc *channelScan) longestMatch(env *emu.Env, runs []run, i int) (last int, sp emu.Spoken, lo, hi int, ok bool) {
	for j := i; j < len(runs) && j-i < maxIslandJoin; j++ {
		from, to := emu.SpeechSpan(sc.coarse[runs[i].lo:runs[j].hi])
		if to <= from {
			continue
		}
		sc.onset, sc.cache = runs[i].lo+from, nil
		if s, found := env.Registry.LookupSpeech(to-from, sc); found {
			last, sp, lo, hi, ok = j, s, runs[i].lo+from, runs[i].lo+to, true
		}
	}
	return last, sp, lo, hi, ok
}

// At implements emu.Speech: the channel's envelopes of length windows
// from lead windows before the onset, at each quarter-window offset
// within islandSlack.
func (sc *channelScan) At(lead, length int) [][]float32 {
	key := [2]int{lead, length}
	if e, ok := sc.cache[key]; ok {
		return e
	}
	base := (sc.onset - lead) * fineSteps
	out := make([][]float32, 0, 2*islandSlack+1)
	for q := base - islandSlack; q <= base+islandSlack; q++ {
		out = append(out, sc.fe.window(q, length))
	}
	if sc.cache == nil {
		sc.cache = map[[2]int][][]float32{}
	}
	sc.cache[key] = out
	return out
}
