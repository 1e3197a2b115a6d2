package owned

import (
	"fmt"
	"os"
	"syscall"
)

// AppendTo appends b, in one write, to the existing regular file path: a
// file another program made for voxform to add to (a CI job summary).
// It creates nothing, follows no link at path itself, and refuses
// anything but a regular file (a FIFO would block, a device would take
// the text elsewhere).
func AppendTo(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if reason := notRegular(st.Mode()); reason != "" {
		return &Error{Path: path, Reason: reason}
	}
	if _, err := f.Write(b); err != nil {
		return fmt.Errorf("append to %s: %w", path, err)
	}
	return f.Close()
}
