// Package listen compares a text with what a recognizer heard when the
// audio made from it was transcribed: the listening check of issue 27.
// It owns the normalization both sides go through, the word alignment,
// the error metrics, the thresholds with their defaults, and the verdict.
// It is pure: no I/O, no clock, no project package but internal/numfmt.
// Choosing the transcription request and its language, pricing, caching
// and recording a check belong to the packages that do those for every
// other call.
//
// # Normalization
//
// Normalize is applied to the text that was sent (after the lexicon) and
// to the transcript alike, so whatever a rule cannot tell apart is equal
// on both sides. In order:
//
//   - Invisible characters are removed: zero-width non-joiner (U+200C)
//     and joiner (U+200D), which choose how an Indic conjunct is drawn and
//     not which word it is, zero-width space, word joiner, byte order mark
//     and soft hyphen. Then the text is put in Unicode NFC.
//   - Words are runs of letters, combining marks (an Indic vowel sign,
//     virama or nukta belongs to its word) and decimal digits. Everything
//     else separates words and is dropped: punctuation of every script,
//     the danda and double danda (। ॥), the Devanagari abbreviation sign,
//     quotes, dashes, symbols, emoji. Three exceptions: an apostrophe
//     inside a word is deleted ("don't" is "dont"); a comma between digits
//     is deleted (Indian and Western grouping: "1,00,000" is "100000"); a
//     point or colon between digits stays ("12.50", "19:00"). A currency
//     sign is a word of its own.
//   - Latin letters are case-folded (x/text/cases Fold: "Straße" is
//     "strasse"); the Indic scripts have no case.
//   - Digits of Devanagari, Bengali, Gurmukhi, Gujarati, Odia, Tamil,
//     Telugu, Kannada and Malayalam become ASCII digits, as the ITN writes
//     them unless itn_native_numerals is set.
//   - Spoken numbers become digits, as the ITN writes them
//     (speech-recognition.md, "Inverse text normalization (ITN)"): English
//     words ("twenty five", "one hundred and five", "two lakh fifty
//     thousand", "nineteen hundred") and Hindi words (the 100 irregular
//     words for 0 to 99 with common spelling variants, सौ, हज़ार, लाख,
//     करोड़, अरब) are read into one number: "25", "twenty five" and "पच्चीस"
//     compare equal. Digits before a scale word count as its multiplier:
//     "25 lakh" is "2500000", as the ITN writes lakh and crore amounts. English ordinals become digits with their suffix
//     ("twenty first" and "21st" are "21st"; a written "21th" is fixed).
//   - Adjacent whole numbers are joined into one digit string, because the
//     ITN writes a spoken digit stream as one number (a phone number, a
//     PIN, a year read as "twenty twenty four"); "double" and "triple"
//     before a digit repeat it ("double five" is "55").
//   - Currency: the rupee sign, "Rs", "INR", "rupee(s)", "रुपये", "रुपए",
//     "रुपया" are one word "₹" written after its amount, as the amount is
//     spoken; paise after a decimal point become their own amount: "₹1,500.50",
//     "Rs. 1500.50" and "fifteen hundred rupees and fifty paise" are all
//     "1500 ₹ 50 paise".
//   - Times of day: an hour with a daypart ("seven thirty in the evening",
//     "ten at night", "शाम सात बजे", "रात को दस बजे") becomes 24-hour HH:MM
//     as the ITN table says (evening 16 to 20 h, night 20 to 24 h), and a
//     written "7:05" becomes "07:05".
//   - Dates: the "of" between an ordinal and an English month name is
//     dropped ("fifteenth of August" is "15th august", as the ITN writes
//     it). Hindi dates (day, month name, year) need no rule beyond numbers.
//
// Numbers and Currency give the words, spoken numbers and rupee words
// of the first steps without the joining of adjacent numbers: package
// redact reads identifiers with them, so that a transcript's numbers are
// read by one set of tables. Numbers alone also reads, inside a stream of
// at least four digit words, Hindi digits in Latin letters ("nau aath
// saat") and English digits in Devanagari ("नाइन एट सेवन"): several are
// common words too ("do", "teen", "sat"; वन, टू), which Normalize, for a
// transcript's check, leaves as words.
//
// Not normalized, so a difference there is a difference: number words of
// the other eight languages (Marathi, Bengali, Tamil...: a transcript with
// ITN digits for them diverges from the words sent, so request those
// transcripts without ITN, format=verbatim); Hindi ordinals and
// fractions (डेढ़, ढाई, साढ़े); decimals other than paise ("twelve point
// five"); percent ("%" is dropped as a symbol and "percent" stays a word:
// the service documents no ITN rule for it); the Tamil numerals for ten,
// hundred and thousand (௰ ௱ ௲, not decimal digits, dropped as symbols);
// nukta and candrabindu/anusvara spelling variants; transliteration (a
// word in Latin script and the same word in Devanagari differ); words
// split or joined differently ("ice cream" and "icecream" differ by two
// words).
//
// # Language
//
// Check takes no language code: every rule goes by the script of each
// character or by the word itself, because a code-mixed text ("hi-en",
// "auto") mixes scripts in one sentence and a language code would invite
// a mismatch between the rule and the text. The English and Hindi number
// words are matched in any text (the tables of different scripts cannot
// collide). Which transcription language a synthesis language is checked
// in belongs with the catalog of recognition languages and APIs, not
// here; Script gives what a language chosen from the text is chosen
// from.
//
// # Alignment
//
// Align is a minimum-edit alignment of the reference (sent) words to the
// hypothesis (heard) words with unit costs, as an edit script of match,
// substitution, insertion and deletion. It runs Hirschberg's algorithm
// after taking off the matching ends, in memory linear in the words and
// time proportional to their product; it refuses a side over MaxWords
// (20,000 words) with an error naming the limit, so a long text costs
// seconds at worst, never memory.
//
// # Metrics
//
//   - WER, word error rate: (substitutions + deletions + insertions) /
//     reference words.
//   - CER, character error rate: character edits / reference characters,
//     where the characters are the normalized words joined by single
//     spaces. A character is a rune (a Unicode code point in NFC), not a
//     grapheme cluster: an Indic vowel sign or virama wrongly heard is one
//     error, not the loss of a whole syllable; the count does not move when
//     Unicode revises its cluster rules (it did for Indic conjuncts in
//     15.1); and it is how common ASR scoring tools count characters, so the
//     figure compares with published ones. Edits are counted on each
//     diverging span of the word alignment (matched words cost none), which
//     is the character edit distance in all but contrived cases and never
//     below it; a span past 16M cells counts its longer side.
//   - Both rates are capped at 1 (past 1 the transcript is only a longer
//     garbage; Result keeps the exact counts). An empty reference rates 0
//     against an empty transcript and 1 against anything heard.
//   - Longest run: the longest span of consecutive edits without a match,
//     in words, counting the larger of its two sides: garbled words
//     replacing the text, text not heard, and babble heard where the text
//     has none all count. Result.LongestRun gives its word range in the
//     reference and both sides' words and source text.
//   - Missing tail: how many reference words after the last matched word
//     (all of them when nothing matched).
//   - Silence: a text with words of which nothing was heard always fails.
//   - Numbers: every edit in which a number takes part, on either side.
//     After normalization a number, written in digits or spoken in words,
//     is its digits, so "twenty five" heard for "25" is no edit, and a
//     wrong amount, digit or phone number is one. Any fails, whatever the
//     thresholds: a wrong number is the costliest error a prompt can make,
//     and never recognition noise.
//
// A side of more than MaxTextBytes (1 MiB) is refused before it is
// normalized.
//
// # Defaults
//
// DefaultThresholds, each with its reason. TestDefaultsSeparateNoiseFromFaults
// holds them to these reasons on texts of 2 to 60 words heard with
// recognition noise (2% of words substituted): at most 1 clean text in
// 500 fails, and every text cut short, garbled over 3 words, silent or
// missing its second half fails.
//
//   - MaxRun 2. This is the measure that catches local garbage: a whole-
//     chunk similarity barely moves when ten words of a chapter are
//     garbled, the longest run does. Recognition noise on clean audio is
//     mostly isolated single words; a word heard split in two, or two
//     neighbours misheard, gives a run of two. Three in a row fail.
//   - MaxMissingTail 1. Truncation, the most common synthesis fault, takes
//     the end; one word unheard at the end may be the recognizer, two are
//     a truncated "thank you". Alignment matches words as early as it can
//     among equal alignments, so a cut-off end shows as a missing tail even
//     where its last word also occurs just before the cut.
//   - MaxCER 0.20 and MaxWER 0.40 catch a take wrong throughout (wrong
//     language, mumbling, every other word garbled) that has no long run.
//     They are loose on purpose: the run, tail and silence measures catch
//     the faults the check exists for, and on a short prompt two misheard
//     words are already a rate of 0.2 to 0.5. WER is the looser because
//     one wrong sign makes a whole word of an agglutinating language wrong.
//   - NoiseWords 2: a transcript that differs only by one or two
//     substituted words (none missing, none heard extra, none a number,
//     and at least three words of text for each) passes both rates, since
//     that is what recognition noise on a clean take looks like; a missing
//     or extra word is not forgiven, so a short prompt that lost a word
//     still fails its rates, and a wrong word in a prompt of one or two
//     words ("Yes" heard as "No") fails: so short a prompt cannot tell
//     noise from a fault. The run, tail, silence and numbers measures still
//     apply.
//
// What the check cannot see: a mispronunciation the recognizer forgives
// (its language model restores the word); one or two wrong words that are
// neither next to each other nor at the end (they pass as noise); prosody,
// loudness and voice identity; and whatever the normalization makes equal
// on purpose (punctuation, case, digits against number words).
package listen
