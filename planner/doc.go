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
// embedding and every synthesis in that cloned voice.
//
// Compute diffs Desired against the state. Actions come in dependency order
// and each names the actions it depends on, so an executor can run them as a
// DAG. A transcription's formats are not part of its fingerprint: adding a
// format is a free repair rendered from the recorded transcript JSON when
// that file is intact, never a second paid transcription.
//
// # JSON messages
//
// WriteJSONWith (WriteJSON without diagnostics) writes newline-delimited
// JSON messages, one object per line, each with a "type" field. The schema (version 1) is stable; fields may be
// added, never renamed or removed:
//
//	{"type":"diagnostic","severity":"error|warning","message":"...","file":"voxform.yaml","line":3,"col":5,"hint":"..."}
//	{"type":"planned_change","address":"synthesis.menu[\"a\"]","action":"create|replace|repair|move|resume|delete",
//	 "symbol":"+","kind":"synthesis","reasons":["text"],"depends_on":["embedding.founder"],
//	 "outputs":[{"path":"build/a.wav","format":""}],"moves":[{"from":"a.wav","to":"b.wav"}],
//	 "removes":["old.srt"],"moved_from":"synthesis.old","render_from":"build/t/a.json",
//	 "fingerprint":"<sha256 hex>","cost":{"characters":21,"audio_seconds":0,"unknown_audio_inputs":0}}
//	{"type":"change_summary","add":1,"replace":0,"repair":0,"move":0,"resume":0,"destroy":0,"no_op":3,
//	 "cost":{"characters":21,"audio_seconds":0,"unknown_audio_inputs":0},
//	 "budget":{"max_characters":1000,"max_audio_seconds":null}}
//
// Empty optional fields are omitted. Diagnostics come first (a plan error,
// such as a budget refusal, is ErrorMessage: severity error, no position;
// its text begins with the budget's file:line:col), planned_change
// messages follow in the plan's dependency order, change_summary is last.
// "budget" appears only when the manifest sets one; a null limit is none.
package planner
