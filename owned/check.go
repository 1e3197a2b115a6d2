package owned

import (
	"fmt"
	"path"
	"slices"
	"strings"
)

// Names voxform keeps for itself at the top of the manifest directory.
const (
	// StateFile is the state file; its journal, lock and temporary files
	// share its name as a prefix.
	StateFile = "voxform.state.json"
	// CacheDir holds voxform's local caches (never committed).
	CacheDir = ".voxform"
)

// Error explains why voxform refuses a path.
type Error struct {
	Path   string
	Reason string
}

func (e *Error) Error() string { return fmt.Sprintf("path %q %s", e.Path, e.Reason) }

// CheckRel reports whether rel, a slash-separated path relative to the
// manifest directory, names something voxform may own: it must be clean,
// relative, inside the manifest directory, and neither voxform's state
// files nor inside .voxform/. It looks at the spelling only; Root.Check
// also resolves symbolic links.
func CheckRel(rel string) error {
	if reason := relProblem(rel); reason != "" {
		return &Error{Path: rel, Reason: reason}
	}
	return nil
}

func relProblem(rel string) string {
	switch {
	case rel == "":
		return "is empty"
	case strings.ContainsRune(rel, 0):
		return "holds a NUL byte"
	case strings.HasPrefix(rel, "/"):
		return "is an absolute path; voxform writes only inside the manifest directory"
	case rel == "." || rel == "./":
		return "is the manifest directory itself"
	case rel == ".." || strings.HasPrefix(rel, "../"):
		return "is outside the manifest directory"
	}
	if clean := path.Clean(rel); clean != rel {
		if clean == ".." || strings.HasPrefix(clean, "../") {
			return "is outside the manifest directory"
		}
		return fmt.Sprintf("is not in clean form (%q)", clean)
	}
	first, _, _ := strings.Cut(rel, "/")
	if r := reserved(first); r != "" {
		return r
	}
	return ""
}

// vcsDirs are version control metadata: never an output, never deleted.
var vcsDirs = []string{".git", ".hg", ".svn", ".jj", ".bzr"}

// reserved says why a top-level name is voxform's own (or version
// control's), or "". Names compare without case, so that a file system
// that folds case cannot make an output of the state file.
func reserved(first string) string {
	lower := strings.ToLower(first)
	switch {
	case lower == CacheDir:
		return "is inside " + CacheDir + "/, which voxform keeps for its caches"
	case lower == StateFile, strings.HasPrefix(lower, StateFile+"."), strings.HasPrefix(lower, "."+StateFile+"."):
		return "is one of voxform's state files (" + StateFile + ", its journal and lock)"
	case slices.Contains(vcsDirs, lower):
		return "is inside " + first + "/, which belongs to version control"
	}
	return ""
}
