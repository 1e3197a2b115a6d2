package state

import (
	"bytes"
	"fmt"
	"runtime"
	"testing"
)

// BenchmarkJournalAppend measures one durable record at 10 and 100,000
// recorded resources: the cost must be flat (no rewrite of the state).
func BenchmarkJournalAppend(b *testing.B) {
	for _, n := range []int{10, 100_000} {
		b.Run(fmt.Sprintf("resources=%d", n), func(b *testing.B) {
			dir := b.TempDir()
			be, lk, rec := openLocked(b, dir)
			defer lk.Unlock()
			for i := range n {
				rec.state.Resources[fmt.Sprintf("synthesis.s%d", i)] = sampleResource("seed")
			}
			// Write the big state once, as a previous apply would have.
			if err := be.writeState(rec.state); err != nil {
				b.Fatal(err)
			}
			res := sampleResource("new text")
			runtime.GC() // not the setup's garbage
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				if err := rec.Record(fmt.Sprintf("synthesis.new%d", i%1000), res); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			rec.Close()
		})
	}
}

// BenchmarkDecode10k reads a state of 10,000 syntheses.
func BenchmarkDecode10k(b *testing.B) {
	f := New()
	for i := range 10_000 {
		r := sampleResource(fmt.Sprintf("प्रॉम्प्ट संख्या %d के लिए यह वाक्य बोला जाएगा", i))
		f.Resources[fmt.Sprintf(`synthesis.menu["p%05d"]`, i)] = r
	}
	data, err := MarshalSorted(f)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Decode(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncode10k writes a state of 10,000 syntheses in its file form.
func BenchmarkEncode10k(b *testing.B) {
	f := New()
	for i := range 10_000 {
		r := sampleResource(fmt.Sprintf("प्रॉम्प्ट संख्या %d के लिए यह वाक्य बोला जाएगा", i))
		f.Resources[fmt.Sprintf(`synthesis.menu["p%05d"]`, i)] = r
	}
	var buf bytes.Buffer
	for b.Loop() {
		buf.Reset()
		if err := f.Encode(&buf); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(buf.Len()))
}
