package listen

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// The rules in this file undo what the service's inverse text
// normalization writes (speech-recognition.md, "Inverse text
// normalization (ITN)"): currency as the rupee sign before the amount,
// times of day as 24-hour HH:MM, English dates as ordinal day and month.
// The spoken side and the written side are both brought to one form.

// rupeeSigns are written before the amount, rupeeWords spoken after it;
// paiseWords name the rupee's hundredth.
var (
	rupeeSigns = []string{"₹", "rs", "inr", "रु"}
	rupeeWords = []string{"rupee", "rupees", "रुपये", "रुपए", "रुपया", "रुपयों"}
	paiseWords = []string{"paise", "paisa", "पैसे", "पैसा"}
	andWords   = []string{"and", "और"}
)

// rupees writes every amount as "<rupees> ₹ [<paise> paise]", the order
// it is spoken in: "₹1,500.50", "Rs. 1500.50" and "fifteen hundred rupees
// and fifty paise" all become "1500 ₹ 50 paise".
func rupees(ws []Word) []Word {
	out := ws[:0:0]
	for i := 0; i < len(ws); i++ {
		w := ws[i]
		sign, word := slices.Contains(rupeeSigns, w.Text), slices.Contains(rupeeWords, w.Text)
		if slices.Contains(paiseWords, w.Text) {
			w.Text = "paise"
		}
		before := len(out) > 0 && isAmount(out[len(out)-1].Text)
		after := i+1 < len(ws) && isAmount(ws[i+1].Text)
		switch {
		case (sign && after) || (word && !before && after):
			out = appendAmount(out, merged(ws, i, i+2, ws[i+1].Text))
			i++
			continue
		case (sign || word) && before:
			a := out[len(out)-1]
			out = appendAmount(out[:len(out)-1], Word{Text: a.Text, Start: a.Start, End: w.End})
			continue
		case sign || word:
			w.Text = "₹"
		case slices.Contains(andWords, w.Text) && len(out) > 0 && out[len(out)-1].Text == "₹" &&
			i+2 < len(ws) && allDigits(ws[i+1].Text) && slices.Contains(paiseWords, ws[i+2].Text):
			continue
		}
		out = append(out, w)
	}
	return out
}

// Currency tells whether a word of Numbers or Normalize names the rupee:
// sign, as written before an amount ("₹", "rs", "inr", "रु"); spoken, as
// said after it ("rupees", "रुपये", and paise).
func Currency(word string) (sign, spoken bool) {
	return slices.Contains(rupeeSigns, word), slices.Contains(rupeeWords, word) || slices.Contains(paiseWords, word)
}

// isAmount: digits, with at most one decimal point.
func isAmount(s string) bool {
	whole, frac, _ := strings.Cut(s, ".")
	return allDigits(whole) && (frac == "" && !strings.Contains(s, ".") || allDigits(frac))
}

// appendAmount appends a (digits, perhaps with paise after a point) as
// rupees, the sign, and the paise when there are any: "12.5" is twelve
// rupees fifty paise, "12.00" twelve rupees. More than two decimals are
// no paise: the amount stays whole.
func appendAmount(out []Word, a Word) []Word {
	whole, frac, _ := strings.Cut(a.Text, ".")
	if len(frac) > 2 {
		whole, frac = a.Text, ""
	}
	out = append(out, Word{Text: whole, Start: a.Start, End: a.End}, Word{Text: "₹", Start: a.Start, End: a.End})
	if len(frac) == 1 {
		frac += "0"
	}
	if p, _ := strconv.Atoi(frac); p > 0 {
		out = append(out, Word{Text: strconv.Itoa(p), Start: a.Start, End: a.End}, Word{Text: "paise", Start: a.Start, End: a.End})
	}
	return out
}

// dayparts map a time-of-day word to how its hours read on a 24-hour
// clock, as the ITN table gives them: evening is 16 to 20 h, night 20
// to 24 h, so an hour of 1 to 11 in the afternoon, evening or night is
// 12 hours on; twelve at night is midnight, twelve in the morning too.
var dayparts = map[string]func(h int) int{
	"morning": morning, "सुबह": morning,
	"afternoon": later, "दोपहर": later,
	"evening": later, "शाम": later,
	"night": night, "रात": night,
}

func morning(h int) int { return h % 12 }

func later(h int) int {
	if h < 12 {
		return h + 12
	}
	return h
}

func night(h int) int {
	if h == 12 {
		return 0
	}
	return later(h)
}

