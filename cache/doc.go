// Package cache owns voxform's content-addressed cache of outputs: the
// audio, embedding and transcript files that a request produced, kept
// under the request's fingerprint (the SHA-256 of the request, 64
// lowercase hex digits) so that an identical request is never paid for
// twice. It keeps them on this machine (Local) and optionally in a shared
// remote (Remote: an S3 bucket, or a directory); Cache joins the two.
//
// # Layout
//
// Local and remote alike, below the cache directory or the remote's key
// prefix:
//
//	v1/entries/<fp[0:2]>/<fp>.json    an Entry: kind, files, metadata
//	v1/blobs/<sha[0:2]>/<sha>         one file's content, named by its SHA-256
//	v1/index/<sha>                    a remote's index segment: fingerprints, sorted
//
// The local cache keeps a copy of each remote's index segments below
// v1/index/<remote>/, where <remote> is the first 16 hexadecimal digits of
// the SHA-256 of the remote's name.
//
// An entry lists its files by role (audio, embedding, json, txt, srt, vtt)
// with the SHA-256 and size of each; identical content is stored once.
// Every fingerprint and SHA-256 is checked to be 64 lowercase hex digits
// before it becomes part of a path or key, so a hostile value (from a
// state file, say) never reaches outside the cache. An entry file is read
// up to MaxEntrySize bytes.
//
// # Promises
//
// An entry is visible only once its blobs are: Store and Fetch write the
// blobs first and the entry last, Push uploads them in the same order.
// Every file is written atomically (through package owned locally and in
// a directory remote: a temporary file, synced, renamed; in S3 a PUT or a
// multipart upload is visible only once complete), so a process killed at
// any instant leaves no torn entry or blob, only temporary files, which
// OpenLocal sweeps when no other process is writing. Store and Fetch sync
// each file and directory as they go; an apply writes through a Batch,
// which shares those syncs between thousands of entries and still writes
// an entry only once its blobs are durable.
//
// What a remote sends is bounded before it reaches the disk: an entry
// whose files declare more than MaxEntryContent bytes in all is not
// downloaded, a blob is taken up to its declared size, an index segment
// is checked (format, size, SHA-256 against its name) as it streams and
// kept only once it checks, and one remote's segments take at most
// maxIndexTotal bytes together (a larger index is not used: a lookup asks
// the remote).
//
// Nothing is trusted on the way out: CopyBlob hashes what it copies and
// Fetch hashes what it downloads; a mismatch removes the bad blob, stores
// nothing and is an error wrapping ErrCorrupt. A malformed entry (bad
// JSON, another version, a fingerprint not its own, an invalid file) is
// removed when read locally, and is an error wrapping ErrCorrupt. Push
// uploads only content that matches its SHA-256: the upload fails before
// it completes otherwise. An entry is only what its writer says the
// outputs of a fingerprint are: whoever can write the remote can say
// anything. Entries reads the entries a plan compares with the state
// (one request each to the remote), and FetchChecked lets a restore
// refuse an entry before anything of it is stored locally.
//
// A blob is a reflink of the file it came from (FICLONE, on file systems
// that share extents: Btrfs, XFS) or a copy; never a hard link. A hard
// link would be the same file as the project's output, and an in-place
// edit of that output (an editor, a tool normalising audio) would change
// the cached content under its old SHA-256. A reflink shares blocks only
// until either side is written. CopyBlob hands blobs out the same way.
//
// GC removes entries not kept (see GCOptions), then the blobs no entry
// references, then the local copies of index segments that do not check
// or are older than GCOptions.OlderThan (a copy is downloaded again when
// a lookup needs it). A lock file (v1/lock, flock) keeps it from running while a
// Store or Fetch writes, in this process or another.
//
// # Remotes
//
// An s3:// remote uses minio-go. Credentials come from the standard AWS
// chain: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN,
// then the shared credentials and config files (AWS_PROFILE,
// AWS_SHARED_CREDENTIALS_FILE), then the instance or container role. They
// are never kept by voxform nor put in an error's text. An endpoint is
// https, or http on the loopback interface only. Every request has
// dial, response-header and idle timeouts. Incomplete multipart uploads
// of a killed process stay invisible; a bucket lifecycle rule that aborts
// them after a day reclaims their space.
//
// A remote keeps an index of its fingerprints (see Cache.Announce): a
// fingerprint is in an index segment before its entry is uploaded, so
// once the index is complete, a fingerprint it does not list is in no
// entry, and a plan of new texts costs one LIST request whatever their
// number. The fingerprints the index lists are asked about: a plan looks
// up every fingerprint it could restore at once: the S3 remote lists the
// shards where several are looked up (a LIST request
// answers for up to 1,000 keys, where a HEAD request answers for one)
// and asks by HEAD for the others. An upload is signed with the SHA-256
// of its content, which the server checks; a blob under 1 MiB is
// uploaded without asking first whether the remote has it.
package cache
