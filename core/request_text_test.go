package core

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// fakePrompter returns fixed ids: role 151644 77091 198, one text id per
// byte of the text (1000 + byte), instruct ids 151644, 872, 2000 + byte…,
// 151645, 198.
type fakePrompter struct{}

func (fakePrompter) PromptIDs(s string) ([3]int32, []int32, error) {
	ids := make([]int32, len(s))
	for i := range s {
		ids[i] = 1000 + int32(s[i])
	}
	return [3]int32{151644, 77091, 198}, ids, nil
}

func (fakePrompter) InstructIDs(s string) ([]int32, error) {
	ids := []int32{151644, 872}
	for i := range s {
		ids = append(ids, 2000+int32(s[i]))
	}
	return append(ids, 151645, 198), nil
}

func (fakePrompter) RefTextIDs(s string) ([]int32, error) {
	ids := make([]int32, len(s))
	for i := range s {
		ids[i] = 3000 + int32(s[i])
	}
	return ids, nil
}

func textIDs(kind string, instruct bool) SpecialIDs {
	ids := Qwen3TTSIDs()
	ids.ModelKind, ids.TakesInstruct, ids.Context = kind, instruct, 32768
	return ids
}

// TestTextRequestRows checks the instruct rows (text only, before the role
// rows) and the per-type default layout against docs/MODEL.md §4.
func TestTextRequestRows(t *testing.T) {
	ids := textIDs("custom_voice", true)
	r, err := ids.TextRequest(fakePrompter{}, TextInput{Text: "ab", Language: "English", Speaker: "VIVIAN", Instruct: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Layout != NonStreaming {
		t.Fatalf("custom_voice default layout %v, want non-streaming", r.Layout)
	}
	p, err := BuildPrompt(&r, &ids)
	if err != nil {
		t.Fatal(err)
	}
	want := []PromptRow{
		{151644, NoID, CodecRow}, {872, NoID, CodecRow}, {2000 + 'x', NoID, CodecRow}, {151645, NoID, CodecRow}, {198, NoID, CodecRow}, // instruct
		{151644, NoID, CodecRow}, {77091, NoID, CodecRow}, {198, NoID, CodecRow}, // role
		{151671, 2154, CodecRow}, {151671, 2156, CodecRow}, {151671, 2050, CodecRow}, {151671, 2157, CodecRow}, {151671, 3065, CodecRow}, {151672, 2148, CodecRow},
		{1000 + 'a', 2148, CodecRow}, {1000 + 'b', 2148, CodecRow}, {151673, 2148, CodecRow}, {151671, 2149, CodecRow},
	}
	if len(p.Rows) != len(want) {
		t.Fatalf("%d rows, want %d: %v", len(p.Rows), len(want), p.Rows)
	}
	for i := range want {
		if p.Rows[i] != want[i] {
			t.Errorf("row %d = %v, want %v", i, p.Rows[i], want[i])
		}
	}
	if len(p.Trailing) != 0 {
		t.Errorf("trailing %v, want none", p.Trailing)
	}
	b := textIDs("base", false)
	if r, err := b.TextRequest(fakePrompter{}, TextInput{Text: "ab"}); err != nil || r.Layout != Streaming {
		t.Errorf("base: layout %v, err %v; want streaming", r.Layout, err)
	}
}

func TestTextRequestRefusals(t *testing.T) {
	for _, tc := range []struct {
		name string
		ids  SpecialIDs
		in   TextInput
		want string
	}{
		{"empty text", textIDs("custom_voice", true), TextInput{}, "field text: empty"},
		{"blank text", textIDs("custom_voice", true), TextInput{Text: " \t\n "}, "field text: empty"},
		{"unknown language", textIDs("custom_voice", true), TextInput{Text: "a", Language: "klingon"}, `language "klingon" unknown: the model knows auto, chinese, english, french, german,`},
		{"dialect as language", textIDs("custom_voice", true), TextInput{Text: "a", Language: "Beijing_Dialect"}, `language "Beijing_Dialect" unknown: a dialect is chosen by its speaker`},
		{"unknown speaker", textIDs("custom_voice", true), TextInput{Text: "a", Speaker: "nobody"}, `speaker "nobody" unknown: the model knows aiden, dylan, eric,`},
		{"instruct on 0.6B", textIDs("custom_voice", false), TextInput{Text: "a", Instruct: "x"}, "field instruct: the model (custom_voice) takes no instruction"},
		{"bad layout", textIDs("base", false), TextInput{Text: "a", Layout: "sideways"}, "field layout"},
		{"over context", func() SpecialIDs { s := textIDs("base", false); s.Context = 12; return s }(), TextInput{Text: "abcdef"}, "context holds 12"},
		{"clone not base", textIDs("custom_voice", false), TextInput{Text: "a", Clone: &Clone{XVector: make([]float32, 8)}}, "field clone: voice cloning needs a Base model, this one is custom_voice"},
		{"clone with speaker", textIDs("base", false), TextInput{Text: "a", Speaker: "vivian", Clone: &Clone{XVector: make([]float32, 8)}}, `field speaker: a cloning request takes its voice from the reference, not a preset speaker ("vivian")`},
		{"in-context without ref_text", textIDs("base", false), TextInput{Text: "a", RefText: " ", Clone: &Clone{XVector: make([]float32, 8), RefCodes: make([]int32, 16)}}, "field ref_text: required with reference codes"},
		{"x-vector length", func() SpecialIDs { s := textIDs("base", false); s.Hidden = 4; return s }(), TextInput{Text: "a", Clone: &Clone{XVector: make([]float32, 8)}}, "field clone.x_vector: 8 values, the model's hidden size is 4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.ids.TextRequest(fakePrompter{}, tc.in)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, ErrInvalidRequest) {
				t.Fatalf("err %v, want ErrInvalidRequest containing %q", err, tc.want)
			}
		})
	}
}