// times writes a spoken time of day as HH:MM: "seven thirty in the
// evening", "7:30 in the evening", "शाम सात बजे" (19:00) and "19:30"
// alike; a written "7:05" becomes "07:05".
func times(ws []Word) []Word {
	out := ws[:0:0]
	for i := 0; i < len(ws); i++ {
		if hh, j, ok := englishTime(ws, i); ok {
			out = append(out, merged(ws, i, j, hh))
			i = j - 1
			continue
		}
		if hh, j, ok := hindiTime(ws, i); ok {
			out = append(out, merged(ws, i, j, hh))
			i = j - 1
			continue
		}
		w := ws[i]
		if h, m, ok := clock(w.Text); ok {
			w.Text = fmt.Sprintf("%02d:%02d", h, m)
		}
		out = append(out, w)
	}
	return out
}

// clock reads "H:MM" or "HH:MM".
func clock(s string) (h, m int, ok bool) {
	hs, ms, found := strings.Cut(s, ":")
	if !found || len(ms) != 2 || len(hs) > 2 || !allDigits(hs) || !allDigits(ms) {
		return 0, 0, false
	}
	h, _ = strconv.Atoi(hs)
	m, _ = strconv.Atoi(ms)
	return h, m, h <= 24 && m < 60
}

// hourAt reads an hour of 1 to 12 at ws[i], with its minutes: "7", "7 30"
// or "7:30"; j is the index after it.
func hourAt(ws []Word, i int) (h, m, j int, ok bool) {
	if i >= len(ws) {
		return 0, 0, i, false
	}
	if h, m, ok := clock(ws[i].Text); ok && h >= 1 && h <= 12 {
		return h, m, i + 1, true
	}
	if !allDigits(ws[i].Text) || len(ws[i].Text) > 2 {
		return 0, 0, i, false
	}
	h, _ = strconv.Atoi(ws[i].Text)
	if h < 1 || h > 12 {
		return 0, 0, i, false
	}
	j = i + 1
	if j < len(ws) && len(ws[j].Text) == 2 && allDigits(ws[j].Text) {
		if mm, _ := strconv.Atoi(ws[j].Text); mm < 60 {
			m, j = mm, j+1
		}
	}
	return h, m, j, true
}

// englishTime: an hour, perhaps "o'clock", then "in the", "at" or
// nothing, then a daypart: "seven in the evening", "ten at night".
func englishTime(ws []Word, i int) (string, int, bool) {
	h, m, j, ok := hourAt(ws, i)
	if !ok {
		return "", i, false
	}
	if j < len(ws) && ws[j].Text == "oclock" {
		j++
	}
	switch {
	case j+1 < len(ws) && ws[j].Text == "in" && ws[j+1].Text == "the":
		j += 2
	case j < len(ws) && ws[j].Text == "at":
		j++
	}
	if j >= len(ws) || dayparts[ws[j].Text] == nil || !isLatin(ws[j].Text) {
		return "", i, false
	}
	return fmt.Sprintf("%02d:%02d", dayparts[ws[j].Text](h), m), j + 1, true
}

// hindiTime: a daypart, perhaps "को" or "के", an hour, perhaps "बजे":
// "शाम सात बजे", "रात को दस बजे".
func hindiTime(ws []Word, i int) (string, int, bool) {
	part := dayparts[ws[i].Text]
	if part == nil || isLatin(ws[i].Text) {
		return "", i, false
	}
	j := i + 1
	if j < len(ws) && (ws[j].Text == "को" || ws[j].Text == "के") {
		j++
	}
	h, m, j, ok := hourAt(ws, j)
	if !ok {
		return "", i, false
	}
	if j < len(ws) && ws[j].Text == "बजे" {
		j++
	}
	return fmt.Sprintf("%02d:%02d", part(h), m), j, true
}

func isLatin(s string) bool { return s != "" && s[0] < 0x80 }

// months are the English month names a date's "of" sits before.
var months = []string{"january", "february", "march", "april", "may", "june", "july",
	"august", "september", "october", "november", "december"}

// dates drops the "of" of a spoken English date: the ITN writes "fifteenth
// of August" as "15th August".
func dates(ws []Word) []Word {
	out := ws[:0:0]
	for i, w := range ws {
		if w.Text == "of" && len(out) > 0 && i+1 < len(ws) && slices.Contains(months, ws[i+1].Text) {
			if t := out[len(out)-1].Text; len(t) > 2 && allDigits(t[:len(t)-2]) {
				continue
			}
		}
		out = append(out, w)
	}
	return out
}
