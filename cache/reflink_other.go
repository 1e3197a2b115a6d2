//go:build !linux

package cache

import (
	"errors"
	"os"
)

// reflink is not attempted on this system: the caller copies.
func reflink(dst, src *os.File) error {
	return errors.New("reflink not supported")
}
