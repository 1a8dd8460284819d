package text

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Segment is one part of a long text to synthesize as one generation: its
// words with every run of spaces and line breaks turned into one space and
// the ends trimmed (Text), and where they came from in the input (Span,
// trimmed).
type Segment struct {
	Text string
	Span
}

// SegmentOptions bound the segments Segments makes. Lengths are in units:
// a rune of a script written without spaces (Han, kana, Hangul, full-width
// forms) counts CJKWeight units, any other rune one, so a bound means about
// the same speaking time in every language (some 15 Latin letters or 4–5
// Chinese characters a second).
type SegmentOptions struct {
	// MaxUnits bounds a segment (default DefaultMaxUnits). A sentence longer
	// than that is split at clause boundaries (, ; : — and their CJK forms),
	// a clause still too long between words, a word still too long between
	// runes.
	MaxUnits int
	// JoinUnits joins consecutive sentences after the first into one segment
	// while it stays within JoinUnits (default DefaultJoinUnits; -1: every
	// sentence its own segment). The first sentence always stands alone, so
	// the first audio comes as soon as for a one-sentence request.
	JoinUnits int
}

// Segment length defaults: about 25 s and 12 s of speech.
const (
	DefaultMaxUnits  = 400
	DefaultJoinUnits = 200
	// CJKWeight is the units of a Han, kana, Hangul or full-width rune.
	CJKWeight = 3
)

// Validate checks the options (zero fields take their defaults).
func (o SegmentOptions) Validate() error {
	if o.MaxUnits < 0 || o.MaxUnits == 1 || o.MaxUnits == 2 {
		return fmt.Errorf("text: segment max_units %d, want 0 (default) or >= %d", o.MaxUnits, CJKWeight)
	}
	if o.JoinUnits < -1 {
		return fmt.Errorf("text: segment join_units %d, want -1, 0 (default) or > 0", o.JoinUnits)
	}
	return nil
}

// withDefaults fills the zero fields.
func (o SegmentOptions) withDefaults() SegmentOptions {
	if o.MaxUnits == 0 {
		o.MaxUnits = DefaultMaxUnits
	}
	if o.JoinUnits == 0 {
		o.JoinUnits = DefaultJoinUnits
	}
	o.JoinUnits = min(o.JoinUnits, o.MaxUnits)
	return o
}

// Units returns the length of s in segment units (see SegmentOptions).
func Units(s string) int {
	n := 0
	for _, r := range s {
		n += runeUnits(r)
	}
	return n
}

// runeUnits returns the units of r.
func runeUnits(r rune) int {
	if isCJK(r) {
		return CJKWeight
	}
	return 1
}

// Segments splits s, a text of any length, into the segments to synthesize
// one after another: Sentences, the first alone, the next ones joined up to
// o.JoinUnits, any longer than o.MaxUnits split (see SegmentOptions). Parts
// with no letter or digit (a lone "—" or "…") are not segments. Every
// letter and digit of s is in exactly one segment, in order. Invalid
// options are an error.
func Segments(s string, o SegmentOptions) ([]Segment, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	o = o.withDefaults()
	var out []Segment
	for _, sp := range Sentences(s) {
		for _, part := range splitLong(s, sp, o.MaxUnits) {
			seg, ok := newSegment(s, part)
			if !ok {
				continue
			}
			// the first segment stays alone; later ones take what fits
			if n := len(out); n > 1 && o.JoinUnits > 0 {
				last := &out[n-1]
				if sep := joinSep(last.Text, seg.Text); Units(last.Text)+len(sep)+Units(seg.Text) <= o.JoinUnits {
					*last = Segment{Text: last.Text + sep + seg.Text, Span: Span{last.Start, seg.End}}
					continue
				}
			}
			out = append(out, seg)
		}
	}
	return out, nil
}

// joinSep returns the space between two joined segments: none between CJK
// text, one otherwise.
func joinSep(a, b string) string {
	r1, _ := utf8.DecodeLastRuneInString(a)
	r2, _ := utf8.DecodeRuneInString(b)
	if isCJK(r1) && isCJK(r2) {
		return ""
	}
	return " "
}

