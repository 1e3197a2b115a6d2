package encode_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/audio/encode"
)

// bookFrames are the lengths of the test book's chapters in samples at
// 44.1 kHz: odd counts, so that no start falls on a round millisecond.
var bookFrames = []int64{57331, 30877, 44111}

var bookTitles = []string{"अध्याय एक: आरंभ", "Chapter = two; #2 \\ back", "अध्याय तीन"}

// testBook is a book of three chapters whose starts come from sample
// counts, with Hindi titles, and its joined audio.
func testBook(t *testing.T, cover string) (encode.Book, string) {
	var total int64
	b := encode.Book{Title: "कहानियाँ", Author: "प्रेमचंद", Narrator: "Asha Rao", Language: "hi-IN", Year: 2026, Cover: cover}
	for i, n := range bookFrames {
		b.Chapters = append(b.Chapters, encode.Chapter{Title: bookTitles[i],
			Start: audio.FramesDuration(total, 44100), End: audio.FramesDuration(total+n, 44100)})
		total += n
	}
	return b, toneWAV(t, 44100, 1, total, leakyInfo)
}

// leakyInfo is a LIST INFO chunk with a title that must never reach an
// output: voxform sets every tag itself.
var leakyInfo = []byte("LIST\x16\x00\x00\x00INFOINAM\x0a\x00\x00\x00LEAKEDTAG\x00")

// checkNoLeak: nothing of the input WAV's tags nor ffmpeg's version is
// in the output.
func checkNoLeak(t *testing.T, path string) {
	t.Helper()
	data, _ := os.ReadFile(path)
	if bytes.Contains(data, []byte("LEAKED")) || versionTag.Match(data) {
		t.Errorf("%s carries the input's tag or ffmpeg's version: %q", path, versionTag.Find(data))
	}
}

// pngCover writes a small PNG made by ffmpeg.
func pngCover(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "cover.png")
	out, err := exec.Command("ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i",
		"testsrc=size=32x32:d=1", "-frames:v", "1", path).CombinedOutput()
	if err != nil {
		t.Fatalf("make a cover: %v %s", err, out)
	}
	return path
}

// checkChapters: ffprobe -show_chapters lists the book's chapters with
// their titles, each start and end within one codec frame of the PCM's.
func checkChapters(t *testing.T, path string, b encode.Book, frame time.Duration) probed {
	t.Helper()
	p := ffprobe(t, path)
	if len(p.Chapters) != len(b.Chapters) {
		t.Fatalf("ffprobe lists %d chapters, want %d", len(p.Chapters), len(b.Chapters))
	}
	for i, c := range p.Chapters {
		want := b.Chapters[i]
		if c.Tags["title"] != want.Title {
			t.Errorf("chapter %d: title %q, want %q", i+1, c.Tags["title"], want.Title)
		}
		if d := secs(t, c.StartTime) - want.Start; d > frame || -d > frame {
			t.Errorf("chapter %d starts at %s, want %v within %v", i+1, c.StartTime, want.Start, frame)
		}
		if d := secs(t, c.EndTime) - want.End; d > frame || -d > frame {
			t.Errorf("chapter %d ends at %s, want %v within %v", i+1, c.EndTime, want.End, frame)
		}
	}
	return p
}

// TestM4B: AAC in an M4B-branded MP4 with the chapters (Hindi titles,
// starts within one AAC frame), the metadata, the language and the
// cover; bit-exact.
func TestM4B(t *testing.T) {
	tool := findTool(t)
	b, in := testBook(t, pngCover(t))
	dir := t.TempDir()
	out := filepath.Join(dir, "book.m4b")
	for _, o := range []string{out, filepath.Join(dir, "again.m4b")} {
		if err := tool.M4B(context.Background(), in, b, 64000, o); err != nil {
			t.Fatal(err)
		}
	}
	if sum(t, out) != sum(t, filepath.Join(dir, "again.m4b")) {
		t.Error("two M4Bs of the same book differ")
	}
	checkNoLeak(t, out)
	p := checkChapters(t, out, b, 1024*time.Second/44100)
	for k, v := range map[string]string{"title": b.Title, "album": b.Title, "artist": b.Author, "composer": b.Narrator, "date": "2026", "major_brand": "M4B "} {
		if p.Format.Tags[k] != v {
			t.Errorf("tag %s = %q, want %q", k, p.Format.Tags[k], v)
		}
	}
	var audioOK, coverOK bool
	for _, s := range p.Streams {
		audioOK = audioOK || s.CodecName == "aac" && s.SampleRate == "44100" && s.Channels == 1 && s.Tags["language"] == "hin"
		coverOK = coverOK || s.CodecName == "png" && s.Disposition["attached_pic"] == 1
	}
	if !audioOK || !coverOK {
		t.Errorf("streams %+v: want AAC 44.1 kHz mono in Hindi (%v) and the PNG cover (%v)", p.Streams, audioOK, coverOK)
	}
}

