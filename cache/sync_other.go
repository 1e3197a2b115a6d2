//go:build !linux

package cache

import "errors"

// syncsFS reports whether syncFS is available: not on this system.
const syncsFS = false

// syncFS is not available on this system: flushes sync each file.
func syncFS(dir string) error { return errors.ErrUnsupported }
