package text

import (
	"unicode"
	"unicode/utf8"
)

// Qwen2Pattern is the Qwen2 pre-tokenizer pattern as tokenizer.json spells
// it. splitPieces implements it by hand; a tokenizer.json with any other
// pattern is refused.
const Qwen2Pattern = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`

// splitPieces appends to dst the end offsets of the pieces the Qwen2
// pattern cuts s (valid UTF-8) into, matching it as a backtracking regex
// engine does: at each offset the first alternative that matches wins,
// each quantifier greedy with backtracking:
//
//	's 't 're 've 'm 'll 'd     a contraction, ASCII case-insensitive
//	[^\r\n\p{L}\p{N}]?\p{L}+    a letter run with at most one leading non-letter
//	\p{N}                       one number character (digits one at a time)
//	 ?[^\s\p{L}\p{N}]+[\r\n]*   a run of other characters, then newlines
//	\s*[\r\n]+                  whitespace up to its last newline
//	\s+(?!\S)                   whitespace but its last character when a non-space follows
//	\s+                         whitespace
func splitPieces(dst []int, s string) []int {
	for i := 0; i < len(s); {
		i = pieceEnd(s, i)
		dst = append(dst, i)
	}
	return dst
}

// pieceEnd returns the end of the piece starting at i (i < len(s)).
func pieceEnd(s string, i int) int {
	r0, n0 := utf8.DecodeRuneInString(s[i:])
	if r0 == '\'' {
		if n := contraction(s[i+1:]); n > 0 {
			return i + 1 + n
		}
	}
	j := i + n0
	// [^\r\n\p{L}\p{N}]?\p{L}+
	if isLetter(r0) {
		return letterRunEnd(s, j)
	}
	if r0 != '\r' && r0 != '\n' && !isNumber(r0) && j < len(s) {
		if r1, n1 := utf8.DecodeRuneInString(s[j:]); isLetter(r1) {
			return letterRunEnd(s, j+n1)
		}
	}
	// \p{N}
	if isNumber(r0) {
		return j
	}
	//  ?[^\s\p{L}\p{N}]+[\r\n]*
	k := i
	if r0 == ' ' && j < len(s) {
		if r1, _ := utf8.DecodeRuneInString(s[j:]); isOther(r1) {
			k = j
		}
	}
	if r, _ := utf8.DecodeRuneInString(s[k:]); isOther(r) {
		for k < len(s) {
			r, n := utf8.DecodeRuneInString(s[k:])
			if !isOther(r) {
				break
			}
			k += n
		}
		for k < len(s) && (s[k] == '\r' || s[k] == '\n') {
			k++
		}
		return k
	}
	// r0 is whitespace from here on (every other rune matched above).
	end, last, lastNL := i, i, -1
	for end < len(s) {
		r, n := utf8.DecodeRuneInString(s[end:])
		if !isSpace(r) {
			break
		}
		if r == '\r' || r == '\n' {
			lastNL = end
		}
		last = end
		end += n
	}
	switch {
	case lastNL >= 0: // \s*[\r\n]+
		return lastNL + 1
	case end == len(s): // \s+(?!\S) at the end of the text
		return end
	case last > i: // \s+(?!\S): leave the last space to the next piece
		return last
	}
	return end // \s+
}

// contraction returns the length of the contraction suffix at the start of
// s ("s", "t", "re", "ve", "m", "ll", "d", ASCII case-insensitive), or 0.
func contraction(s string) int {
	if len(s) == 0 {
		return 0
	}
	switch s[0] | 0x20 {
	case 's', 't', 'm', 'd':
		return 1
	case 'r', 'v':
		if len(s) > 1 && s[1]|0x20 == 'e' {
			return 2
		}
	case 'l':
		if len(s) > 1 && s[1]|0x20 == 'l' {
			return 2
		}
	}
	return 0
}

// letterRunEnd returns the end of the run of letters starting at j.
func letterRunEnd(s string, j int) int {
	for j < len(s) {
		if c := s[j]; c < utf8.RuneSelf {
			if !('a' <= c|0x20 && c|0x20 <= 'z') {
				return j
			}
			j++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[j:])
		if !unicode.IsLetter(r) {
			return j
		}
		j += n
	}
	return j
}

// isLetter reports \p{L}.
func isLetter(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r|0x20 && r|0x20 <= 'z'
	}
	return unicode.IsLetter(r)
}

// isNumber reports \p{N} (Nd, Nl, No).
func isNumber(r rune) bool {
	if r < utf8.RuneSelf {
		return '0' <= r && r <= '9'
	}
	return unicode.IsNumber(r)
}

// isSpace reports \s: the Unicode White_Space property.
func isSpace(r rune) bool { return unicode.IsSpace(r) }

// isOther reports [^\s\p{L}\p{N}].
func isOther(r rune) bool { return !isSpace(r) && !isLetter(r) && !isNumber(r) }