// TestMP3Book: a CBR MP3 whose chapters ffprobe lists with their titles
// and starts (within one MP3 frame); bit-exact; the ID3v2 tag, read
// back here, holds the metadata, the cover, a CHAP frame per chapter
// with its TIT2 and a top-level ordered CTOC listing them all.
func TestMP3Book(t *testing.T) {
	tool := findTool(t)
	cover := pngCover(t)
	b, in := testBook(t, cover)
	dir := t.TempDir()
	out := filepath.Join(dir, "book.mp3")
	for _, o := range []string{out, filepath.Join(dir, "again.mp3")} {
		if err := tool.MP3Book(context.Background(), in, b, 192000, o); err != nil {
			t.Fatal(err)
		}
	}
	if sum(t, out) != sum(t, filepath.Join(dir, "again.mp3")) {
		t.Error("two MP3 books of the same book differ")
	}
	checkNoLeak(t, out)
	checkChapters(t, out, b, 1152*time.Second/44100)
	if rates := mp3Bitrates(t, out); len(rates) != 1 || rates[192000] == 0 {
		t.Errorf("frames by bit rate %v, want all at 192000", rates)
	}
	data, _ := os.ReadFile(out)
	tag := readID3(t, data)
	png, _ := os.ReadFile(cover)
	for id, want := range map[string]string{"TIT2": b.Title, "TALB": b.Title, "TPE1": b.Author, "TCOM": b.Narrator,
		"TXXX": "narrator\x00" + b.Narrator, "TDRC": "2026", "TLAN": "hin", "APIC": "image/png\x00\x03\x00" + string(png)} {
		if got := tag.text(id); got != want {
			t.Errorf("%s = %q, want %q", id, trim(got), trim(want))
		}
	}
	checkTOC(t, tag, b)
}

