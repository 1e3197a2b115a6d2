package owned

import (
	"fmt"
	"os"
	"syscall"
)

// AppendTo appends b, in one write, to the existing regular file path: a
// file another program made for voxform to add to (a CI job summary).
// It creates nothing and follows no link at path itself; anything but a
// regular file is refused before it is opened (opening a device can act:
// a tape rewinds, a watchdog arms), and the file opened must be the one
// looked at.
func AppendTo(path string, b []byte) error {
	before, err := os.Lstat(path)
	if err != nil {
		return err
	}
	if reason := notRegular(before.Mode()); reason != "" {
		return &Error{Path: path, Reason: reason}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if !os.SameFile(before, st) {
		return &Error{Path: path, Reason: "was replaced while it was opened"}
	}
	if _, err := f.Write(b); err != nil {
		return fmt.Errorf("append to %s: %w", path, err)
	}
	return f.Close()
}
