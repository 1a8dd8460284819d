package core

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// The expected clone prompts are written out from upstream's generate and
// generate_icl_prompt (research wave3.md §3.4) with the released ids, as
// TestBuildPromptLayouts does for CustomVoice: xv is the x-vector row,
// ref(k) reference frame k.
func TestBuildPromptClone(t *testing.T) {
	const (
		imStart, assistant, nl = 151644, 77091, 198
		pad, bos, eos          = 151671, 151672, 151673
		cPad, cBos             = 2148, 2149
		think, nothink         = 2154, 2155
		tBos, tEos             = 2156, 2157
	)
	ids := Qwen3TTSIDs()
	ids.ModelKind = "base"
	ids.Hidden = 4
	xv := PromptRow{Text: pad, Codec: 0, Part: CodecXVector}
	ref := func(k int32) PromptRow { return PromptRow{Text: pad, Codec: k, Part: CodecRefFrame} }
	refT := func(text, k int32) PromptRow { return PromptRow{Text: text, Codec: k, Part: CodecRefFrame} }
	prefixEN := []PromptRow{row(imStart, NoID), row(assistant, NoID), row(nl, NoID),
		row(pad, think), row(pad, tBos), row(pad, 2050), row(pad, tEos), xv, row(bos, cPad)}
	prefixAuto := []PromptRow{row(imStart, NoID), row(assistant, NoID), row(nl, NoID),
		row(pad, nothink), row(pad, tBos), row(pad, tEos), xv, row(bos, cPad)}
	cat := func(parts ...[]PromptRow) []PromptRow {
		var out []PromptRow
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	x := []float32{1, 2, 3, 4}
	codes := func(frames int) []int32 { return make([]int32, frames*Codebooks) }
	xvec := &Clone{XVector: x}
	cases := []struct {
		name     string
		req      Request
		rows     []PromptRow
		trailing []int32
	}{
		{
			name:     "x-vector streaming",
			req:      Request{TextIDs: []int32{10, 11, 12}, Language: "english", Clone: xvec},
			rows:     cat(prefixEN, []PromptRow{row(10, cBos)}),
			trailing: []int32{11, 12, eos},
		},
		{
			name: "x-vector non-streaming auto",
			req:  Request{TextIDs: []int32{10, 11}, Layout: NonStreaming, Clone: xvec},
			rows: cat(prefixAuto, []PromptRow{row(10, cPad), row(11, cPad), row(eos, cPad), row(pad, cBos)}),
		},
		{
			// text 2 ref + 3 target + eos = 6 rows over codec_bos + 2 frames:
			// 3 summed rows, 3 trailing.
			name: "in-context streaming, text longer",
			req: Request{TextIDs: []int32{10, 11, 12}, Language: "english",
				Clone: &Clone{XVector: x, RefCodes: codes(2), RefTextIDs: []int32{20, 21}}},
			rows:     cat(prefixEN, []PromptRow{row(20, cBos), refT(21, 0), refT(10, 1)}),
			trailing: []int32{11, 12, eos},
		},
		{
			// text 1 + 1 + eos = 3 rows over codec_bos + 4 frames: tts_pad
			// fills the text track, no trailing text.
			name: "in-context streaming, text shorter",
			req: Request{TextIDs: []int32{10},
				Clone: &Clone{XVector: x, RefCodes: codes(4), RefTextIDs: []int32{20}}},
			rows: cat(prefixAuto, []PromptRow{row(20, cBos), refT(10, 0), refT(eos, 1), ref(2), ref(3)}),
		},
		{
			// equal lengths: upstream's "else" branch, no trailing text.
			name: "in-context streaming, equal",
			req: Request{TextIDs: []int32{10},
				Clone: &Clone{XVector: x, RefCodes: codes(2), RefTextIDs: []int32{20}}},
			rows: cat(prefixAuto, []PromptRow{row(20, cBos), refT(10, 0), refT(eos, 1)}),
		},
		{
			name: "in-context non-streaming",
			req: Request{TextIDs: []int32{10, 11}, Language: "english", Layout: NonStreaming,
				Clone: &Clone{XVector: x, RefCodes: codes(2), RefTextIDs: []int32{20}}},
			rows: cat(prefixEN, []PromptRow{row(20, cPad), row(10, cPad), row(11, cPad), row(eos, cPad),
				row(pad, cBos), ref(0), ref(1)}),
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
				t.Errorf("trailing %v, want %v", p.Trailing, c.trailing)
			}
			if p.Clone != c.req.Clone {
				t.Errorf("prompt's clone %p, want the request's %p", p.Clone, c.req.Clone)
			}
		})
	}
}