func trim(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// checkTOC: one CTOC, before the CHAP frames, top-level and ordered,
// listing every CHAP in order; each CHAP starts and ends where its
// chapter does (ID3 counts milliseconds) with its title in a TIT2
// sub-frame.
func checkTOC(t *testing.T, tag id3Tag, b encode.Book) {
	t.Helper()
	var ids []string
	ctoc, firstChap := -1, -1
	for i, f := range tag {
		switch f.id {
		case "CTOC":
			if ctoc >= 0 {
				t.Fatal("two CTOC frames")
			}
			ctoc = i
			id, rest, _ := bytes.Cut(f.body, []byte{0})
			if string(id) == "" || len(rest) < 2 || rest[0]&0x03 != 0x03 {
				t.Fatalf("CTOC %q: want an element id, flags top-level|ordered", f.body)
			}
			entries := bytes.Split(rest[2:], []byte{0})
			for _, e := range entries[:min(int(rest[1]), len(entries))] {
				ids = append(ids, string(e))
			}
		case "CHAP":
			if firstChap < 0 {
				firstChap = i
			}
		}
	}
	if ctoc < 0 || ctoc > firstChap {
		t.Fatalf("CTOC at frame %d, first CHAP at %d: want a CTOC ahead of the chapters", ctoc, firstChap)
	}
	if len(ids) != len(b.Chapters) {
		t.Fatalf("CTOC lists %v, want %d chapters", ids, len(b.Chapters))
	}
	for i, id := range ids {
		chap := tag.chap(id)
		if chap == nil {
			t.Fatalf("CTOC's entry %q has no CHAP frame", id)
		}
		eid, rest, _ := bytes.Cut(chap.body, []byte{0})
		start := time.Duration(binary.BigEndian.Uint32(rest[0:])) * time.Millisecond
		end := time.Duration(binary.BigEndian.Uint32(rest[4:])) * time.Millisecond
		if string(eid) != id || (start-b.Chapters[i].Start).Abs() > time.Millisecond || (end-b.Chapters[i].End).Abs() > time.Millisecond {
			t.Errorf("CHAP %q: %v to %v, want %v to %v", eid, start, end, b.Chapters[i].Start, b.Chapters[i].End)
		}
		sub := parseFrames(t, rest[16:])
		if got := sub.text("TIT2"); got != b.Chapters[i].Title {
			t.Errorf("CHAP %q: TIT2 %q, want %q", id, got, b.Chapters[i].Title)
		}
	}
}

// id3Frame is one frame of an ID3v2.4 tag.
type id3Frame struct {
	id   string
	body []byte
}

type id3Tag []id3Frame

// readID3 parses the ID3v2.4 tag at the start of data: this is the
// tests' own reader, not the writer's.
func readID3(t *testing.T, data []byte) id3Tag {
	t.Helper()
	if len(data) < 10 || string(data[:3]) != "ID3" || data[3] != 4 {
		t.Fatalf("no ID3v2.4 tag: % x", data[:min(10, len(data))])
	}
	size := syncsafe(data[6:10])
	return parseFrames(t, data[10:10+size])
}

func syncsafe(b []byte) int {
	return int(b[0])<<21 | int(b[1])<<14 | int(b[2])<<7 | int(b[3])
}

func parseFrames(t *testing.T, b []byte) id3Tag {
	t.Helper()
	var tag id3Tag
	for len(b) >= 10 && b[0] != 0 {
		n := syncsafe(b[4:8])
		if 10+n > len(b) {
			t.Fatalf("frame %q of %d bytes overruns the tag", b[:4], n)
		}
		tag = append(tag, id3Frame{id: string(b[:4]), body: b[10 : 10+n]})
		b = b[10+n:]
	}
	return tag
}

// text is a frame's text after its encoding byte (which must be 3,
// UTF-8), without a final NUL; "" when the frame is absent.
func (tag id3Tag) text(id string) string {
	for _, f := range tag {
		if f.id == id && len(f.body) > 0 && f.body[0] == 3 {
			return strings.TrimSuffix(string(f.body[1:]), "\x00")
		}
	}
	return ""
}

func (tag id3Tag) chap(id string) *id3Frame {
	for i, f := range tag {
		if eid, _, _ := bytes.Cut(f.body, []byte{0}); f.id == "CHAP" && string(eid) == id {
			return &tag[i]
		}
	}
	return nil
}

// TestBookJPEGCover: a JPEG cover is carried as the front cover of
// both books.
func TestBookJPEGCover(t *testing.T) {
	tool := findTool(t)
	cover := filepath.Join(t.TempDir(), "cover.jpg")
	if out, err := exec.Command("ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i",
		"testsrc=size=32x32:d=1", "-frames:v", "1", cover).CombinedOutput(); err != nil {
		t.Fatalf("make a cover: %v %s", err, out)
	}
	b, in := testBook(t, cover)
	m4b, mp3 := filepath.Join(t.TempDir(), "b.m4b"), filepath.Join(t.TempDir(), "b.mp3")
	if err := tool.M4B(context.Background(), in, b, 64000, m4b); err != nil {
		t.Fatal(err)
	}
	if err := tool.MP3Book(context.Background(), in, b, 128000, mp3); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{m4b, mp3} {
		found := false
		for _, s := range ffprobe(t, path).Streams {
			found = found || s.CodecName == "mjpeg" && s.Disposition["attached_pic"] == 1
		}
		if !found {
			t.Errorf("%s: no JPEG cover", path)
		}
	}
	data, _ := os.ReadFile(mp3)
	jpeg, _ := os.ReadFile(cover)
	if got, want := readID3(t, data).text("APIC"), "image/jpeg\x00\x03\x00"+string(jpeg); got != want {
		t.Errorf("APIC %q, want %q", trim(got), trim(want))
	}
}

// TestWriteChaptersJSON: Podcasting 2.0 JSON chapters, version 1.2.0,
// start times in seconds exact to the nanosecond, UTF-8 titles as they
// are.
func TestWriteChaptersJSON(t *testing.T) {
	b, _ := testBook(t, "")
	var buf bytes.Buffer
	if err := encode.WriteChaptersJSON(&buf, b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), bookTitles[0]) {
		t.Errorf("titles escaped: %s", buf.String())
	}
	var doc struct {
		Version  string `json:"version"`
		Chapters []struct {
			StartTime *float64 `json:"startTime"`
			Title     string   `json:"title"`
		} `json:"chapters"`
	}
	dec := json.NewDecoder(&buf)
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	if doc.Version != "1.2.0" || len(doc.Chapters) != len(b.Chapters) {
		t.Fatalf("version %q, %d chapters: want 1.2.0, %d", doc.Version, len(doc.Chapters), len(b.Chapters))
	}
	for i, c := range doc.Chapters {
		if c.StartTime == nil || *c.StartTime != b.Chapters[i].Start.Seconds() || c.Title != b.Chapters[i].Title {
			t.Errorf("chapter %d: %v %q, want %v %q", i+1, c.StartTime, c.Title, b.Chapters[i].Start.Seconds(), b.Chapters[i].Title)
		}
	}
}