// newSegment trims the span sp of s and collapses its spaces; ok is false
// when it holds no letter or digit.
func newSegment(s string, sp Span) (Segment, bool) {
	for sp.Start < sp.End {
		r, w := utf8.DecodeRuneInString(s[sp.Start:sp.End])
		if !unicode.IsSpace(r) {
			break
		}
		sp.Start += w
	}
	for sp.End > sp.Start {
		r, w := utf8.DecodeLastRuneInString(s[sp.Start:sp.End])
		if !unicode.IsSpace(r) {
			break
		}
		sp.End -= w
	}
	t := s[sp.Start:sp.End]
	if strings.IndexFunc(t, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }) < 0 {
		return Segment{}, false
	}
	return Segment{Text: strings.Join(strings.Fields(t), " "), Span: sp}, true
}

// splitLong returns sp as is when it fits max units, else its parts: clauses
// packed up to max, a clause too long split between words, a word too long
// between runes.
func splitLong(s string, sp Span, max int) []Span {
	if Units(strings.Join(strings.Fields(s[sp.Start:sp.End]), " ")) <= max {
		return []Span{sp}
	}
	var out []Span
	for _, cl := range cuts(s, sp, clauseEnd) {
		if Units(s[cl.Start:cl.End]) <= max {
			out = append(out, cl)
			continue
		}
		for _, w := range cuts(s, cl, wordEnd) {
			if Units(s[w.Start:w.End]) <= max {
				out = append(out, w)
				continue
			}
			out = append(out, runeCuts(s, w, max)...)
		}
	}
	return pack(s, out, max)
}

// clauseEnd reports whether a clause ends after the rune r at byte i of s
// (next is the rune after it, or -1): a CJK clause mark, or , ; : followed
// by a space, or a dash between spaces.
func clauseEnd(r, next rune) bool {
	switch r {
	case 0x3001, 0xFF0C, 0xFF1B, 0xFF1A, 0xFE50, 0xFE51, 0xFF64:
		return true
	case ',', ';', ':', 0x2014, 0x2013:
		return next == -1 || unicode.IsSpace(next)
	}
	return false
}

// wordEnd reports a space after a non-space.
func wordEnd(r, next rune) bool { return !unicode.IsSpace(r) && (next == -1 || unicode.IsSpace(next)) }

// cuts splits sp after every rune where end says so (the spaces that follow
// stay with the part before).
func cuts(s string, sp Span, end func(r, next rune) bool) []Span {
	var out []Span
	start := sp.Start
	for i := sp.Start; i < sp.End; {
		r, w := utf8.DecodeRuneInString(s[i:sp.End])
		next := rune(-1)
		if i+w < sp.End {
			next, _ = utf8.DecodeRuneInString(s[i+w : sp.End])
		}
		i += w
		if end(r, next) {
			for i < sp.End {
				r2, w2 := utf8.DecodeRuneInString(s[i:sp.End])
				if !unicode.IsSpace(r2) {
					break
				}
				i += w2
			}
			out = append(out, Span{start, i})
			start = i
		}
	}
	if start < sp.End {
		out = append(out, Span{start, sp.End})
	}
	return out
}

// runeCuts splits sp into pieces of at most max units.
func runeCuts(s string, sp Span, max int) []Span {
	var out []Span
	start, units := sp.Start, 0
	for i := sp.Start; i < sp.End; {
		r, w := utf8.DecodeRuneInString(s[i:sp.End])
		if u := runeUnits(r); units+u > max {
			out = append(out, Span{start, i})
			start, units = i, 0
		}
		units += runeUnits(r)
		i += w
	}
	return append(out, Span{start, sp.End})
}

// pack joins consecutive adjacent parts while the whole stays within max
// units (spaces collapsed).
func pack(s string, parts []Span, max int) []Span {
	var out []Span
	for _, p := range parts {
		if n := len(out); n > 0 {
			joined := Span{out[n-1].Start, p.End}
			if Units(strings.Join(strings.Fields(s[joined.Start:joined.End]), " ")) <= max {
				out[n-1] = joined
				continue
			}
		}
		out = append(out, p)
	}
	return out
}
