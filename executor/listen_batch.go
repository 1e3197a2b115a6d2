package executor

import (
	"context"
	"errors"

	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/transcript"
)

// checkFile is one listening check sent to a batch job: a rendition
// (mono 16-bit WAV, in a scratch directory) and its request.
type checkFile struct {
	// Fingerprint is the check's (planner.CheckFingerprint): it names the
	// file in its job and finds the job again after an interruption.
	Fingerprint string
	Path        string
	Seconds     float64
	Request     planner.CheckRequest
}

// checkHeard is what a batch job heard of one checkFile.
type checkHeard struct {
	// Text is the transcript, the API key removed.
	Text string
	// Seconds is the audio the job billed for the file.
	Seconds float64
	// JobID is the job that transcribed it.
	JobID string
	// Segments are the transcript's timed segments, for placing a
	// diverging span.
	Segments []transcript.Segment
}

// checkBatcher transcribes the checks too long for REST recognition
// (contract.ListenRESTMax) through batch jobs shared by every action of
// an apply. transcribe blocks until each file is heard or has failed:
// heard[i] and errs[i] are the outcome of files[i].
type checkBatcher interface {
	transcribe(ctx context.Context, files []checkFile) (heard []checkHeard, errs []error)
}

// errBatchChecks refuses checks that need a batch job while no batcher
// makes them.
var errBatchChecks = errors.New("listen: checks of audio longer than REST recognition takes are not made by this version of voxform yet")

// noBatcher makes no batch checks.
type noBatcher struct{}

func (noBatcher) transcribe(_ context.Context, files []checkFile) ([]checkHeard, []error) {
	errs := make([]error, len(files))
	for i := range errs {
		errs[i] = errBatchChecks
	}
	return make([]checkHeard, len(files)), errs
}
