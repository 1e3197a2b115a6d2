package cache

// SetCopyHook makes every blob copy call hook after each chunk, with the
// bytes copied so far (nil: no hook). Only for a process that copies
// nothing concurrently, such as the kill helper.
func SetCopyHook(hook func(n int64)) { testHookCopied = hook }

// HasAll is hasAll, the worker pool of HasEntries and HasBlobs.
var HasAll = hasAll

// SetGCHook makes GC call hook when it waits for a write in progress.
func SetGCHook(hook func()) { testHookGCWaits = hook }

// NewVerifier is newVerifier, the reader PutBlob uploads through.
var NewVerifier = newVerifier
