package executor

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

// TestScratchNamedKeepsTheCause: an error retold with the user's file for
// the scratch copy is still the error it was, so an interrupted mastering
// counts as interrupted, not failed.
func TestScratchNamedKeepsTheCause(t *testing.T) {
	err := fmt.Errorf("master /tmp/voxform-1/recording.wav: %w", context.Canceled)
	got := scratchNamed(err, "/tmp/voxform-1/recording.wav", "studio/a.wav")
	if got.Error() != "master studio/a.wav: context canceled" || !errors.Is(got, context.Canceled) {
		t.Fatalf("%v (is canceled: %v)", got, errors.Is(got, context.Canceled))
	}
}
