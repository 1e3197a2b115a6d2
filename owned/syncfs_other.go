//go:build !linux

package owned

import "errors"

// SyncsFS reports whether SyncFS is available: not on this system.
func SyncsFS() bool { return false }

// SyncFS is not available on this system: callers sync each file.
func SyncFS(dir string) error { return errors.ErrUnsupported }
