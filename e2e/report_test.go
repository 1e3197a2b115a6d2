package e2e_test

import (
	"math"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/voxform/voxform/emulator"
)

// TestReportExamplesInBrowser applies examples against the emulator, writes
// each one's report and opens it in headless Chromium: it loads with no
// console error, a screenshot is kept, every resource has its row with
// its players and waveforms, an audio element reports the duration
// ffprobe finds in its file, and clicking a transcript segment seeks the
// source's player to the segment's start.
func TestReportExamplesInBrowser(t *testing.T) {
	t.Parallel()
	chromium(t)
	ffprobe(t)
	e := startEmulator(t, emulator.Options{})
	examples := []string{"ivr-prompts", "call-transcripts", "cloned-voice", "short-clips"}
	projects := make([]*project, len(examples))
	var wg sync.WaitGroup
	for i, name := range examples {
		projects[i] = newProject(t, name, e)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if r := projects[i].apply(); r.code != 0 {
				t.Errorf("%s", r)
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	b := startBrowser(t)
	for i, name := range examples {
		t.Run(name, func(t *testing.T) {
			p := projects[i]
			p.t = t
			b.t = t
			p.mustRun("report", "-loudness")
			st := p.readState()
			b.open(p.path("report/index.html"))
			b.screenshot(name)
			if errs := b.consoleErrors(); len(errs) > 0 {
				t.Fatalf("console errors:\n%s", strings.Join(errs, "\n"))
			}
			var got struct {
				Rows, Audio, Waves int
				Addresses          []string
				Totals             string
			}
			b.eval(`({Rows: document.querySelectorAll("#rows .res").length,
				Audio: document.querySelectorAll("#rows audio[src]").length,
				Waves: document.querySelectorAll("#rows img.wave").length,
				Addresses: [...document.querySelectorAll("#rows .res")].map(s => s.dataset.address),
				Totals: document.getElementById("totals").textContent})`, &got)
			if got.Rows != len(st.Resources) {
				t.Errorf("%d rows, want %d (one per resource)", got.Rows, len(st.Resources))
			}
			for _, a := range got.Addresses {
				if st.Resources[a] == nil {
					t.Errorf("row %q is not a recorded resource", a)
				}
			}
			if got.Audio == 0 || got.Waves != got.Audio {
				t.Errorf("%d audio players and %d waveforms, want one waveform per player and at least one", got.Audio, got.Waves)
			}
			if want := strconv.Itoa(len(st.Resources)) + " resources"; !strings.Contains(got.Totals, want) {
				t.Errorf("totals %q do not say %q", got.Totals, want)
			}
			checkWaveformLoads(t, b)
			checkAudioDuration(t, b, p)
			if name == "call-transcripts" {
				checkSegmentSeeks(t, b)
			}
			if errs := b.consoleErrors(); len(errs) > 0 {
				t.Fatalf("console errors:\n%s", strings.Join(errs, "\n"))
			}
		})
	}
}

// checkWaveformLoads proves the first waveform image decodes.
func checkWaveformLoads(t *testing.T, b *browser) {
	t.Helper()
	var width int
	b.eval(`(async () => { const img = document.querySelector("#rows img.wave");
		img.loading = "eager"; if (!img.complete) await new Promise(r => { img.onload = r; img.onerror = r; });
		return img.naturalWidth; })()`, &width)
	if width == 0 {
		t.Errorf("the first waveform image did not load")
	}
}

// checkAudioDuration compares the first player's duration with ffprobe's
// of the file it plays.
func checkAudioDuration(t *testing.T, b *browser, p *project) {
	t.Helper()
	var got struct {
		Src      string
		Duration float64
	}
	b.eval(`(async () => { const a = document.querySelector("#rows audio[src]");
		a.preload = "metadata"; a.load();
		if (a.readyState < 1) await new Promise((res, rej) => { a.onloadedmetadata = res; a.onerror = () => rej(new Error("audio error " + (a.error && a.error.code))); });
		return {Src: a.getAttribute("src"), Duration: a.duration}; })()`, &got)
	out, err := exec.Command(ffprobe(t), "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0",
		filepath.Join(p.path("report"), filepath.FromSlash(got.Src))).Output()
	if err != nil {
		t.Fatalf("ffprobe %s: %v", got.Src, err)
	}
	want, err := strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
	if err != nil {
		t.Fatalf("ffprobe %s: %q", got.Src, out)
	}
	if math.Abs(got.Duration-want) > 0.05 {
		t.Errorf("<audio src=%s>.duration = %.3f s, ffprobe says %.3f s", got.Src, got.Duration, want)
	}
}

// checkSegmentSeeks clicks a transcript segment that starts after 0 and
// proves the source's player is sought there.
func checkSegmentSeeks(t *testing.T, b *browser) {
	t.Helper()
	var got struct {
		Start, Time float64
		Found       bool
	}
	b.eval(`(async () => {
		const li = [...document.querySelectorAll("#rows .segments li")].find(l => Number(l.dataset.start) > 0);
		if (!li) return {Found: false};
		const a = li.closest(".res").querySelector("figure.now audio");
		a.preload = "metadata"; a.load();
		if (a.readyState < 1) await new Promise(r => { a.onloadedmetadata = r; });
		li.click();
		const t = a.currentTime;
		a.pause();
		return {Found: true, Start: Number(li.dataset.start), Time: t}; })()`, &got)
	if !got.Found {
		t.Fatal("no transcript segment starting after 0 on the page")
	}
	if math.Abs(got.Time-got.Start) > 0.01 {
		t.Errorf("clicking the segment at %.3f s set currentTime to %.3f s", got.Start, got.Time)
	}
}

// reportRows is what the page shows of its rows, for the tests below.
func reportRows(b *browser) (rows int, first, info string) {
	var got struct {
		Rows        int
		First, Info string
	}
	b.eval(`({Rows: document.querySelectorAll("#rows .res").length,
		First: (document.querySelector("#rows .res") || {dataset: {}}).dataset.address || "",
		Info: document.getElementById("pageinfo").textContent})`, &got)
	return got.Rows, got.First, got.Info
}
