// Package report writes the review page of a project: a static,
// self-contained HTML page (index.html, its CSS, script and data inline)
// beside the audio it plays (audio/) and a waveform image of each
// (wave/), for the last apply (the state, optionally against the state
// before it) or for a saved plan.
//
// Promises:
//
//   - The page needs nothing but the files of its directory: no network,
//     no external script, font or style sheet. It opens from a CI
//     artifact as well as from the disk.
//   - Every text of the project (texts, addresses, transcripts, paths) is
//     user data: the server-rendered parts go through html/template, the
//     rows are data in an inline JSON block (with <, > and & escaped, so
//     that no text can end the script element) that the page's script
//     renders with textContent only.
//   - Build writes only below Input.Out, and refuses an Out that is the
//     manifest directory, inside .voxform/ or version control, one of
//     voxform's state files, or a directory holding recorded or planned
//     outputs. Each file is written atomically (package owned); audio is
//     named by its content, so a second report into the same directory
//     rewrites the same names.
//   - Audio comes from the output on disk when it still holds the recorded
//     SHA-256 (checked while it is copied), else from the local output
//     cache by fingerprint; when neither has it the page says so. Headerless
//     audio (raw PCM, mu-law, A-law) is given a WAV header, so that a
//     browser can play it.
//   - Audio is streamed, never held whole: the waveform keeps a fixed
//     number of columns, however long the file.
//
// Listening checks (issue 27). A synthesis sent in chunks shows its
// player first, then its chunks as cues, each playing the output from
// its start (as a transcript's segments do) with its check beside it; a
// synthesis sent whole shows its check beside its player. The texts are
// the plan's chunk texts for a planned action, else the recorded
// request's text split again as the planner splits it (narration.Split
// at the manifest's max_text_chars, else the model's), taken only when
// every part has the recorded chunk's fingerprint. The times are those
// recorded; a state from before they were recorded has them estimated in
// proportion to the chunks' characters over the output's duration, or
// not placed at all when the duration is not known either (the page
// says which). With the manifest (Input.Manifest), each recorded check
// is judged again at its listen: limits by planner.Judge (free: the
// transcript is recorded), else its recorded verdict is shown as such.
// A failing check carries why, the aligned diff of the words sent and
// heard (listen.Normalize and listen.Align, computed here, at most
// MaxDiffWords words) and where to play from (a second before the
// diverging run); a passing one carries its figures only. Seams
// (planner.Seams) are shown at the boundaries that fail. Heard text is
// the service's: it is data rendered with textContent like every other
// text, and its control and bidi characters are made visible
// (untrusted.Escape).
//
// Sign-off (issue 30). Each row says its resource's approval (holding,
// lost since, or, on a saved plan's page, ending with the plan's
// replace) with who, when and the note, and where its outputs came from
// (the service, an import, a take put back, a human recording and its
// path). A static page cannot write the state: a row whose resource is
// made and not approved has a tick box, and the page writes the
// 'voxform approve' command for the ticked rows, each address one shell
// word (in single quotes, each single quote in it closing the quotes,
// escaped, and opening them again), to copy and run.
// Approvers' names and notes are people's text: data, as every text is.
package report
