//go:build !linux

package owned

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// kernelPaths: no per-descriptor path on this system: Root.OutputDir keeps no handle.
const kernelPaths = false

// realPath resolves the path f was opened by (no per-descriptor path on
// this system: a link swapped in between is not seen).
func realPath(_ *os.File, path string) (string, error) {
	return filepath.EvalSymlinks(path)
}

func renameNoReplace(oldDir int, oldName string, newDir int, newName string) error {
	return linkUnlink(oldDir, oldName, newDir, newName)
}

// HandlePath is f's name (no per-descriptor path on this system).
func HandlePath(f *os.File) string { return f.Name() }

// pseudoFS is "" where the file system type is not known: the mode check
// of a regular file is all there is.
func pseudoFS(_ *os.File) string { return "" }

// linksIn returns the names of the symbolic links in the directory f.
func linksIn(f *os.File) (map[string]bool, error) {
	links := map[string]bool{}
	for {
		ents, err := f.ReadDir(4096)
		for _, e := range ents {
			if e.Type()&fs.ModeSymlink != 0 {
				links[e.Name()] = true
			}
		}
		if err == io.EOF {
			return links, nil
		}
		if err != nil {
			return nil, err
		}
	}
}
