// Package untrusted is the one sanitizer of text that voxform did not
// write and prints: a service's error message or status, a remote's or a
// storage host's answer, an address, path or job id read from a state (a
// file anyone with the repository may edit, or a shared database row).
//
// Such text may hold what acts on a terminal instead of being read: an
// escape sequence that erases or rewrites lines (ESC, CSI, C1 controls),
// a carriage return or backspace that writes over what came before, a
// bidirectional override (U+202E) that shows text in another order than it
// is, or bytes that are not UTF-8. It may also be long: a 64 KiB error
// message. Promises:
//
//   - Escape, Lines and Excerpt never return a control character (but the
//     line breaks and tabs Lines keeps), a Unicode format character other
//     than the zero-width joiners that shape scripts, a line or paragraph
//     separator, or invalid UTF-8: each is written as a Go-style escape
//     (\x1b, \r, \u202e, \xff), visible and inert;
//   - Excerpt returns at most MaxExcerpt characters of a text and, when it
//     cut it, says how long the text was: "first words… (65,536 bytes)";
//   - Body does the same for a body read from a host, reading only its
//     first MaxScan bytes, and shows the words of an HTML or XML page
//     without the markup.
//
// The functions are pure and safe on any input; they are the only place
// the escaping rule lives.
package untrusted
