package encode

import (
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// chaptersDoc is a Podcasting 2.0 JSON chapters file (version 1.2.0 of
// podcastindex.org's jsonChapters.md): a start time in seconds and a
// title per chapter; endTime, the file's title and author are optional
// fields of the same document.
type chaptersDoc struct {
	Version  string        `json:"version"`
	Title    string        `json:"title,omitempty"`
	Author   string        `json:"author,omitempty"`
	Chapters []jsonChapter `json:"chapters"`
}

type jsonChapter struct {
	StartTime float64 `json:"startTime"`
	EndTime   float64 `json:"endTime"`
	Title     string  `json:"title"`
}

// WriteChaptersJSON writes b's chapters to w as Podcasting 2.0 JSON
// chapters: {"version":"1.2.0","chapters":[{"startTime":0,...}]}, times
// in seconds to the nanosecond the chapters state. The book is checked
// as M4B and MP3Book check it (its audio's length aside).
func WriteChaptersJSON(w io.Writer, b Book) error {
	if err := b.check(time.Duration(1<<63-1), 0); err != nil {
		return fmt.Errorf("write the JSON chapters: %w", err)
	}
	doc := chaptersDoc{Version: "1.2.0", Title: b.Title, Author: b.Author, Chapters: make([]jsonChapter, len(b.Chapters))}
	for i, c := range b.Chapters {
		doc.Chapters[i] = jsonChapter{StartTime: c.Start.Seconds(), EndTime: c.End.Seconds(), Title: c.Title}
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("write the JSON chapters: %w", err)
	}
	return nil
}
