package report_test

import (
	"context"
	"math"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/voxform/voxform/internal/cdp"
	"github.com/voxform/voxform/report"
	"github.com/voxform/voxform/state"
)

// openPage opens the report of p in headless Chromium (never skipped:
// without chromium the test fails).
func openPage(t *testing.T, p *listenProject) *cdp.Browser {
	t.Helper()
	bin, err := cdp.Find()
	if err != nil {
		t.Fatalf("the report page's browser tests need chromium: %v", err)
	}
	b, err := cdp.Start(bin, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	if _, err := b.Navigate("file://" + filepath.Join(p.dir, "report", "index.html")); err != nil {
		t.Fatal(err)
	}
	return b
}

// TestListenPageInBrowser opens the page of a listening apply: it loads
// with no console error; the hostile transcript ran nothing, added no
// element and shows its bidi override escaped; the chapter's player comes
// before its cues, and it shows no wall of text; clicking a chunk's cue
// seeks the player to the chunk's start; the failing chunk shows its
// aligned diff, and its "play from" control seeks the player a second
// before the diverging words; the failing seams are shown; the totals
// count the rows that fail a check or seam, and "failing checks only"
// keeps those rows.
func TestListenPageInBrowser(t *testing.T) {
	p := newListenProject(t)
	ok := *p.st.Resources["synthesis.prompt"]
	ok.Outputs = []state.Output{ok.Outputs[0]}
	ok.Outputs[0].Listen = &state.Listen{Heard: strings.ToLower(prompt), Pass: true, Judged: "limits-now"}
	p.st.Resources["synthesis.passing"] = &ok
	p.build(t, p.m)
	b := openPage(t, p)
	eval := func(expr string, out any) {
		t.Helper()
		if err := b.Eval(expr, out); err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
	}
	var page struct {
		Ready, Pwned                    bool
		Scripts, Imgs, Bold             int
		PromptDiff, PromptMark          string
		PlayerFirst, WallOfText         bool
		Cues, Timed, FailingSeams       int
		BadDel, BadIns, BadMark, Button string
	}
	eval(`(() => {
		const ch = document.querySelector('#rows .res[data-address="synthesis.chapter"]');
		const pr = document.querySelector('#rows .res[data-address="synthesis.prompt"]');
		const player = ch.querySelector("figure.now audio"), cues = ch.querySelector("ol.cues");
		const bad = cues.querySelectorAll(":scope > li")[`+itoa(p.bad)+`];
		return {Ready: document.body.dataset.ready === "1", Pwned: window.pwned !== undefined,
			Scripts: document.querySelectorAll("script").length, Imgs: document.querySelectorAll("#rows img:not(.wave)").length,
			Bold: document.querySelectorAll("#rows b").length,
			PromptDiff: pr.querySelector(".check .align").textContent, PromptMark: pr.querySelector(".check .mark").textContent,
			PlayerFirst: !!(player && cues && (player.compareDocumentPosition(cues) & Node.DOCUMENT_POSITION_FOLLOWING)),
			WallOfText: !!ch.querySelector("p.text"),
			Cues: cues.querySelectorAll(":scope > li").length, Timed: cues.querySelectorAll(":scope > li.timed").length,
			FailingSeams: cues.querySelectorAll(".seam.fail").length,
			BadDel: [...bad.querySelectorAll(".check.fail .align del.a-substitute")].map(e => e.textContent).join("|"),
			BadIns: [...bad.querySelectorAll(".check.fail .align ins.a-substitute")].map(e => e.textContent).join("|"),
			BadMark: bad.querySelector(".check .mark").textContent,
			Button: (bad.querySelector("button.playfrom") || {}).textContent || ""};
	})()`, &page)
	if errs := b.Errors(); len(errs) > 0 {
		t.Fatalf("console errors:\n%s", strings.Join(errs, "\n"))
	}
	if !page.Ready || page.Pwned || page.Scripts != 2 || page.Imgs != 0 || page.Bold != 0 {
		t.Errorf("ready %v, pwned %v, %d scripts, %d images, %d <b>: want the page's 2 scripts and nothing the transcript wrote",
			page.Ready, page.Pwned, page.Scripts, page.Imgs, page.Bold)
	}
	if !strings.Contains(page.PromptDiff, "<script>") || strings.Contains(page.PromptDiff, "\u202e") || !strings.Contains(page.PromptDiff, `\u202e`) ||
		!strings.Contains(page.PromptMark, "fail") {
		t.Errorf("the prompt's check %q shows %.200q; want it failing, its transcript as text and the bidi override escaped", page.PromptMark, page.PromptDiff)
	}
	if !page.PlayerFirst || page.WallOfText {
		t.Errorf("player before the cues: %v; text whole: %v; want the player first and the text as cues only", page.PlayerFirst, page.WallOfText)
	}
	if page.Cues != len(p.chunks) || page.Timed != page.Cues || page.FailingSeams != 2 {
		t.Errorf("%d cues (%d timed), %d failing seams; want %d timed cues and 2", page.Cues, page.Timed, page.FailingSeams, len(p.chunks))
	}
	if !strings.Contains(page.BadMark, "fail") || page.BadIns != "zebra quantum walrus" || page.BadDel == "" {
		t.Errorf("the bad chunk %q shows -%q +%q; want a failing check whose diff substitutes \"zebra quantum walrus\"", page.BadMark, page.BadDel, page.BadIns)
	}
	if !strings.HasPrefix(page.Button, "play from ") {
		t.Errorf("the bad chunk's control says %q, want \"play from …\"", page.Button)
	}

	var filter struct {
		Total, Passing string
		Before, After  int
	}
	eval(`(() => {
		const before = document.querySelectorAll("#rows .res").length;
		const f = document.getElementById("f-failing"); f.checked = true; f.dispatchEvent(new Event("change"));
		const after = document.querySelectorAll("#rows .res").length;
		f.checked = false; f.dispatchEvent(new Event("change"));
		return {Total: document.querySelector('[data-total="listen-failing"]').textContent, Before: before, After: after,
			Passing: document.querySelector('#rows .res[data-address="synthesis.passing"] .check').textContent};
	})()`, &filter)
	if filter.Total != "2 failing a listening check or seam" || filter.Before != 3 || filter.After != 2 {
		t.Errorf("totals %q; %d rows, %d failing only; want 2 failing of 3", filter.Total, filter.Before, filter.After)
	}
	if want := "✓ listen: passcer 0.000 · wer 0.000 · longest run 0 · missing tail 0 (the verdict as recorded)"; filter.Passing != want {
		t.Errorf("the passing check reads %q, want %q", filter.Passing, want)
	}

	var seek struct{ Cue, AfterCue, PlayFrom, AfterPlay float64 }
	eval(`(async () => {
		const ch = document.querySelector('#rows .res[data-address="synthesis.chapter"]');
		const a = ch.querySelector("figure.now audio");
		a.preload = "metadata"; a.load();
		if (a.readyState < 1) await new Promise((res, rej) => { a.onloadedmetadata = res; a.onerror = () => rej(new Error("audio error")); });
		const li = ch.querySelectorAll("ol.cues > li")[2];
		li.querySelector(".cue").click();
		const afterCue = a.currentTime;
		const b = ch.querySelectorAll("ol.cues > li")[`+itoa(p.bad)+`].querySelector("button.playfrom");
		b.click();
		const afterPlay = a.currentTime;
		a.pause();
		return {Cue: Number(li.dataset.start), AfterCue: afterCue, PlayFrom: Number(b.dataset.at), AfterPlay: afterPlay};
	})()`, &seek)
	if seek.Cue != 2*p.chunkLen || math.Abs(seek.AfterCue-seek.Cue) > 0.01 {
		t.Errorf("clicking the third cue (at %.2f s) set currentTime to %.3f s", seek.Cue, seek.AfterCue)
	}
	want := float64(p.bad)*p.chunkLen + math.Round(p.chunkLen*float64(p.badFrom)/float64(p.badWords)*10)/10 - 1
	if math.Abs(seek.PlayFrom-want) > 1e-9 || math.Abs(seek.AfterPlay-want) > 0.01 {
		t.Errorf("play from %.2f s (want %.2f) set currentTime to %.3f s", seek.PlayFrom, want, seek.AfterPlay)
	}
	if errs := b.Errors(); len(errs) > 0 {
		t.Fatalf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

// TestSignOffPageInBrowser opens a page of approvals: each row says its
// sign-off and origin, the approver's hostile name and note show as text
// and run nothing; ticking two rows (one whose address holds a space and
// a single quote) writes the approve command, whose words a shell reads
// back as exactly those addresses; unticking one drops it; "tick all
// unapproved" ticks every made resource whose approval does not hold and
// nothing else; the page says it cannot write the state.
func TestSignOffPageInBrowser(t *testing.T) {
	p := &listenProject{dir: t.TempDir()}
	st := signOffState(t, p.dir)
	if err := report.Build(context.Background(), report.Input{Dir: p.dir, Out: filepath.Join(p.dir, "report"), State: st}); err != nil {
		t.Fatal(err)
	}
	b := openPage(t, p)
	eval := func(expr string, out any) {
		t.Helper()
		if err := b.Eval(expr, out); err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
	}
	var page struct {
		Ready, Pwned                   bool
		Scripts, Bold, Boxes           int
		Held, Lost, None, Take, Studio string
		Static, Empty                  string
	}
	eval(`(() => {
		const row = a => document.querySelector('#rows .res[data-address="' + a.replace(/"/g, '\\"') + '"]');
		const so = a => (row(a).querySelector(".signoff") || {}).textContent || "";
		return {Ready: document.body.dataset.ready === "1", Pwned: window.pwned !== undefined,
			Scripts: document.querySelectorAll("script").length, Bold: document.querySelectorAll("#rows b").length,
			Boxes: document.querySelectorAll("#rows input.tick").length,
			Held: so('synthesis.menu["held"]'), Lost: so('synthesis.menu["lost"]'), None: so("synthesis.menu[\"it's a b\"]"),
			Take: so("synthesis.take"), Studio: so("synthesis.studio"),
			Static: document.getElementById("approve-static").textContent, Empty: document.getElementById("approve-cmd").value};
	})()`, &page)
	if errs := b.Errors(); len(errs) > 0 {
		t.Fatalf("console errors:\n%s", strings.Join(errs, "\n"))
	}
	if !page.Ready || page.Pwned || page.Scripts != 2 || page.Bold != 0 {
		t.Errorf("ready %v, pwned %v, %d scripts, %d <b>: want the page's 2 scripts and nothing an approver wrote", page.Ready, page.Pwned, page.Scripts, page.Bold)
	}
	for _, c := range []struct{ got, want string }{
		{page.Held, "✓ approvedby Eve <script>alert(1)</script>at 2026-11-02T09:30:00Znote: " + hostileNote + "origin: made by the service"},
		{page.Lost, "✗ approval lost: the outputs changed since they were approvedby Ana <ana@example.com>at 2026-11-02T09:30:00Znote: TICKET-7origin: made by the service"},
		{page.None, "not approvedorigin: made by the service"},
		{page.Take, "not approvedorigin: a take put back (voxform use): take 999999999999"},
		{page.Studio, "not approvedorigin: recorded · recording studio/seven.wav"},
	} {
		if c.got != c.want {
			t.Errorf("sign-off reads %q, want %q", c.got, c.want)
		}
	}
	if page.Boxes != 6 || page.Empty != "" || !strings.Contains(page.Static, "cannot write the state") {
		t.Errorf("%d tick boxes (want the 6 made and not approved), command %q before any tick, page says %q", page.Boxes, page.Empty, page.Static)
	}

	var ticks struct{ Two, One, All, Count string }
	eval(`(() => {
		const tick = a => { const cb = document.querySelector('#rows .res[data-address="' + a.replace(/"/g, '\\"') + '"] input.tick'); cb.click(); };
		const cmd = () => document.getElementById("approve-cmd").value;
		tick("synthesis.menu[\"it's a b\"]"); tick("synthesis.take"); tick('synthesis.menu["lost"]');
		tick('synthesis.menu["lost"]');
		const two = cmd();
		tick("synthesis.take");
		const one = cmd();
		document.getElementById("tick-unapproved").click();
		return {Two: two, One: one, All: cmd(), Count: document.getElementById("ticked").textContent};
	})()`, &ticks)
	words := func(cmd string) []string {
		t.Helper()
		out, err := exec.Command("sh", "-c", "voxform() { printf '%s\\n' \"$@\"; }; "+cmd).Output()
		if err != nil {
			t.Fatalf("sh -c %q: %v", cmd, err)
		}
		// Each ticked address comes as -expect ADDRESS=DIGEST, the digest
		// that of the outputs shown: read back as the addresses.
		w := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
		addrs := w[:1]
		for i := 1; i < len(w); i += 2 {
			if w[i] != "-expect" || i+1 == len(w) {
				t.Fatalf("%q: word %d is %q, want -expect ADDRESS=DIGEST", cmd, i, w[i])
			}
			j := strings.LastIndexByte(w[i+1], '=')
			if j < 0 || st.Resources[w[i+1][:j]] == nil || w[i+1][j+1:] != state.OutputsDigest(st.Resources[w[i+1][:j]].Outputs) {
				t.Fatalf("%q: %q is not an address and the digest of its outputs", cmd, w[i+1])
			}
			addrs = append(addrs, w[i+1][:j])
		}
		return addrs
	}
	if want := []string{"approve", `synthesis.menu["it's a b"]`, "synthesis.take"}; !slices.Equal(words(ticks.Two), want) {
		t.Errorf("two ticked: %q reads in a shell as %q, want %q", ticks.Two, words(ticks.Two), want)
	}
	if want := []string{"approve", `synthesis.menu["it's a b"]`}; !slices.Equal(words(ticks.One), want) {
		t.Errorf("one unticked: %q reads as %q, want %q", ticks.One, words(ticks.One), want)
	}
	want := []string{"approve", "synthesis.imported", `synthesis.menu["it's a b"]`, `synthesis.menu["lost"]`, `synthesis.menu["plain"]`, "synthesis.studio", "synthesis.take"}
	if got := words(ticks.All); !slices.Equal(got, want) || ticks.Count != "6 ticked" {
		t.Errorf("all unapproved ticked (%s): %q reads as %q, want %q", ticks.Count, ticks.All, got, want)
	}
	if errs := b.Errors(); len(errs) > 0 {
		t.Fatalf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
