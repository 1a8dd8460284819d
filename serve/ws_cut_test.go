package serve

import "testing"

// TestWholeText: token mode feeds whole words (up to the last space after
// a non-space) and, in text without spaces, clauses up to the last CJK or
// full-width punctuation mark, which stays with what follows; worked cases.
func TestWholeText(t *testing.T) {
	for _, c := range []struct {
		buf, fed string
	}{
		{"Hello", ""},
		{"Hello ", ""}, // a word is fed once the next one begins
		{"Hello there", "Hello"},
		{"Hello there ", "Hello"},
		{"你好", ""},
		{"你好，世界", "你好"},
		{"你好，世界。今天", "你好，世界"},
		{"こんにちは、元気", "こんにちは"},
		{"你好！ Hello wor", "你好！ Hello"},
		{"Hi there，你好", "Hi there"},
		{"a，b c", "a，b"},
		{"「引用」", "「引用"},
		{"，你好", ""},
		{"x, y", "x,"},
	} {
		if got := c.buf[:max(0, wholeText(c.buf))]; got != c.fed {
			t.Errorf("wholeText(%q) feeds %q, want %q", c.buf, got, c.fed)
		}
	}
}
