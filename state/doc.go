// Package state owns voxform.state.json: its versioned format, crash-safe
// writes, the journal of completed operations, the lock file and the local
// hash cache. See SPEC section 4.
//
// The state file is pretty-printed JSON with sorted keys so that a pull
// request shows a readable diff. It is only ever replaced atomically (see
// WriteFileAtomic): a kill at any instant leaves the old or the new file.
//
// During apply every change goes through one Recorder. Each change is one
// line appended to voxform.state.json.journal and fsynced before the call
// returns, so the cost of recording one result does not depend on the number
// of resources. Close folds the journal into the state file. A journal left by
// a process that died is replayed by Read and folded by the next locked Open.
//
// Journal lines have the form "CRC32C-HEX SPACE JSON NEWLINE". The first line
// is a "begin" record naming the lineage and the serial of the state it
// applies to; a journal whose base serial is older than the state file was
// already folded and is discarded. A line that is torn (no newline) or whose
// checksum does not match ends the replay: only the last line can be torn,
// because every earlier one was fsynced before the next was written.
//
// Before each batch job create the executor journals a JobIntent, so that a
// job created but never recorded (a kill between the call and its record, or
// a create retried after its answer was lost) can later be found in the jobs
// listing and cancelled; intents are cleared once swept.
//
// The lock (voxform.state.json.lock) is an flock on a file holding JSON
// holder information, so a second plan or apply fails at once naming the
// holder. Taking it removes the state's temporary files that a killed
// process left. The hash cache (.voxform/hashes.bin) maps path, size,
// mtime, ctime and inode to a SHA-256 so that an unchanged tree is not
// re-hashed, and .voxform/state.snapshot keeps the last decoded state (gob,
// keyed by the SHA-256 of the state file and by that file's device, inode,
// size, mtime and ctime, so that a snapshot made for another copy never
// matches) so that a large state is not JSON-decoded again while it has not
// changed. Both are local caches, never committed; the state file alone is
// authoritative.
//
// The files voxform keeps (the state file at its real path, its journal,
// lock and temporary files, and the files in .voxform/) are opened without
// following a symbolic link at their name and must be regular files; the
// lock must also have no other name. .voxform/ must be a real directory in
// the manifest directory: when it is a link the caches are not used. A
// repository can hold links, and writing through one would reach outside
// the project. Reads are bounded: the state file by MaxStateSize, each
// journal line by MaxJournalLine, a cache file by MaxCacheFileSize.
//
// The takes journal (.voxform/takes.jsonl, takes.go) is a local index of
// the output cache: one JSON line per output an apply made or an import
// adopted (address, fingerprint, OutputsDigest, time, origin, the bytes
// of each output), appended in one unsynced write, read tolerant of a
// torn or oversized line, and bounded (MaxTakesBytes: the oldest lines go
// first). A resource records where its outputs came from in Origin
// (imported, an earlier take put back, or a synthesis's recording), and
// CacheKey (cachekey.go) is the one rule for where the output cache holds
// its bytes: its fingerprint, a take's own, or an imported file's content
// key (ContentKey), a domain no request's fingerprint hashes.
//
// An address is read only in the one spelling Address gives (KIND.NAME or
// KIND.NAME["KEY"], the key quoted as Go quotes a string): a state file,
// journal record or pg row naming anything else is refused, the address
// escaped in the error, so that no address carries a control character or
// an escape sequence to a terminal.
//
// The PostgreSQL backend (pg.go) refuses, before connecting, a connection
// string that may reach a host other than loopback or a Unix socket
// without TLS; scrub is the one redaction of its messages (the password,
// the connection string, URL user information). Its rows are bounded in
// the query (maxPGRow each, MaxStateSize for a whole read), so that the
// driver never buffers a row it would refuse.
//
// Backend is the small interface both backends implement (Local and PG,
// SPEC section 12). Its methods that may wait on a server take the
// caller's context; the pg backend's own time bounds (pgTimeout and
// others) are derived from it and named in its errors.
//
// An approval (Resource.Approval, 'voxform approve') is of the recorded
// outputs' bytes (OutputsDigest) and holds only while they are recorded:
// Recorder.Record keeps it across a new record, so that an approval whose
// outputs changed shows as lost rather than vanishing, and holds again if
// the approved bytes are put back. Its free text is bounded and checked
// on read (Approval.Check).
package state
