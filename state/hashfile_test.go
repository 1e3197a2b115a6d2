package state

import (
	"strings"
	"testing"
)

// TestHashFileReadsOnlyRegularFiles: an input that leads to a device or a
// procfs file (/proc/self/environ, the process environment) is refused,
// not read: its hash would be recorded in the state.
func TestHashFileReadsOnlyRegularFiles(t *testing.T) {
	for path, want := range map[string]string{
		"/proc/self/environ": "is a file of the kernel's proc file system, not a regular file",
		"/dev/null":          "is a device, not a regular file",
	} {
		if _, _, err := HashFile(path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("HashFile(%s): %v; want an error saying %q", path, err, want)
		}
	}
}
