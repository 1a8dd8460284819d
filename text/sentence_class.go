package text

import "unicode"

// sbClass is a rune's Sentence_Break property (Unicode UAX #29, §5.1), the
// classes the sentence rules need.
type sbClass uint8

const (
	sbOther sbClass = iota
	sbCR
	sbLF
	sbSep // U+0085, U+2028, U+2029
	sbSp
	sbLower
	sbUpper
	sbOLetter
	sbNumeric
	sbATerm
	sbSTerm
	sbClose
	sbSContinue
	sbExtend // Extend and Format: they attach to the rune before them (SB5)
)

// sentenceBreakClass returns r's Sentence_Break class. It follows UAX #29's
// definitions over the Unicode tables of package unicode.
func sentenceBreakClass(r rune) sbClass {
	switch r {
	case '\r':
		return sbCR
	case '\n':
		return sbLF
	case 0x85, 0x2028, 0x2029:
		return sbSep
	case '.', 0x2024, 0xFE52, 0xFF0E:
		return sbATerm
	case '"', '\'':
		return sbClose
	case ',', '-', ':', ';', 0x055D, 0x060C, 0x060D, 0x07F8, 0x1802, 0x1808, 0x2013, 0x2014,
		0x3001, 0xFE10, 0xFE11, 0xFE13, 0xFE31, 0xFE32, 0xFE50, 0xFE51, 0xFE55, 0xFE58,
		0xFE63, 0xFF0C, 0xFF0D, 0xFF1A, 0xFF1B, 0xFF64:
		return sbSContinue
	case 0x200D, 0x200C:
		return sbExtend
	}
	if isSTerm(r) {
		return sbSTerm
	}
	switch {
	case unicode.IsSpace(r) || unicode.Is(unicode.White_Space, r):
		return sbSp
	case unicode.IsLower(r) || unicode.Is(unicode.Other_Lowercase, r):
		return sbLower
	case unicode.IsUpper(r) || unicode.IsTitle(r) || unicode.Is(unicode.Other_Uppercase, r):
		return sbUpper
	case unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r) || unicode.Is(unicode.Mc, r):
		return sbExtend
	case unicode.Is(unicode.Cf, r) && r != 0x200B:
		return sbExtend
	case unicode.IsLetter(r) || unicode.Is(unicode.Nl, r) || unicode.Is(unicode.Other_Alphabetic, r) ||
		r == 0x3031 || r == 0x3032 || r == 0x3033 || r == 0x3034 || r == 0x3035 || r == 0x309B || r == 0x309C || r == 0x30A0 || r == 0x30FC || r == 0xFF70:
		return sbOLetter
	case unicode.Is(unicode.Nd, r):
		return sbNumeric
	case unicode.In(r, unicode.Ps, unicode.Pe, unicode.Pi, unicode.Pf) || r == 0x201A || r == 0x201E || r == 0x201F || r == 0x2E42:
		return sbClose
	}
	return sbOther
}

// isSTerm reports Sentence_Terminal runes other than the full stops (ATerm)
// of the scripts omni's models speak, and a few more.
func isSTerm(r rune) bool {
	switch r {
	case '!', '?', 0x0589, 0x061D, 0x061E, 0x061F, 0x06D4, 0x0964, 0x0965, 0x203C, 0x203D,
		0x2047, 0x2048, 0x2049, 0x2E2E, 0x2E3C, 0x3002, 0xA4FF, 0xA60E, 0xA60F, 0xFE56, 0xFE57,
		0xFF01, 0xFF1F, 0xFF61:
		return true
	}
	return false
}

// isCJK reports runes of the scripts written without spaces between words
// (Han, kana, Hangul) and their full-width punctuation, which the segment
// length counts as wider than a Latin letter (cjkWeight).
func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) ||
		(r >= 0x3000 && r <= 0x303F) || (r >= 0xFF00 && r <= 0xFFEF)
}
