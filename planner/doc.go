// Package planner is pure: from the desired resources, the state and the
// hashes of files (all passed in) it computes a Plan: one action per address
// (create, replace, repair, move, resume, delete; no-ops are only counted)
// with its reasons and its billable cost. It does no network I/O, no
// filesystem writes and reads no clock.
//
// Build turns a loaded manifest into Desired resources: each carries the
// canonical request the service will receive (after defaults and
// interpolation, with the content hash of every input file) and its
// fingerprint, the SHA-256 of that request in canonical JSON (SPEC section 4).
// A vc-v1 synthesis's request holds its embedding's fingerprint (or the
// embedding file's hash), so a changed reference recording replaces the
// embedding and every synthesis in that cloned voice. A recorded synthesis
// (recorded:, recorded.go) is not the service's request: its request is
// the recording's content, path and convert, the converter's identity and
// the declared format, free; its text stays in Wire for checks and the
// report, and a switch into or out of a recording is a replace that says so.
//
// Compute diffs Desired against the state. Actions come in dependency order
// and each names the actions it depends on, so an executor can run them as a
// DAG. A transcription's formats are not part of its fingerprint: adding a
// format is a free repair rendered from the recorded transcript JSON when
// that file is intact, never a second paid transcription.
//
// Plans are shown by package cli/planview: a table for people, JSON
// messages for machines.
package planner
