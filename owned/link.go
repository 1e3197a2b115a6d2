package owned

import "golang.org/x/sys/unix"

// linkUnlink makes newName a second name of oldName (link fails when
// newName exists), then drops oldName.
func linkUnlink(oldDir int, oldName string, newDir int, newName string) error {
	if err := unix.Linkat(oldDir, oldName, newDir, newName, 0); err != nil {
		return err
	}
	return unix.Unlinkat(oldDir, oldName, 0)
}
