package text

import (
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func segmentTexts(t *testing.T, s string, o SegmentOptions) []string {
	t.Helper()
	segs, err := Segments(s, o)
	if err != nil {
		t.Fatalf("Segments(%q, %+v): %v", s, o, err)
	}
	var out []string
	for _, g := range segs {
		out = append(out, g.Text)
	}
	return out
}

// TestSegmentsWorked: joining, clause, word and rune splits, the CJK
// weight and dropped parts, each worked by hand from SegmentOptions' rules.
func TestSegmentsWorked(t *testing.T) {
	cases := []struct {
		name string
		text string
		o    SegmentOptions
		want []string
	}{
		{"first alone, rest joined", "One. Two. Three. Four.", SegmentOptions{JoinUnits: 12},
			// "Two. Three." is 11 units; adding " Four." would make 17
			[]string{"One.", "Two. Three.", "Four."}},
		{"no joining", "One. Two. Three.", SegmentOptions{JoinUnits: -1}, []string{"One.", "Two.", "Three."}},
		{"spaces collapsed", "  Hello\n  world.\n\n\tBye  now. ", SegmentOptions{JoinUnits: -1}, []string{"Hello world.", "Bye now."}},
		{"punctuation only dropped", "Yes. … — . No.", SegmentOptions{JoinUnits: -1}, []string{"Yes.", "No."}},
		{"clauses packed", "aaaa bbbb, cccc dddd; eeee ffff: gggg.", SegmentOptions{MaxUnits: 22, JoinUnits: -1},
			// clauses "aaaa bbbb, " (10+1) "cccc dddd; " "eeee ffff: " "gggg."; packed up to 22 collapsed units
			[]string{"aaaa bbbb, cccc dddd;", "eeee ffff: gggg."}},
		{"decimal comma is no clause", "It was 1,000,000 units or so.", SegmentOptions{MaxUnits: 18, JoinUnits: -1},
			// no clause mark followed by a space: words packed
			[]string{"It was 1,000,000", "units or so."}},
		{"words then runes", "abcdefghij klm", SegmentOptions{MaxUnits: 4, JoinUnits: -1},
			[]string{"abcd", "efgh", "ij", "klm"}},
		{"cjk clauses weighted", "我们去公园，然后回家吃饭。", SegmentOptions{MaxUnits: 18, JoinUnits: -1},
			// "我们去公园，" is 6 runes = 18 units: it fits; "然后回家吃饭。" is
			// 7 runes = 21 > 18 with no clause mark or space inside: rune cuts
			// of 6 runes, then "。" alone (no letter: dropped)
			[]string{"我们去公园，", "然后回家吃饭"}},
		{"cjk join without space", "开始。一。二。三。", SegmentOptions{JoinUnits: 100}, []string{"开始。", "一。二。三。"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := segmentTexts(t, tc.text, tc.o); !slices.Equal(got, tc.want) {
				t.Errorf("Segments(%q, %+v) =\n %q\nwant\n %q", tc.text, tc.o, got, tc.want)
			}
		})
	}
}

// TestSegmentsSpans: each segment's span holds its text (spaces aside).
func TestSegmentsSpans(t *testing.T) {
	s := "Dr. Smith arrived.\nHe sat down. 他坐下了。Then, after a long while, he spoke!"
	segs, err := Segments(s, SegmentOptions{MaxUnits: 20, JoinUnits: -1})
	if err != nil {
		t.Fatal(err)
	}
	for i, g := range segs {
		if got := strings.Join(strings.Fields(s[g.Start:g.End]), " "); got != g.Text {
			t.Errorf("segment %d: span %d..%d holds %q, text %q", i, g.Start, g.End, got, g.Text)
		}
	}
}

// TestSegmentOptionsValidate: bad bounds are refused by name.
func TestSegmentOptionsValidate(t *testing.T) {
	for _, o := range []SegmentOptions{{MaxUnits: -1}, {MaxUnits: 2}, {JoinUnits: -2}} {
		if _, err := Segments("x", o); err == nil || !strings.Contains(err.Error(), "text: segment") {
			t.Errorf("Segments(%+v) error %v, want a refusal naming the field", o, err)
		}
	}
}

// checkSegments asserts Segments' contract on s: every letter and digit of
// s in exactly one segment, in order; every segment within MaxUnits, with
// a letter or digit, spaces collapsed, its span holding its text.
func checkSegments(t *testing.T, s string, o SegmentOptions) {
	segs, err := Segments(s, o)
	if err != nil {
		t.Fatalf("Segments(%q, %+v): %v", s, o, err)
	}
	max := o.withDefaults().MaxUnits
	keep := func(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }
	var got []rune
	prevEnd := 0
	for i, g := range segs {
		if u := Units(g.Text); u > max {
			t.Fatalf("Segments(%q): segment %d %q has %d units > %d", s, i, g.Text, u, max)
		}
		if strings.IndexFunc(g.Text, keep) < 0 {
			t.Fatalf("Segments(%q): segment %d %q has no letter or digit", s, i, g.Text)
		}
		if g.Text != strings.Join(strings.Fields(g.Text), " ") {
			t.Fatalf("Segments(%q): segment %d %q has uncollapsed spaces", s, i, g.Text)
		}
		if g.Start < prevEnd || g.End < g.Start || g.End > len(s) {
			t.Fatalf("Segments(%q): segment %d span %d..%d after %d", s, i, g.Start, g.End, prevEnd)
		}
		prevEnd = g.End
		for _, r := range g.Text {
			if keep(r) {
				got = append(got, r)
			}
		}
	}
	var want []rune
	for _, r := range s {
		if keep(r) {
			want = append(want, r)
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("Segments(%q): letters and digits %q, want %q", s, string(got), string(want))
	}
}

// FuzzSegments: any input keeps Segments' contract; Sentences covers the
// input without gaps.
func FuzzSegments(f *testing.F) {
	for _, s := range []string{"", "Hello. World!", "我能吞下玻璃。而不伤身体！", "Dr. J. Smith, Ph.D., paid 3.50.\n\nNext.", "a,b;c:d—e", "\xff\xfe.", "!!!...", strings.Repeat("word ", 200), strings.Repeat("字", 500)} {
		f.Add(s, 0, 0)
		f.Add(s, 7, -1)
	}
	f.Fuzz(func(t *testing.T, s string, max, join int) {
		o := SegmentOptions{MaxUnits: max, JoinUnits: join}
		if o.Validate() != nil {
			return
		}
		if o.MaxUnits > 2000 {
			o.MaxUnits = 2000
		}
		prev := 0
		for _, sp := range Sentences(s) {
			if sp.Start != prev || sp.End <= sp.Start {
				t.Fatalf("Sentences(%q): span %v after %d", s, sp, prev)
			}
			prev = sp.End
		}
		if prev != len(s) {
			t.Fatalf("Sentences(%q) ends at %d, want %d", s, prev, len(s))
		}
		if !utf8.ValidString(s) {
			s = strings.ToValidUTF8(s, "\uFFFD")
		}
		checkSegments(t, s, o)
	})
}

// TestSegmentsLongMixed: a long mixed-language text keeps the contract
// with the defaults and with small bounds.
func TestSegmentsLongMixed(t *testing.T) {
	s := strings.Repeat("The quick brown fox jumps over the lazy dog, again and again; it never tires. 我能吞下玻璃而不伤身体，今天天气很好！Съешь же ещё этих мягких булок? 나는 유리를 먹을 수 있어요. ", 40)
	for _, o := range []SegmentOptions{{}, {MaxUnits: 30, JoinUnits: 20}, {MaxUnits: 3, JoinUnits: -1}} {
		checkSegments(t, s, o)
	}
}
