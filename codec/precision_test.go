package codec_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/omni-tts/omni/codec"
)

// TestParsePrecision: presets stay themselves, specs come out canonical
// (the most common precision as the base, overrides in family order), and
// bad specs are refused naming the bad part.
func TestParsePrecision(t *testing.T) {
	for in, want := range map[string]string{
		"fp32": "fp32", "bf16": "bf16", "int8": "int8", "mixed": "mixed",
		"res=int8":                       "fp32+res=int8",
		"bf16+transformer=fp32":          "bf16+transformer=fp32",
		"tconv=int8+res=int8":            "fp32+tconv=int8+res=int8",
		"int8+transformer=fp32+out=fp32": "int8+transformer=fp32+out=fp32",
		"fp32+res=bf16+tconv=bf16+out=bf16+vocoder_in=bf16": "bf16+transformer=fp32+upsample=fp32",
	} {
		got, err := codec.ParsePrecision(in)
		if err != nil || got != want {
			t.Errorf("ParsePrecision(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for in, part := range map[string]string{
		"fp16": `"fp16"`, "res=int4": `"int4"`, "vocoder=int8": `"vocoder"`, "res=int8+bf16": `"bf16"`, "": `""`, "mixed+res=int8": `"mixed"`,
	} {
		if _, err := codec.ParsePrecision(in); err == nil || !strings.Contains(err.Error(), part) {
			t.Errorf("ParsePrecision(%q): error %v, want one naming %s", in, err, part)
		}
	}
}

// TestFamilySpecStreams: a model built from a per-family spec streams
// exactly (pushes in pieces give the bits of one call) and differs from
// fp32 (the spec reached its layers).
func TestFamilySpecStreams(t *testing.T) {
	ref := tinyModel(t, "fp32")
	m := tinyModel(t, "bf16+transformer=fp32+res=int8")
	if got := m.Precision(); got != "bf16+transformer=fp32+res=int8" {
		t.Fatalf("Precision() = %q", got)
	}
	r := rand.New(rand.NewPCG(7, 8))
	codes := randomCodes(r, 9, m.Config().CodebookSize)
	s, _ := m.NewStream()
	defer s.Close()
	rs, _ := ref.NewStream()
	defer rs.Close()
	want := decodeSplit(t, m, s, codes, []int{len(codes)})
	if firstDiff(want, decodeSplit(t, ref, rs, codes, []int{len(codes)})) < 0 {
		t.Fatal("the spec decodes the bits of fp32")
	}
	for _, pushes := range [][]int{{1, 1, 1, 1, 1, 1, 1, 1, 1}, {2, 5, 2}, {4, 5}} {
		if err := s.Reset(); err != nil {
			t.Fatal(err)
		}
		got := decodeSplit(t, m, s, codes, pushes)
		if i := firstDiff(got, want); i >= 0 {
			t.Fatalf("pushes %v: sample %d = %v, one call gives %v", pushes, i, got[i], want[i])
		}
	}
}