func TestBuildPromptCloneRefused(t *testing.T) {
	ids := Qwen3TTSIDs()
	ids.ModelKind = "base"
	ids.Hidden = 4
	x := []float32{1, 2, 3, 4}
	nan := float32(0)
	nan /= nan
	icl := func(mod func(*Clone)) *Clone {
		c := &Clone{XVector: x, RefCodes: make([]int32, 2*Codebooks), RefTextIDs: []int32{5}}
		mod(c)
		return c
	}
	cases := []struct {
		name string
		ids  func(SpecialIDs) SpecialIDs
		req  Request
		want string
	}{
		{"not base", func(s SpecialIDs) SpecialIDs { s.ModelKind = "custom_voice"; return s },
			Request{Clone: &Clone{XVector: x}}, "field clone: voice cloning needs a Base model, this one is custom_voice"},
		{"unknown kind", func(s SpecialIDs) SpecialIDs { s.ModelKind = ""; return s },
			Request{Clone: &Clone{XVector: x}}, "needs a Base model, this one is model type unknown"},
		{"speaker id", nil, Request{SpeakerID: 3065, Clone: &Clone{XVector: x}}, "field speaker: a cloning request"},
		{"no x-vector", nil, Request{Clone: &Clone{}}, "field clone.x_vector: empty"},
		{"x-vector length", nil, Request{Clone: &Clone{XVector: x[:3]}}, "field clone.x_vector: 3 values, the model's hidden size is 4"},
		{"x-vector NaN", nil, Request{Clone: &Clone{XVector: []float32{1, nan, 3, 4}}}, "field clone.x_vector: value [1] = NaN not finite"},
		{"ref codes partial frame", nil, Request{Clone: icl(func(c *Clone) { c.RefCodes = c.RefCodes[:17] })}, "field clone.ref_codes: 17 codes are not whole frames of 16"},
		{"ref code range", nil, Request{Clone: icl(func(c *Clone) { c.RefCodes[16+3] = 2048 })}, "field clone.ref_codes: frame 1 codebook 3 = 2048 outside [0, 2048)"},
		{"negative ref code", nil, Request{Clone: icl(func(c *Clone) { c.RefCodes[0] = -1 })}, "frame 0 codebook 0 = -1 outside"},
		{"no ref text", nil, Request{Clone: icl(func(c *Clone) { c.RefTextIDs = nil })}, "field ref_text: required with reference codes"},
		{"ref text id", nil, Request{Clone: icl(func(c *Clone) { c.RefTextIDs = []int32{151936} })}, "field ref_text: id [0] = 151936 outside [0, 151936)"},
		{"live in-context", nil, Request{Live: true, MaxFrames: 10, Clone: icl(func(*Clone) {})}, "a live request takes x-vector references only"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := ids
			if c.ids != nil {
				s = c.ids(ids)
			}
			r := c.req
			r.TextIDs = []int32{10}
			r.Talker, r.Predictor = DefaultTalkerSampling(), DefaultPredictorSampling()
			for _, step := range []struct {
				what string
				err  error
			}{{"BuildPrompt", func() error { _, err := BuildPrompt(&r, &s); return err }()},
				{"validate", r.validate(&s, DefaultLimits())}} {
				if step.err == nil || !strings.Contains(step.err.Error(), c.want) || !errors.Is(step.err, ErrInvalidRequest) {
					t.Errorf("%s: error %v, want ErrInvalidRequest containing %q", step.what, step.err, c.want)
				}
			}
		})
	}
}

// The embedded clone rows are the fake model's tables summed by hand: the
// text track (TextEmbed: id%7 + j), the x-vector as given, codec rows
// (CodecEmbed: (id%5)·(j+1)) and reference frames (FrameEmbed:
// Σ_g (code_g%3)·(j+g)), with a batch of 2 so the 3 frames take two
// FrameEmbed calls.
func TestEmbedderCloneRows(t *testing.T) {
	m := newFake(2)
	ids := tinyIDs()
	ids.ModelKind, ids.Hidden = "base", 4
	refCodes := make([]int32, 3*Codebooks)
	for i := range refCodes {
		refCodes[i] = int32(i*7) % 16
	}
	c := &Clone{XVector: []float32{0.5, -1, 2, 8}, RefCodes: refCodes, RefTextIDs: []int32{3}}
	r := Request{TextIDs: []int32{4, 5, 6, 8}, Clone: c}
	p, err := BuildPrompt(&r, &ids)
	if err != nil {
		t.Fatal(err)
	}
	text := func(id int32, j int) float32 { return float32(id%7) + float32(j) }
	codec := func(id int32, j int) float32 { return float32(id%5) * float32(j+1) }
	frame := func(k, j int) float32 {
		var s float32
		for g := 0; g < Codebooks; g++ {
			s += float32(refCodes[k*Codebooks+g]%3) * float32(j+g)
		}
		return s
	}
	// role 3, control nothink think_bos think_eos xv pad (5), then
	// text 3,4,5,6,8,eos over bos,f0,f1,f2: 4 rows, trailing 8, eos.
	want := func(i, j int) float32 {
		switch {
		case i < 3:
			return text([]int32{60, 61, 62}[i], j)
		case i < 6:
			return text(50, j) + codec([]int32{20, 21, 22}[i-3], j)
		case i == 6:
			return text(50, j) + c.XVector[j]
		case i == 7:
			return text(51, j) + codec(16, j)
		case i == 8:
			return text(3, j) + codec(17, j)
		default:
			return text([]int32{4, 5, 6}[i-9], j) + frame(i-9, j)
		}
	}
	H := 4
	x := make([]float32, len(p.Rows)*H)
	if len(p.Rows) != 12 {
		t.Fatalf("%d rows, want 12: %v", len(p.Rows), p.Rows)
	}
	if err := NewEmbedder(m).Rows(x, &p); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(p.Rows); i++ {
		for j := 0; j < H; j++ {
			if got, w := x[i*H+j], want(i, j); got != w {
				t.Fatalf("row %d [%d] = %v, want %v", i, j, got, w)
			}
		}
	}
	if !reflect.DeepEqual(p.Trailing, []int32{8, ids.TTSEos}) {
		t.Errorf("trailing %v, want [8 %d]", p.Trailing, ids.TTSEos)
	}
}
