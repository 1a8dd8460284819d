package core

import (
	"reflect"
	"testing"
)

// row is shorthand for a PromptRow in the expected layouts below.
func row(text, codec int32) PromptRow { return PromptRow{Text: text, Codec: codec} }

// The expected prompts are written out from docs/MODEL.md §4 with
// the released ids (im_start 151644, assistant 77091, "\n" 198, tts_pad
// 151671, tts_bos 151672, tts_eos 151673, codec_pad 2148, codec_bos 2149,
// think 2154, nothink 2155, think_bos 2156, think_eos 2157, english 2050,
// chinese 2055, beijing_dialect 2074, vivian 3065, dylan 2878).
func TestBuildPromptLayouts(t *testing.T) {
	const (
		imStart, assistant, nl = 151644, 77091, 198
		pad, bos, eos          = 151671, 151672, 151673
		cPad, cBos             = 2148, 2149
		think, nothink         = 2154, 2155
		tBos, tEos             = 2156, 2157
	)
	ids := Qwen3TTSIDs()
	role := []PromptRow{row(imStart, NoID), row(assistant, NoID), row(nl, NoID)}
	cat := func(parts ...[]PromptRow) []PromptRow {
		var out []PromptRow
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	cases := []struct {
		name     string
		req      Request
		rows     []PromptRow
		trailing []int32
	}{
		{
			name: "english vivian streaming",
			req:  Request{TextIDs: []int32{10, 11, 12}, Language: "english", Speaker: "vivian"},
			rows: cat(role, []PromptRow{
				row(pad, think), row(pad, tBos), row(pad, 2050), row(pad, tEos), row(pad, 3065), row(bos, cPad),
				row(10, cBos),
			}),
			trailing: []int32{11, 12, eos},
		},
		{
			name: "english vivian non-streaming",
			req:  Request{TextIDs: []int32{10, 11, 12}, Language: "english", Speaker: "vivian", Layout: NonStreaming},
			rows: cat(role, []PromptRow{
				row(pad, think), row(pad, tBos), row(pad, 2050), row(pad, tEos), row(pad, 3065), row(bos, cPad),
				row(10, cPad), row(11, cPad), row(12, cPad), row(eos, cPad), row(pad, cBos),
			}),
			trailing: nil,
		},
		{
			name: "auto no speaker streaming one token",
			req:  Request{TextIDs: []int32{7}},
			rows: cat(role, []PromptRow{
				row(pad, nothink), row(pad, tBos), row(pad, tEos), row(bos, cPad),
				row(7, cBos),
			}),
			trailing: []int32{eos},
		},
		{
			name: "chinese dialect speaker",
			req:  Request{TextIDs: []int32{5, 6}, Language: "chinese", Speaker: "dylan"},
			rows: cat(role, []PromptRow{
				row(pad, think), row(pad, tBos), row(pad, 2074), row(pad, tEos), row(pad, 2878), row(bos, cPad),
				row(5, cBos),
			}),
			trailing: []int32{6, eos},
		},
		{
			name: "speaker by id, auto language",
			req:  Request{TextIDs: []int32{5}, SpeakerID: 3010, Layout: NonStreaming},
			rows: cat(role, []PromptRow{
				row(pad, nothink), row(pad, tBos), row(pad, tEos), row(pad, 3010), row(bos, cPad),
				row(5, cPad), row(eos, cPad), row(pad, cBos),
			}),
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := BuildPrompt(&c.req, &ids)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(p.Rows, c.rows) {
				t.Errorf("rows\n got %v\nwant %v", p.Rows, c.rows)
			}
			if len(p.Trailing) != len(c.trailing) || (len(c.trailing) > 0 && !reflect.DeepEqual(p.Trailing, c.trailing)) {
				t.Errorf("trailing = %v, want %v", p.Trailing, c.trailing)
			}
			for f := 0; f < len(c.trailing)+3; f++ {
				want := int32(pad)
				if f < len(c.trailing) {
					want = c.trailing[f]
				}
				if got := p.TextAt(f); got != want {
					t.Errorf("TextAt(%d) = %d, want %d", f, got, want)
				}
			}
		})
	}
}
