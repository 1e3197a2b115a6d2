package main

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/internal/numfmt"
)

// longSynthesis is P5: peak RSS of the voxform process writing one long
// 48 kHz WAV over each transport. Each transport gets its own project and
// process; the output is removed after it is measured.
func (h *harness) longSynthesis(ctx context.Context) error {
	text := longText(h.sz.audioSecs)
	e, err := startEmulator(emulator.Options{MaxText: len(text) + 1})
	if err != nil {
		return err
	}
	defer e.stop()
	var figures, details []string
	worst := int64(0)
	for _, tr := range []string{"rest", "sse", "websocket"} {
		m, line, err := h.longOne(ctx, e, tr, text)
		if err != nil {
			return err
		}
		worst = max(worst, m.MaxRSS)
		figures = append(figures, fmt.Sprintf("%s %s", tr, mib(m.MaxRSS)))
		details = append(details, line)
	}
	h.add(result{ID: "P5", What: fmt.Sprintf("peak RSS writing a %s 48 kHz WAV over rest, sse and websocket", hoursOf(h.sz.audioSecs)),
		Target: "<= 64 MiB each", Figure: strings.Join(figures, ", "),
		Verdict: h.verdict(worst <= 64<<20, false), Details: details,
	})
	return nil
}

// longOne applies the long synthesis over one transport and checks the file.
func (h *harness) longOne(ctx context.Context, e *emu, transport, text string) (measured, string, error) {
	dir := filepath.Join(h.work, "long-"+transport)
	if err := writeLong(dir, transport, text); err != nil {
		return measured{}, "", err
	}
	defer os.RemoveAll(dir) // hundreds of MB: never kept
	m, err := h.r.mustExit(ctx, 0, dir, e.URL(), "apply", "-auto-approve")
	if err != nil {
		return m, "", err
	}
	out := filepath.Join(dir, "build", "chapter.wav")
	info, err := audio.Probe(out)
	if err != nil {
		return m, "", fmt.Errorf("%s output: %w", transport, err)
	}
	st, err := os.Stat(out)
	if err != nil {
		return m, "", err
	}
	if info.SampleRate != 48000 {
		return m, "", fmt.Errorf("%s output is %d Hz, want 48000", transport, info.SampleRate)
	}
	line := fmt.Sprintf("%s: %s characters of text, %s of %d Hz WAV (%s) in %s s; %s; peak RSS %s",
		transport, numfmt.Thousands(len(text)), info.Duration.Round(time.Second), info.SampleRate,
		mib(st.Size()), secs(m.Wall), cpuOf(m), mib(m.MaxRSS))
	return m, line, nil
}

// batchTranscription is P6: peak RSS of a batch transcription of many files.
func (h *harness) batchTranscription(ctx context.Context) error {
	n := h.sz.recordings
	dir := filepath.Join(h.work, "recordings")
	if err := writeRecordings(dir, n); err != nil {
		return fmt.Errorf("generate %d recordings: %w", n, err)
	}
	// Batch jobs move through their states 1000 times faster than the
	// service's; voxform polls a loopback service every 50 ms.
	e, err := startEmulator(emulator.Options{TimeScale: 1000})
	if err != nil {
		return err
	}
	defer e.stop()
	m, err := h.r.mustExit(ctx, 0, dir, e.URL(), "apply", "-auto-approve")
	if err != nil {
		return err
	}
	st, err := e.stats(ctx)
	if err != nil {
		return err
	}
	if st.FilesTranscribed != int64(n) {
		return fmt.Errorf("batch transcription of %d files transcribed %d: see %s", n, st.FilesTranscribed, m.LogPath)
	}
	files, _, err := countFiles(filepath.Join(dir, "build", "transcripts"))
	if err != nil {
		return err
	}
	h.add(result{ID: "P6", What: fmt.Sprintf("peak RSS, batch transcription of %s files", numfmt.Thousands(n)), Target: "<= 128 MiB",
		Figure:  mib(m.MaxRSS),
		Verdict: h.verdict(m.MaxRSS <= 128<<20, true),
		Details: []string{fmt.Sprintf("%s recordings of %d s (16 kHz WAV), api batch with diarization, formats json, txt, srt: "+
			"%s s wall, %s; %d batch jobs, %s files transcribed, %s transcript files written; API requests: %s",
			numfmt.Thousands(n), recordingSeconds, secs(m.Wall), cpuNote(m), st.BatchJobsCreated, numfmt.Thousands(int(st.FilesTranscribed)), numfmt.Thousands(files), st.describe())},
	})
	return nil
}

// countFiles counts the regular files below dir and their bytes.
func countFiles(dir string) (int, int64, error) {
	n, bytes := 0, int64(0)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		n++
		bytes += fi.Size()
		return nil
	})
	return n, bytes, err
}

// hoursOf names a length: "1-hour" or "10-minute".
func hoursOf(s float64) string {
	if s >= 3600 && int(s)%3600 == 0 {
		return fmt.Sprintf("%d-hour", int(s)/3600)
	}
	return fmt.Sprintf("%d-minute", int(s)/60)
}
