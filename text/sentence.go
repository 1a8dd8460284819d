package text

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Span is a part of a text: Text[Start:End] in bytes of the input.
type Span struct {
	Start, End int
}

// Sentences splits s into sentences and returns their spans in order,
// covering s without gaps (each sentence keeps the spaces that follow it).
// The rules are Unicode's sentence boundaries (UAX #29, the rules ICU's
// sentence iterator and JavaScript's Intl.Segmenter apply), so CJK
// terminators (。！？) end a sentence without a following space, a full stop
// between digits (3.50) or followed by a lower-case word (e.g. "etc. and")
// does not, and "?!" or "..." end one sentence. Two deliberate differences
// suit speech from files:
//   - a single line break is a space (hard-wrapped prose); a blank line (two
//     or more line breaks) or U+2029 ends a sentence, as every line break
//     does in UAX #29;
//   - a full stop after a known abbreviation (Mr. Dr. Prof. z.B. Sr. …, see
//     abbreviations) or after a single letter (an initial: "J. R. R.
//     Tolkien"; not the pronoun "I") does not end the sentence.
//
// Invalid UTF-8 is taken a byte at a time as U+FFFD.
func Sentences(s string) []Span {
	units := sentenceUnits(s)
	var out []Span
	start := 0
	cut := func(at int) {
		if at > start {
			out = append(out, Span{start, at})
			start = at
		}
	}
	n := len(units)
	for i := 0; i < n; i++ {
		c := units[i].class
		switch c {
		case sbSep, sbLF, sbCR:
			cut(units[i].end)
			continue
		case sbATerm, sbSTerm:
		default:
			continue
		}
		j := i + 1
		if c == sbATerm {
			// SB6: ATerm × Numeric. SB7: (Upper|Lower) ATerm × Upper.
			if j < n && units[j].class == sbNumeric {
				continue
			}
			if i > 0 && (units[i-1].class == sbUpper || units[i-1].class == sbLower) && j < n && units[j].class == sbUpper {
				continue
			}
		}
		k := j
		for k < n && units[k].class == sbClose {
			k++
		}
		for k < n && units[k].class == sbSp {
			k++
		}
		// SB11 with a paragraph separator: it belongs to this sentence.
		if k < n && (units[k].class == sbSep || units[k].class == sbLF || units[k].class == sbCR) {
			k++
			i = k - 1
			cut(units[k-1].end)
			continue
		}
		if c == sbATerm {
			// SB8: ATerm Close* Sp* × (¬(OLetter|Upper|Lower|ParaSep|SATerm))* Lower.
			m := k
			for m < n && !sb8Stop(units[m].class) {
				m++
			}
			if m < n && units[m].class == sbLower {
				i = m - 1
				continue
			}
		}
		// SB8a: SATerm Close* Sp* × (SContinue | SATerm).
		if k < n && (units[k].class == sbSContinue || units[k].class == sbATerm || units[k].class == sbSTerm) {
			i = k - 1
			continue
		}
		if k == n {
			break
		}
		if c == sbATerm && k > j && abbreviationBefore(s, units[i].start) {
			i = k - 1
			continue
		}
		cut(units[k].start)
		i = k - 1
	}
	cut(len(s))
	return out
}

// sb8Stop reports the classes that end SB8's look-ahead for a lower-case
// letter.
func sb8Stop(c sbClass) bool {
	switch c {
	case sbOLetter, sbUpper, sbLower, sbSep, sbCR, sbLF, sbATerm, sbSTerm:
		return true
	}
	return false
}

// sentenceUnit is one rune (with the Extend and Format runes after it,
// SB5) and its class.
type sentenceUnit struct {
	start, end int
	class      sbClass
}

// sentenceUnits classifies s's runes for Sentences, folding Extend and
// Format into the rune before them and turning a single line break (one
// CR, LF or CRLF between non-break runes, spaces aside) into a space.
func sentenceUnits(s string) []sentenceUnit {
	units := make([]sentenceUnit, 0, len(s))
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		c := sentenceBreakClass(r)
		if c == sbCR && i+w < len(s) && s[i+w] == '\n' {
			w++ // CRLF is one break
			c = sbLF
		}
		if c == sbExtend && len(units) > 0 {
			if p := units[len(units)-1].class; p != sbSep && p != sbCR && p != sbLF {
				units[len(units)-1].end = i + w
				i += w
				continue
			}
		}
		if c == sbExtend {
			c = sbOther
		}
		units = append(units, sentenceUnit{start: i, end: i + w, class: c})
		i += w
	}
	// A line break is a paragraph end only in a blank line: another break
	// follows with nothing but spaces between.
	for i := range units {
		if units[i].class != sbCR && units[i].class != sbLF {
			continue
		}
		blank := false
		for j := i + 1; j < len(units); j++ {
			if c := units[j].class; c == sbCR || c == sbLF || c == sbSep {
				blank = true
				break
			} else if c != sbSp {
				break
			}
		}
		for j := i - 1; j >= 0 && !blank; j-- {
			if c := units[j].class; c == sbCR || c == sbLF || c == sbSep {
				blank = true
			} else if c != sbSp {
				break
			}
		}
		if !blank {
			units[i].class = sbSp
		}
	}
	return units
}

// abbreviations are words whose full stop seldom ends a sentence, in the
// languages the models speak (lower case, without the final stop).
var abbreviations = map[string]bool{
	// English
	"mr": true, "mrs": true, "ms": true, "dr": true, "prof": true, "sr": true, "jr": true, "st": true,
	"mt": true, "gen": true, "col": true, "capt": true, "lt": true, "sgt": true, "rev": true, "hon": true,
	"vs": true, "fig": true, "figs": true, "vol": true, "pp": true, "cf": true,
	"approx": true, "e.g": true, "i.e": true, "u.s": true, "u.k": true, "a.m": true, "p.m": true,
	"inc": true, "ltd": true, "dept": true, "jan": true, "feb": true, "apr": true, "jun": true, "jul": true,
	"aug": true, "sept": true, "oct": true, "nov": true,
	// German
	"hr": true, "fr": true, "frl": true, "z.b": true, "d.h": true, "u.a": true, "bzw": true, "vgl": true,
	"ca": true, "nr": true, "str": true, "bspw": true, "evtl": true, "ggf": true, "inkl": true,
	// French
	"m": true, "mme": true, "mlle": true, "mm": true, "p.ex": true,
	// Spanish, Portuguese, Italian
	"sra": true, "srta": true, "dra": true, "ud": true, "uds": true, "dña": true, "sig": true,
	"sig.ra": true, "dott": true, "ing": true, "avv": true, "sto": true, "sta": true, "pág": true, "núm": true,
	// Russian
	"г": true, "гг": true, "т.е": true, "т.д": true, "т.п": true, "ул": true, "им": true, "стр": true, "см": true, "др": true,
}

// abbreviationBefore reports whether the full stop at byte at of s ends a
// known abbreviation or a single upper-case letter other than I (an initial): the word before it,
// letters and inner full stops, after a space, a bracket or the start.
func abbreviationBefore(s string, at int) bool {
	i := at
	for i > 0 {
		r, w := utf8.DecodeLastRuneInString(s[:i])
		if !unicode.IsLetter(r) && r != '.' {
			break
		}
		i -= w
	}
	word := strings.Trim(s[i:at], ".")
	if word == "" {
		return false
	}
	if utf8.RuneCountInString(word) == 1 && word != "I" {
		r, _ := utf8.DecodeRuneInString(word)
		if unicode.IsUpper(r) {
			return true
		}
	}
	return abbreviations[strings.ToLower(word)]
}
