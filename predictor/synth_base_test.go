package predictor

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/omni-tts/omni/safetensors"
	"github.com/omni-tts/omni/speaker"
)

// TestSynthBaseTensorCount checks synth:0.6b-base against the released
// 0.6B Base checkpoint's tensor census (docs/MODEL.md §2: 478 tensors,
// talker.model. 311, talker.code_predictor. 86, talker.text_projection. 4,
// talker.codec_head. 1, the speaker encoder 76) and its config against the
// released one (tts_model_type base, no spk_id entries, enc_dim 1024).
func TestSynthBaseTensorCount(t *testing.T) {
	src := mustSynth(t, "0.6b-base", false, 1)
	count := map[string]int{}
	for _, ti := range src.Tensors() {
		for _, p := range []string{"talker.model.", "talker.code_predictor.", "talker.text_projection.", "talker.codec_head.", "speaker_encoder."} {
			if strings.HasPrefix(ti.Name, p) {
				count[p]++
			}
		}
	}
	want := map[string]int{"talker.model.": 311, "talker.code_predictor.": 86, "talker.text_projection.": 4, "talker.codec_head.": 1, "speaker_encoder.": 76}
	for p, n := range want {
		if count[p] != n {
			t.Errorf("%s: %d tensors, the released checkpoint has %d", p, count[p], n)
		}
	}
	if n := len(src.Tensors()); n != 478 {
		t.Errorf("%d tensors, the released 0.6B Base has 478", n)
	}
	if !slices.IsSortedFunc(src.Tensors(), func(a, b safetensors.TensorInfo) int { return strings.Compare(a.Name, b.Name) }) {
		t.Error("tensors not sorted by name")
	}
	c := src.Config()
	if c.ModelKind != "base" || len(c.SpeakerIDs) != 0 || c.SpeakerEncoder == nil || c.SpeakerEncoder.EncDim != 1024 {
		t.Fatalf("config: kind %q, %d speakers, speaker encoder %+v", c.ModelKind, len(c.SpeakerIDs), c.SpeakerEncoder)
	}
	// fc is [enc_dim, 2·1536, 1] in the released checkpoint (wave3.md §3.2)
	fc := readAll(t, src, "speaker_encoder.fc.weight")
	if len(fc) != 1024*3072 {
		t.Errorf("speaker_encoder.fc.weight has %d values, want 1024×3072", len(fc))
	}
	cj, _, err := EncodeConfig(c)
	if err != nil {
		t.Fatal(err)
	}
	var top struct {
		Kind string         `json:"tts_model_type"`
		Spk  map[string]any `json:"speaker_encoder_config"`
	}
	if err := json.Unmarshal(cj, &top); err != nil {
		t.Fatal(err)
	}
	// the released config.json gives enc_dim and sample_rate only
	if top.Kind != "base" || len(top.Spk) != 2 || top.Spk["enc_dim"] != 1024.0 || top.Spk["sample_rate"] != 24000.0 {
		t.Errorf("config.json: tts_model_type %q, speaker_encoder_config %v", top.Kind, top.Spk)
	}
}

// TestSynthBaseSizes checks the Base sizes' talker geometry against their
// CustomVoice twins and refuses the ones that do not exist.
func TestSynthBaseSizes(t *testing.T) {
	for _, size := range []string{"tiny", "0.6b", "1.7b"} {
		cv, err := SynthConfig(size)
		if err != nil {
			t.Fatal(err)
		}
		b, err := SynthConfig(size + "-base")
		if err != nil {
			t.Fatal(err)
		}
		if b.Talker != cv.Talker || b.Predictor != cv.Predictor || b.ModelSize != cv.ModelSize {
			t.Errorf("%s-base: geometry differs from %s", size, size)
		}
		if b.SpeakerEncoder.EncDim != b.Talker.Hidden {
			t.Errorf("%s-base: enc_dim %d, talker hidden %d", size, b.SpeakerEncoder.EncDim, b.Talker.Hidden)
		}
	}
	tb, _ := SynthConfig("tiny-base")
	if tb.SpeakerEncoder.EncDim != 64 || tb.SpeakerEncoder.Channels[0] != 32 || tb.SpeakerEncoder.Res2NetScale != 4 {
		t.Errorf("tiny-base speaker encoder %+v, want TinyConfig with enc_dim 64", tb.SpeakerEncoder)
	}
	for _, bad := range []string{"tiny-wide-base", "base", "0.6b-base-base"} {
		if _, _, err := ParseSynth("synth:" + bad); err == nil {
			t.Errorf("synth:%s accepted", bad)
		}
	}
}

