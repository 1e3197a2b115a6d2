package speechapi_test

import (
	"context"
	"errors"
	"io/fs"
	"net"
	"strings"
	"syscall"
	"testing"

	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/speechapi"
)

// fullDisk is an output on a full disk: every write fails as os.File's do.
type fullDisk struct{}

func (fullDisk) Write([]byte) (int, error) {
	return 0, &fs.PathError{Op: "write", Path: "build/a.wav", Err: syscall.ENOSPC}
}

// A local file error is not worth a retry: a synthesis whose output cannot
// be written is billed once, and the operation fails at once rather than
// paying again for audio that cannot be kept. Connection errors stay
// temporary.
func TestLocalWriteErrorIsNotRetried(t *testing.T) {
	e := newEmu(t, emulator.Options{NoEspeak: true}, speechapi.Config{})
	req := &speechapi.SynthesisRequest{SynthesisRequest: contract.SynthesisRequest{Text: "a full disk", Model: "tts-v2.5", Voice: "Kaveri", Language: "en-IN"}}
	_, err := e.client.Synthesize(context.Background(), req, fullDisk{})
	if calls := e.stats().Syntheses; !errors.Is(err, syscall.ENOSPC) || calls != 1 {
		t.Fatalf("after %d call(s): %v; want one call failing with ENOSPC", calls, err)
	}
	if speechapi.IsTemporary(&fs.PathError{Op: "open", Path: "x", Err: syscall.EACCES}) {
		t.Error("a permission error is temporary")
	}
	if !speechapi.IsTemporary(&net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}) {
		t.Error("a reset connection is not temporary")
	}
}

// A source URL named in a file error keeps its signature out of the
// message.
func TestFileErrorHidesURLQueries(t *testing.T) {
	signed := "https://bucket.example.com/calls/a.wav?X-Amz-Signature=s3cr3t"
	for _, e := range []*speechapi.FileError{
		{Path: signed, Status: "SKIPPED", JobID: "job_1"},
		{Op: "create batch job with", Path: signed, Files: []string{signed, signed + "2", "b.wav", "c.wav"}, Err: errors.New("boom")},
		{Op: "create batch job with", Path: signed, Files: []string{signed, "b.wav"}, Err: errors.New("boom")},
	} {
		msg := e.Error()
		if strings.Contains(msg, "s3cr3t") || !strings.Contains(msg, "https://bucket.example.com/calls/a.wav") {
			t.Errorf("file error %q", msg)
		}
	}
}
