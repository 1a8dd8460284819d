package text

// byteRunes maps each byte to the printable rune GPT-2's byte-level
// alphabet writes it as: the printable Latin-1 bytes '!'..'~', '¡'..'¬'
// and '®'..'ÿ' stand for themselves, the other 68 bytes take the runes
// U+0100, U+0101, … in byte order. Vocabulary and merge files spell tokens
// in this alphabet.
var byteRunes = func() (m [256]rune) {
	n := rune(0)
	for b := 0; b < 256; b++ {
		if (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF) {
			m[b] = rune(b)
		} else {
			m[b] = 256 + n
			n++
		}
	}
	return m
}()

// runeBytes is the inverse of byteRunes over U+0000..U+0143; -1 elsewhere.
var runeBytes = func() (m [324]int16) {
	for i := range m {
		m[i] = -1
	}
	for b, r := range byteRunes {
		m[r] = int16(b)
	}
	return m
}()

// unmapBytes turns a token spelled in the byte-level alphabet into its raw
// bytes; ok is false when a rune lies outside the alphabet.
func unmapBytes(tok string) (raw []byte, ok bool) {
	return appendUnmapped(make([]byte, 0, len(tok)), tok)
}

// appendUnmapped appends the raw bytes of tok (byte-level spelling) to raw.
func appendUnmapped(raw []byte, tok string) ([]byte, bool) {
	for _, r := range tok {
		if r < 0 || int(r) >= len(runeBytes) || runeBytes[r] < 0 {
			return nil, false
		}
		raw = append(raw, byte(runeBytes[r]))
	}
	return raw, true
}
