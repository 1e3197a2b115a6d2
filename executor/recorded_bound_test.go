package executor

import (
	"strings"
	"testing"
)

// TestRecordingBound: a recording past MaxRecordingBytes is refused by
// name and value, before its content is compared; one of the planned
// content is taken, another refused as changed since the plan.
func TestRecordingBound(t *testing.T) {
	err := checkRecording(MaxRecordingBytes+1, "a", "a")
	if err == nil || !strings.Contains(err.Error(), "4,294,967,296 bytes") || !strings.Contains(err.Error(), "MaxRecordingBytes") {
		t.Errorf("over the bound: %v", err)
	}
	if err := checkRecording(MaxRecordingBytes, "a", "a"); err != nil {
		t.Errorf("at the bound: %v", err)
	}
	if err := checkRecording(10, "a", "b"); err == nil || !strings.Contains(err.Error(), "changed since the plan") {
		t.Errorf("another content: %v", err)
	}
}
