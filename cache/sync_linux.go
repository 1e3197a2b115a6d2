package cache

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// syncsFS reports whether syncFS is available.
const syncsFS = true

// syncFS makes everything written to the file system of dir durable
// (syncfs(2)); it fails if writing something back failed since it began.
func syncFS(dir string) error {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("sync the file system of %s: %w", dir, err)
	}
	defer unix.Close(fd)
	if err := unix.Syncfs(fd); err != nil {
		return fmt.Errorf("sync the file system of %s: %w", dir, err)
	}
	return nil
}
