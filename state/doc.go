// Package state owns voxform.state.json: its versioned format, crash-safe
// writes, the journal of completed operations, the lock file and the local
// hash cache. See SPEC section 4.
package state
