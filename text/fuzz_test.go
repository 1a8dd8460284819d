package text

import (
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// FuzzEncode: any byte string tokenizes without panic; valid UTF-8 decodes
// back to its NFC form; invalid UTF-8 is refused.
func FuzzEncode(f *testing.F) {
	for _, s := range []string{"", "Hello, world!", "it's 2024\r\n", "  \t\n", "Cafe\u0301", "👨‍👩‍👧", "<|im_end|>x", "\xff\xfe", "我能吞下玻璃"} {
		f.Add(s)
	}
	_, tk := tokenizers(f)
	f.Fuzz(func(t *testing.T, s string) {
		ids, err := tk.Encode(s)
		if !utf8.ValidString(s) {
			if err == nil {
				t.Fatalf("Encode(%q) accepted invalid UTF-8", s)
			}
			return
		}
		if err != nil {
			t.Fatalf("Encode(%q): %v", s, err)
		}
		got, err := tk.Decode(ids)
		if err != nil {
			t.Fatalf("Decode(Encode(%q)): %v", s, err)
		}
		if want := norm.NFC.String(s); got != want {
			t.Fatalf("Decode(Encode(%q)) = %q, want NFC %q", s, got, want)
		}
	})
}
