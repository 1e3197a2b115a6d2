// Package redact finds the personal data a caller reads out on a
// recorded call, in a transcript's text, and replaces it with its kind:
// Indian identifiers first (mobile, Aadhaar, PAN, card, bank account,
// IFSC, UPI) and e-mail addresses, written in digits or spoken as
// English and Hindi number words. It owns the detectors, their precision
// rules, the policy (which kinds) and its canonical form, and Version.
// It is pure: no I/O, no clock; it reads words and number words with
// package listen's tokenization and tables, so that a transcript is read
// one way throughout voxform. Which transcripts are redacted, where the
// unredacted text may go, and the audio belong to the packages that do
// those things.
//
// # Reading a text
//
// Find reads the text as listen.Numbers does: invisible characters
// (zero-width joiner and non-joiner, zero-width space, word joiner, byte
// order mark, soft hyphen) removed and NFC, then words; Indic digits
// read as ASCII; a comma between digits dropped (the ITN's Indian
// grouping "2,34,56,78,90,124" is one number); every spoken number
// written as its digits ("nine" and "नौ" are 9, "ninety eight" 98,
// "double five" and "डबल पाँच" 55). Spans are byte offsets into the text
// as given, widened to whole characters where normalization merged some.
//
// A number is a run of digit groups (written digits, a spoken number)
// with only spaces, hyphens, commas or brackets between them: "98765
// 43210", "+91-98765-43210", "nine eight सात six ...", "4111 1111 1111
// 1111". A run is partitioned wholly into identifiers, the fewest
// possible: two mobile numbers read one after the other are two, but a
// valid number inside a longer string of digits is none ("9876543210 2
// times" is not redacted). This keeps a look-alike that contains a valid
// stretch (an order number, a card number with a wrong check digit read
// digit by digit) from being redacted. A run that has no partition is
// tried once more in its stretches between commas and between written
// digits and spoken words: "nine ... zero, one more thing" and "लिख दो
// 9876543210" (दो, "give", is read as 2) have a mobile number.
//
// # Detectors and their precision rules
//
// A run's identifier is the first that fits, in this order (only the
// policy's kinds are tried, so a number is redacted under the kind the
// policy names):
//
//   - mobile after "+": "+91" and ten digits, the first 6 to 9; the "+"
//     is redacted with it.
//   - card: 13 to 19 digits, the first 2 to 6 (Visa, Mastercard, Amex,
//     Discover, RuPay's 60 and 65) or 81/82 (RuPay), passing Luhn.
//   - aadhaar: 12 digits, the first 2 to 9 (UIDAI issues none starting
//     0 or 1), passing Verhoeff.
//   - bank_account: 9 to 18 digits whose nearest cue word, among the 6
//     words before it in its sentence and after any number before it,
//     names an account: account, acct, acc, a/c, खाता, खाते, अकाउंट,
//     एकाउंट. A phone word (mobile, phone, call, whatsapp, मोबाइल, फ़ोन,
//     कॉल) nearer to the number makes it no account number.
//   - mobile: ten digits, the first 6 to 9, alone or after 0 or 91
//     (11 or 12 digits). No check digit exists: any such run is a mobile
//     number unless a check digit or an account word made it another.
//
// A run right after a rupee sign ("₹", "Rs", "Rs.", "INR", "रु") or right
// before a rupee word ("rupees", "रुपये", "paise") is an amount and has no
// identifier, whatever its length. Dates and times are no runs of digit
// groups ("12/05/2024" is three, "10:30" one word that is not all
// digits), and a run of a date's 8 digits fits no kind.
//
//   - pan: five letters, the fourth a holder type (P C H F A T B L J G),
//     four digits, a letter. One word in any case ("ABCPE1234F",
//     "abcpe1234f"), or words with spaces or hyphens between, letters in
//     capitals, each word a single character or whole parts of the code
//     ("A B C P E one two three four F", "ABCPE 1234 F"): so no English
//     words and a number make one.
//   - ifsc: four letters, a zero, six letters or digits; read as PAN is
//     ("SBIN0001234", "S B I N zero zero zero one two three four").
//   - upi: a local part of letters, digits and ". _ - + %", "@", a
//     handle of letters without a dot ("ramesh.k@okaxis",
//     "9876543210@ybl").
//   - email: the same local part, "@", a domain with a dot and a
//     top-level part of two letters or more; a sentence's final point is
//     not the address's. Neither part is bounded: an address longer than
//     RFC 5321 allows is redacted whole, never in part.
//
// FindInSegments searches the segments joined (a number read across a
// boundary is found) and each segment alone (a number ending one segment
// is not lost in a run with a number starting the next), and keeps both.
//
// Where spans of two detectors overlap (a mobile number that is a UPI
// ID's local part), their union is one span, of the kind of the one that
// starts first (the longer when both start together).
//
// # Limits
//
// What a detector does not find:
//
//   - a number glued to other digits in one run without a comma between,
//     all written or all spoken ("9876543210 2 times", "लिख दो नौ आठ ...",
//     "... शून्य एक बार");
//   - a number whose words another word splits ("nine eight, uh, seven"),
//     or that the recognizer heard as a quantity ("ninety eight lakh");
//   - "oh" for zero; number words of languages other than English and
//     Hindi; letters spelled as words ("ए बी सी", "double A");
//   - an account number whose account word is more than 6 words before
//     it, after it, or in another sentence;
//   - e-mail and UPI addresses spoken ("at the rate", "dot com");
//   - landline numbers, passport, voter ID, driving licence numbers (no
//     kind).
//
// What it redacts that may not be personal data: any run of ten digits
// starting 6 to 9 without a rupee word beside it (an order number of that
// shape); 1 in 10 of random 12-digit numbers (Verhoeff) and of 13 to 19
// digit numbers under a card network's first digit (Luhn); any x@y with y
// letters only. A bank account number that passes a card's or Aadhaar's
// check is redacted as that kind. Find takes time and memory linear in
// the text.
//
// Version changes whenever a detector would redact a text differently.
package redact
