// Package corpus generates utterances of a recorded call with known
// personal data and look-alikes, and scores package redact's detectors
// on them, per kind: the measurement issue 29 asks for, used by the
// redact tests and by the bench.
//
// Generate(seed, n) makes n utterances (English, Hindi in Devanagari,
// and code-mixed Hindi in Latin script), each of one to four clauses:
// an entity of each kind in turn, in each of its forms in turn (digits,
// grouped, hyphenated, the ITN's Indian comma grouping, Devanagari
// digits, English words, Hindi words, the two mixed, Hindi pairs,
// "double"/"triple"; English pairs, +91 and 0 prefixes for mobiles;
// PAN and IFSC as one word, lower case, in parts, spelled with digits
// written or read in English or Hindi), and mostly look-alikes that
// must be left: order,
// ticket and reference numbers of lengths or first digits no identifier
// has, amounts after ₹ or Rs or before "rupees" (ten-digit ones
// included), dates, times, PIN codes, Aadhaar and card numbers with a
// wrong check digit, PANs with no holder type, IFSCs without the zero,
// social-media handles. Values are drawn at random from the seed; the
// number words are the generator's own tables, not the detector's.
//
// Score counts, per kind of the policy, the spans found that are an
// entity exactly (TP), those that are not (FP) and the entities not
// found exactly (FN). Mistakes describes each FP and FN.
package corpus
