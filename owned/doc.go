// Package owned decides which paths voxform may write, move or delete, and
// performs those operations so that nothing else is touched.
//
// voxform owns only the outputs it declares, and only inside the manifest
// directory: never a path outside it, never .voxform/ (its local caches) and
// never the state file, its journal, its lock or their temporary files.
// CheckRel is the rule on a path's spelling, applied wherever a path enters
// voxform (the manifest, the state file and its journal, a saved plan).
// Root applies it once more to the path as the file system resolves it,
// symbolic links included, and performs every write, rename and unlink
// relative to a directory handle that was opened and checked first: a path
// component swapped for a symbolic link after the check cannot redirect the
// operation. An apply's output directories are opened and checked once
// (Root.OutputDir) and, before each later output, checked again by where
// the kernel says the handle is: one moved, replaced or removed meanwhile
// is opened and checked anew.
//
// A file that an operation would replace must be voxform's own: Commit and
// Rename refuse an existing destination unless the caller says it may be
// replaced (the planner knows which paths hold recorded outputs).
//
// Inputs are resolved like outputs: Root.OpenInput opens every file
// voxform reads as text or data. A name spelled inside the manifest
// directory must lie inside it as the file system resolves it (a symbolic
// link out of it is refused before its target is opened); a name spelled
// outside it (absolute, or through ..) is an outside input named
// explicitly. Only a regular file is read: a directory, a pipe, a socket,
// a device or a file of a kernel pseudo file system (procfs, sysfs) is
// refused. Root.OpenInputWithin also accepts a link into one of the
// directories the manifest names for it (a transcription's input_dirs).
package owned