// TestEngineTakesInstructRows: an instruction's rows reach the prefill (the
// stream's prompt is longer by exactly their number), and an engine whose
// model takes none refuses the request at Submit.
func TestEngineTakesInstructRows(t *testing.T) {
	rows := func(takes bool, instruct []int32) (int, error) {
		ids := tinyIDs()
		ids.TakesInstruct = takes
		m := newFake(2)
		e, err := New(Config{Model: m, IDs: ids, Inline: true})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		r := seeded("i", []int32{1, 2}, 7, 3)
		r.InstructIDs = instruct
		s, err := e.Submit(t.Context(), r)
		if err != nil {
			return 0, err
		}
		drain(t, e)
		return s.rows, nil
	}
	plain, err := rows(true, nil)
	if err != nil {
		t.Fatal(err)
	}
	with, err := rows(true, []int32{60, 5, 6, 7, 8, 62})
	if err != nil {
		t.Fatal(err)
	}
	if with != plain+6 {
		t.Errorf("prompt rows %d with 6 instruct ids, %d without: want +6", with, plain)
	}
	if _, err := rows(false, []int32{60, 5}); err == nil || !errors.Is(err, ErrInvalidRequest) || !strings.Contains(err.Error(), "field instruct") {
		t.Errorf("instruct on a model that takes none: %v", err)
	}
}

// TestTextRequestClone: the reference transcript's ids (RefTextIDs of the
// prompter) reach the request's own copy of the clone, the caller's stays
// untouched; x-vector mode ignores a transcript; stored ids serve when no
// transcript is given; the default layout of base is streaming.
func TestTextRequestClone(t *testing.T) {
	ids := textIDs("base", false)
	ids.Hidden = 2
	c := &Clone{XVector: []float32{1, 2}, RefCodes: make([]int32, 2*Codebooks)}
	r, err := ids.TextRequest(fakePrompter{}, TextInput{Text: "ab", RefText: "hi", Clone: c})
	if err != nil {
		t.Fatal(err)
	}
	if r.Clone == c || c.RefTextIDs != nil {
		t.Error("the caller's clone was modified, want a copy")
	}
	if want := []int32{3000 + 'h', 3000 + 'i'}; r.Clone == nil || !slices.Equal(r.Clone.RefTextIDs, want) || r.Layout != Streaming {
		t.Errorf("clone %+v layout %v, want ref text ids %v, streaming", r.Clone, r.Layout, want)
	}
	x, err := ids.TextRequest(fakePrompter{}, TextInput{Text: "ab", RefText: "hi", Clone: &Clone{XVector: []float32{1, 2}}})
	if err != nil || x.Clone.RefTextIDs != nil {
		t.Errorf("x-vector mode: %+v, %v; want no ref text ids", x.Clone, err)
	}
	stored := &Clone{XVector: []float32{1, 2}, RefCodes: make([]int32, Codebooks), RefTextIDs: []int32{7}}
	if s, err := ids.TextRequest(fakePrompter{}, TextInput{Text: "ab", Clone: stored}); err != nil || !slices.Equal(s.Clone.RefTextIDs, []int32{7}) {
		t.Errorf("stored ref text ids: %+v, %v", s.Clone, err)
	}
}