// TestSynthBaseWritesSpeakerEncoder writes synth:tiny-base as a checkpoint
// and loads its speaker encoder with speaker.Load: the config reads back,
// and the written weights are speaker.SynthTensor's up to bf16 rounding
// (relative error ≤ 2⁻⁸).
func TestSynthBaseWritesSpeakerEncoder(t *testing.T) {
	src := mustSynth(t, "tiny-base", false, 3)
	dir := t.TempDir()
	if err := WriteHF(src, dir); err != nil {
		t.Fatal(err)
	}
	sc, err := speaker.LoadConfig(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := speaker.TinyConfig()
	want.EncDim = 64
	if !slices.Equal(sc.Channels, want.Channels) || sc.EncDim != 64 || sc.AttentionChannels != want.AttentionChannels {
		t.Errorf("read back %+v, want %+v", sc, want)
	}
	ck, err := OpenCheckpoint(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ck.Close()
	if ck.Config().ModelKind != "base" || ck.Config().SpeakerEncoder == nil || ck.Config().SpeakerEncoder.EncDim != 64 {
		t.Errorf("checkpoint config: kind %q, speaker encoder %+v", ck.Config().ModelKind, ck.Config().SpeakerEncoder)
	}
	f, err := safetensors.Open(filepath.Join(dir, WeightsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, st := range speaker.ExpectedTensors(&want) {
		ref := speaker.SynthTensor(st, 3)
		got := make([]float32, len(ref))
		if err := f.ReadF32(st.Name, got); err != nil {
			t.Fatalf("%s: %v", st.Name, err)
		}
		for i := range ref {
			if abs32(got[i]-ref[i]) > abs32(ref[i])/256 {
				t.Fatalf("%s[%d] = %v, SynthTensor gives %v", st.Name, i, got[i], ref[i])
			}
		}
	}
}

func abs32(x float32) float32 {
	if x < 0 {
		return -x
	}
	return x
}

// TestParseConfigSpeakerEncoder reads speaker_encoder_config on a Base
// config, ignores it on a CustomVoice one (where a serialised default
// would be harmless), and refuses an enc_dim other than the talker's
// hidden size.
func TestParseConfigSpeakerEncoder(t *testing.T) {
	c, _ := SynthConfig("tiny")
	cj, gj, err := EncodeConfig(c)
	if err != nil {
		t.Fatal(err)
	}
	withSpk := func(kind, spk string) []byte {
		s := strings.Replace(string(cj), `"tts_model_type": "custom_voice"`, `"tts_model_type": "`+kind+`", "speaker_encoder_config": `+spk, 1)
		return []byte(s)
	}
	got, err := ParseConfig(withSpk("base", `{"enc_dim": 64, "sample_rate": 24000}`), gj)
	if err != nil {
		t.Fatal(err)
	}
	if got.SpeakerEncoder == nil || got.SpeakerEncoder.EncDim != 64 || got.SpeakerEncoder.Channels[4] != 1536 {
		t.Errorf("base: speaker encoder %+v, want the defaults with enc_dim 64", got.SpeakerEncoder)
	}
	got, err = ParseConfig(withSpk("custom_voice", `{"enc_dim": 1024, "sample_rate": 24000}`), gj)
	if err != nil || got.SpeakerEncoder != nil {
		t.Errorf("custom_voice with a speaker_encoder_config: %v, %+v", err, got)
	}
	if _, err := ParseConfig(withSpk("base", `{"enc_dim": 1024, "sample_rate": 24000}`), gj); err == nil || !strings.Contains(err.Error(), "enc_dim 1024 differs from talker_config.hidden_size 64") {
		t.Errorf("enc_dim 1024 on a 64-wide talker: %v", err)
	}
}
