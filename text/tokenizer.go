package text

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// AddedToken is a token outside BPE (a control token such as <|im_start|>):
// matched verbatim in the raw text before normalisation and BPE, never
// split.
type AddedToken struct {
	ID      int32
	Content string
	Special bool // the config's "special" flag (informational)
}

// Tokenizer is a loaded Qwen2 byte-level BPE tokenizer. It is immutable
// after loading and safe for concurrent use.
type Tokenizer struct {
	vocab   map[string]int32 // raw bytes of a regular token → id
	merges  map[uint64]merge // (left id, right id) → rank and merged id
	byteID  [256]int32       // the token of each single byte
	pieces  []string         // id → raw bytes (regular) or content (added); "" = no token
	added   []AddedToken     // by id
	addedID map[string]int32 // content → id
	// addedFirst marks the bytes an added token starts with.
	addedFirst [256]bool
	source     string // where it was loaded from, for messages
}

// ErrInvalidText is wrapped by the error for text that cannot be tokenized
// (invalid UTF-8).
var ErrInvalidText = errors.New("text: invalid text")

// Size returns one more than the largest token id.
func (t *Tokenizer) Size() int { return len(t.pieces) }

// Source names where the tokenizer was loaded from.
func (t *Tokenizer) Source() string { return t.source }

// AddedTokens returns the added tokens in id order.
func (t *Tokenizer) AddedTokens() []AddedToken { return append([]AddedToken(nil), t.added...) }

// TokenID returns the id of an added token's content or of a regular token
// spelled as raw text ("assistant", "\n"), and whether it exists.
func (t *Tokenizer) TokenID(s string) (int32, bool) {
	if id, ok := t.addedID[s]; ok {
		return id, true
	}
	id, ok := t.vocab[s]
	return id, ok
}

// Encode tokenizes s as Hugging Face's encode(s, add_special_tokens=False)
// does: added tokens written literally in s become their ids; the text
// between them is NFC-normalised, cut by the Qwen2 pattern and BPE-merged.
// Invalid UTF-8 is an error (wrapping ErrInvalidText).
func (t *Tokenizer) Encode(s string) ([]int32, error) {
	return t.encode(nil, s, true)
}

// EncodeText tokenizes s as ordinary text: added-token matching is off, so
// a literal "<|im_end|>" is spelled by BPE like any other text. User text
// goes through this, never through Encode.
func (t *Tokenizer) EncodeText(s string) ([]int32, error) {
	return t.encode(nil, s, false)
}

// encode appends the ids of s to dst.
func (t *Tokenizer) encode(dst []int32, s string, matchAdded bool) ([]int32, error) {
	if !utf8.ValidString(s) {
		return nil, fmt.Errorf("%w: not valid UTF-8 at byte %d", ErrInvalidText, invalidAt(s))
	}
	var sc scratch
	for len(s) > 0 {
		seg, id, rest := s, int32(-1), ""
		if matchAdded {
			seg, id, rest = t.nextAdded(s)
		}
		dst = t.encodeSegment(dst, seg, &sc)
		if id >= 0 {
			dst = append(dst, id)
		}
		s = rest
	}
	return dst, nil
}

// scratch holds the buffers one encode call reuses across pieces.
type scratch struct {
	ends        []int
	syms, ranks []int32
}

// encodeSegment appends the ids of s, a text without added tokens.
func (t *Tokenizer) encodeSegment(dst []int32, s string, sc *scratch) []int32 {
	if s == "" {
		return dst
	}
	if !norm.NFC.IsNormalString(s) {
		s = norm.NFC.String(s)
	}
	sc.ends = splitPieces(sc.ends[:0], s)
	start := 0
	for _, end := range sc.ends {
		dst, sc.syms, sc.ranks = t.bpe(dst, s[start:end], sc.syms, sc.ranks)
		start = end
	}
	return dst
}

// nextAdded finds the leftmost added token in s (the longest of those
// starting there) and returns the text before it, its id and the text
// after it; id is -1 and seg is s when there is none.
func (t *Tokenizer) nextAdded(s string) (seg string, id int32, rest string) {
	if len(t.added) == 0 {
		return s, -1, ""
	}
	for i := 0; i < len(s); i++ {
		if !t.addedFirst[s[i]] {
			continue
		}
		best := -1
		for k := range t.added {
			c := t.added[k].Content
			if len(c) > 0 && c[0] == s[i] && strings.HasPrefix(s[i:], c) && (best < 0 || len(c) > len(t.added[best].Content)) {
				best = k
			}
		}
		if best >= 0 {
			a := t.added[best]
			return s[:i], a.ID, s[i+len(a.Content):]
		}
	}
	return s, -1, ""
}

// invalidAt returns the offset of the first invalid UTF-8 byte of s.
func invalidAt(s string) int {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return len(s)
}

// Decode returns the text of ids: the bytes of each token (an added token's
// content) concatenated, each maximal invalid UTF-8 subsequence replaced by
// one U+FFFD (as Rust's String::from_utf8_lossy, which Hugging Face's
// byte-level decoder uses). An id outside the vocabulary is an error.
func (t *Tokenizer) Decode(ids []int32) (string, error) {
	var b []byte
	for i, id := range ids {
		if id < 0 || int(id) >= len(t.pieces) || t.pieces[id] == "" {
			return "", fmt.Errorf("text: decode: id [%d] = %d not in the vocabulary of %d (%s)", i, id, len(t.pieces), t.source)
		}
		b = append(b, t.pieces[id]...)
	}
	if utf8.Valid(b) {
		return string(b), nil
	}
	var sb strings.Builder
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n == 1 {
			n = invalidPrefix(b)
		}
		sb.WriteRune(r)
		b = b[n:]
	}
	return sb.String(), nil
}

// invalidPrefix returns the length of the maximal prefix of a valid UTF-8
// sequence at the start of b (which does not hold a whole one): 1 to 3.
func invalidPrefix(b []byte) int {
	lo, hi, need := byte(0x80), byte(0xBF), 0
	switch c := b[0]; {
	case c >= 0xC2 && c <= 0xDF:
		need = 1
	case c == 0xE0:
		lo, need = 0xA0, 2
	case c == 0xED:
		hi, need = 0x9F, 2
	case c >= 0xE1 && c <= 0xEF:
		need = 2
	case c == 0xF0:
		lo, need = 0x90, 3
	case c == 0xF4:
		hi, need = 0x8F, 3
	case c >= 0xF1 && c <= 0xF3:
		need = 3
	default:
		return 1
	}
	k := 1
	for ; k <= need && k < len(b); k++ {
		if b[k] < lo || b[k] > hi {
			break
		}
		lo, hi = 0x80, 0xBF
	}
	return k
}
