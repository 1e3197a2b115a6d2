package e2e_test

import (
	"math"
	"os"
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
	onceAcrossProfiles(t)
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

// TestReportOfChanges: a changed text, first as a saved plan, then as the
// last apply against the state before it. Both pages show the replace with
// a word diff and both players: before the apply the previous audio is the
// output on disk, after it the copy in the output cache. The "changed
// only" filter keeps that one row.
func TestReportOfChanges(t *testing.T) {
	onceAcrossProfiles(t)
	t.Parallel()
	e := startEmulator(t, emulator.Options{})
	p := newProject(t, "cloned-voice", e)
	b := startBrowser(t)
	p.mustRun("apply", "-auto-approve")
	prev, err := os.ReadFile(p.path("voxform.state.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p.path("prev.json"), prev, 0o644); err != nil {
		t.Fatal(err)
	}
	yaml, err := os.ReadFile(p.path("main.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(yaml), "Thank you all for being here.", "Thank you all for joining us.", 1)
	if edited == string(yaml) {
		t.Fatal("the cloned-voice example no longer has the text this test edits")
	}
	if err := os.WriteFile(p.path("main.yaml"), []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	p.mustRun("plan", "-out", "change.plan")
	p.mustRun("report", "-out", "plan-report", "change.plan")
	p.mustRun("apply", "-auto-approve")
	p.mustRun("report", "-out", "apply-report", "-previous", "prev.json")

	for _, page := range []struct {
		dir, nowNote string
		nowPlays     bool
	}{
		{dir: "plan-report", nowNote: "made by apply"},
		{dir: "apply-report", nowPlays: true},
	} {
		b.open(p.path(page.dir + "/index.html"))
		b.screenshot(page.dir)
		var got struct {
			Action, Del, Ins, NowNote, NowSrc, PrevSrc string
			Players, ChangedRows, AllRows              int
		}
		b.eval(`(() => {
			const it = JSON.parse(document.getElementById("data").textContent).items.find(i => i.address === "synthesis.greeting");
			const sec = document.querySelector('#rows .res[data-address="synthesis.greeting"]');
			const all = document.querySelectorAll("#rows .res").length;
			const f = document.getElementById("f-changed"); f.checked = true; f.dispatchEvent(new Event("change"));
			return {Action: it.action, Del: sec.querySelector(".text del").textContent, Ins: sec.querySelector(".text ins").textContent,
				NowNote: (it.audio && it.audio.note) || "", NowSrc: (it.audio && it.audio.src) || "", PrevSrc: (it.previous && it.previous.src) || "",
				Players: sec.querySelectorAll("audio[src]").length, AllRows: all,
				ChangedRows: document.querySelectorAll("#rows .res").length};
		})()`, &got)
		if errs := b.consoleErrors(); len(errs) > 0 {
			t.Fatalf("%s: console errors:\n%s", page.dir, strings.Join(errs, "\n"))
		}
		if got.Action != "replace" || !strings.Contains(got.Del, "being here.") || !strings.Contains(got.Ins, "joining us.") {
			t.Errorf("%s: greeting is %q with diff -%q +%q, want a replace of \"being here.\" by \"joining us.\"", page.dir, got.Action, got.Del, got.Ins)
		}
		if got.PrevSrc == "" {
			t.Errorf("%s: no previous audio", page.dir)
		}
		if page.nowPlays && (got.NowSrc == "" || got.Players != 2) {
			t.Errorf("%s: %d players (now %q), want the new and the previous audio", page.dir, got.Players, got.NowSrc)
		}
		if !page.nowPlays && (got.NowSrc != "" || got.NowNote != page.nowNote || got.Players != 1) {
			t.Errorf("%s: now %q (%q), %d players; want no audio yet (%q) and the previous one", page.dir, got.NowSrc, got.NowNote, got.Players, page.nowNote)
		}
		if got.AllRows != 3 || got.ChangedRows != 1 {
			t.Errorf("%s: %d rows, %d changed only; want 3 and 1", page.dir, got.AllRows, got.ChangedRows)
		}
	}
}
