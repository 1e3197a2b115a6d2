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
package report
