// Package narration owns the text of long-form synthesis below the
// manifest: the scanners that find audio tags and digit runs in a text
// (one home for those rules; schema uses them), splitting a text longer
// than a request takes into chunks at sentence ends, a pronunciation
// lexicon applied before the request is formed (read from CSV, TSV, YAML
// or W3C PLS 1.0, and written as PLS), and cue files (JSON and
// WebVTT chapters) that say where each chunk starts in the joined audio,
// and what a listening check compares: the spoken text (tags removed) and
// the script most of its letters are in (listen.ScriptShare counts them).
//
// It promises:
//
//   - Lengths are counted as the service bills them: Unicode code points,
//     audio tags and their angle brackets included (speech-synthesis.md,
//     Audio tags rule 6 and Limits; planner.BilledCharacters counts the
//     same way). An invalid UTF-8 byte counts as one character.
//   - Everything is deterministic and takes time linear in the text (the
//     lexicon: linear times the longest term), so a 100,000-character
//     chapter is split, checked and explained in milliseconds.
//   - Offsets are byte offsets into the text given, so that callers can
//     map them to file positions for diagnostics.
//   - Nothing here does network I/O; LoadLexicon reads one bounded file.
package narration
