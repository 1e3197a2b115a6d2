// Package planview shows a plan: Render writes the table people read,
// WriteJSON the -json messages machines read, Markdown the summary a pull
// request comment or a CI job summary shows (the table's reasons and
// costs, the budget as planner.CheckBudget judges it). The planner
// computes plans and knows nothing of how they are shown.
//
// Addresses and reasons may come from a state anyone can edit: the table
// escapes them (internal/untrusted), and the Markdown summary keeps them
// and the manifest's texts inert (no mention, reference, link, image or
// HTML) and bounded (MarkdownOptions).
//
// # JSON messages
//
// WriteJSONWith (WriteJSON without diagnostics) writes newline-delimited
// JSON messages, one object per line, each with a "type" field. The schema (version 1) is stable; fields may be
// added, never renamed or removed:
//
//	{"type":"diagnostic","severity":"error|warning","message":"...","file":"voxform.yaml","line":3,"col":5,"hint":"..."}
//	{"type":"planned_change","address":"synthesis.menu[\"a\"]","action":"create|replace|repair|restore|check|move|resume|delete",
//	 "symbol":"+","kind":"synthesis","reasons":["text"],"depends_on":["embedding.founder"],
//	 "outputs":[{"path":"build/a.wav","format":""}],"moves":[{"from":"a.wav","to":"b.wav"}],
//	 "removes":["old.srt"],"moved_from":"synthesis.old","render_from":"build/t/a.json",
//	 "fingerprint":"<sha256 hex>","cost":{"characters":21,"audio_seconds":0,"unknown_audio_inputs":0},
//	 "listen":{"language_code":"hi-IN","language_from":"the synthesis language","items":31,"recorded":2,
//	  "make":29,"audio_seconds":812,"estimated":true,"regenerate":2,"worst_case":{...},"failing":["chunk 12 of 30 (143.2 s): ..."]}}
//	{"type":"pinned","address":"synthesis.menu[\"a\"]","kind":"synthesis","reasons":["voice Kaveri -> Deepak"],
//	 "approval":{"digest":"<sha256 hex>","by":"Ana <ana@example.com>","at":"2026-11-27T09:00:00Z","note":"..."},
//	 "drifted":["build/a.wav"]}
//	{"type":"change_summary","add":1,"replace":0,"repair":0,"move":0,"resume":0,"destroy":0,"no_op":3,
//	 "cost":{"characters":21,"audio_seconds":0,"unknown_audio_inputs":0},
//	 "budget":{"max_characters":1000,"max_audio_seconds":null},
//	 "check":1,"worst_case":{"characters":63,"audio_seconds":2436,"unknown_audio_inputs":0},
//	 "listen_failed":["synthesis.x: chunk 12 of 30 (143.2 s): ..."]}
//
// Empty optional fields are omitted. Diagnostics come first (a plan error,
// such as a budget refusal, is ErrorMessage: severity error, no position;
// its text begins with the budget's file:line:col), planned_change
// messages follow in the plan's dependency order, then the pinned
// resources (lifecycle keep_approved: a replace kept from happening
// because the approval holds) by address, change_summary is last
// ("pinned" counts them).
// "budget" appears only when the manifest sets one; a null limit is none.
// "listen" appears on a synthesis with listen:; "check" when a resource's
// only work is a listening check; "worst_case" (what the budget holds:
// every take regenerate allows) when a change has listening checks;
// "listen_failed" when recorded checks fail at the limits declared now.
package planview
