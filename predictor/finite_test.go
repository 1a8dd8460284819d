package predictor_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/omni-tts/omni/safetensors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/omni-tts/omni/predictor"
)

// checkpoints holds one checkpoint per synthetic size, written once by
// WriteHF, that damagedCheckpoint copies and pokes.
type checkpoints map[string]string

// damaged copies the checkpoint of synth:size (written on first use) into a
// new directory with element idx of tensor name set to bf16(v), and returns
// the directory.
func (cs checkpoints) damaged(t *testing.T, size, name string, idx int, v float32) string {
	t.Helper()
	base, ok := cs[size]
	if !ok {
		src, err := predictor.NewSynth(size, false, 1)
		if err != nil {
			t.Fatal(err)
		}
		base = t.TempDir()
		if err := predictor.WriteHF(src, base); err != nil {
			t.Fatal(err)
		}
		cs[size] = base
	}
	dir := t.TempDir()
	for _, f := range []string{predictor.ConfigFile, predictor.GenerationFile, predictor.WeightsFile} {
		b, err := os.ReadFile(filepath.Join(base, f))
		if err != nil {
			t.Fatal(err)
		}
		if f == predictor.WeightsFile {
			st, err := safetensors.Open(filepath.Join(base, f))
			if err != nil {
				t.Fatal(err)
			}
			info, ok := st.Info(name)
			st.Close()
			if !ok || info.DType != safetensors.BF16 || int64(idx) >= info.Elems() {
				t.Fatalf("%s: no bf16 tensor %s with element %d", size, name, idx)
			}
			// The data area follows the 8-byte header length and the header.
			at := 8 + int64(binary.LittleEndian.Uint64(b)) + info.Offset + 2*int64(idx)
			binary.LittleEndian.PutUint16(b[at:], safetensors.BF16FromF32(v))
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestDamagedCheckpoints pokes one NaN or infinity into one tensor of a
// checkpoint written by WriteHF and expects the error to name the tensor and the
// element, wrapping ErrNonFinite: at open for the tables read on demand and
// the norms (CheckFinite), at load for every other weight (the checkpoint's
// whole-tensor read, before any upload, so the message is predictor's, not
// the backend's), in both precisions and with and without the
// small_to_mtp_projection. ScanFinite lists the damaged tensor.
func TestDamagedCheckpoints(t *testing.T) {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	ninf := float32(math.Inf(-1))
	const tp, cp = "talker.model.", "talker.code_predictor."
	cases := []struct {
		size  string
		name  string
		idx   int
		value float32
		open  bool   // refused by OpenModel, else by LoadWeights
		want  string // the value as the message prints it
	}{
		{"tiny", tp + "text_embedding.weight", 7*64 + 3, nan, true, "NaN"},
		{"tiny", tp + "text_embedding.weight", 0, inf, true, "+Inf"},
		{"tiny-wide", tp + "text_embedding.weight", 200*64 - 1, ninf, true, "-Inf"},
		{"tiny", tp + "norm.weight", 5, inf, true, "+Inf"},
		{"tiny", tp + "layers.0.self_attn.q_proj.weight", 100, nan, false, "NaN"},
		{"tiny", tp + "layers.1.self_attn.v_proj.weight", 31, ninf, false, "-Inf"},
		{"tiny", tp + "layers.0.self_attn.q_norm.weight", 2, nan, true, "NaN"},
		{"tiny", tp + "layers.1.self_attn.o_proj.weight", 77, nan, false, "NaN"},
		{"tiny", tp + "layers.0.mlp.down_proj.weight", 1000, inf, false, "+Inf"},
		{"tiny", "talker.codec_head.weight", 9, nan, false, "NaN"},
		{"tiny", "talker.text_projection.linear_fc1.bias", 3, inf, false, "+Inf"},
		{"tiny", "talker.text_projection.linear_fc2.weight", 12, nan, false, "NaN"},
		{"tiny", tp + "codec_embedding.weight", 64*5 + 1, nan, false, "NaN"},
		{"tiny", cp + "model.codec_embedding.2.weight", 40, inf, false, "+Inf"},
		{"tiny-wide", cp + "model.codec_embedding.0.weight", 3, nan, false, "NaN"},
		{"tiny-wide", cp + "small_to_mtp_projection.weight", 17, nan, false, "NaN"},
		{"tiny", cp + "lm_head.4.weight", 63, ninf, false, "-Inf"},
		{"tiny", cp + "model.layers.0.mlp.gate_proj.weight", 8, nan, false, "NaN"},
	}
	cs := checkpoints{}
	for _, c := range cases {
		dir := cs.damaged(t, c.size, c.name, c.idx, c.value)
		want := fmt.Sprintf("%s: tensor %s [%d]: non-finite weight: value %s",
			filepath.Join(dir, predictor.WeightsFile), c.name, c.idx, c.want)
		check := func(what string, err error) {
			t.Helper()
			var te *safetensors.TensorError
			if !errors.Is(err, predictor.ErrNonFinite) || !errors.As(err, &te) || te.Name != c.name || te.Index != c.idx ||
				!strings.Contains(err.Error(), want) {
				t.Errorf("%s %s[%d] = %v: %s error %v, want one containing %q", c.size, c.name, c.idx, c.value, what, err, want)
			}
		}
		src, err := predictor.OpenModel(dir)
		if c.open {
			check("OpenModel", err)
			continue
		}
		if err != nil {
			t.Fatalf("%s %s: OpenModel: %v (want the load to refuse it)", c.size, c.name, err)
		}
		bad, err := predictor.ScanFinite(src)
		if err != nil || len(bad) != 1 || bad[0].Name != c.name || bad[0].First != c.idx || bad[0].Count != 1 ||
			math.Float32bits(bad[0].Value) != math.Float32bits(c.value) && c.value == c.value {
			t.Errorf("%s %s[%d] = %v: ScanFinite = %+v, %v; want that one value", c.size, c.name, c.idx, c.value, bad, err)
		}
		for _, prec := range []predictor.Precision{predictor.FP32, predictor.Int8} {
			w, err := predictor.LoadWeights(src, newBackend(t), prec)
			if err == nil {
				w.Free()
			}
			check("LoadWeights("+prec.String()+")", err)
		}
		src.Close()
	}
}

// TestCheckFiniteSynth: the synthetic models are finite, so CheckFinite
// and ScanFinite pass on them (and on an undamaged written checkpoint, above, OpenModel
// does not refuse).
func TestCheckFiniteSynth(t *testing.T) {
	for _, size := range []string{"tiny", "tiny-wide"} {
		src, err := predictor.NewSynth(size, true, 3)
		if err != nil {
			t.Fatal(err)
		}
		if err := predictor.CheckFinite(src); err != nil {
			t.Errorf("CheckFinite(synth:%s+outliers@3) = %v", size, err)
		}
		if bad, err := predictor.ScanFinite(src); err != nil || len(bad) != 0 {
			t.Errorf("ScanFinite(synth:%s+outliers@3) = %+v, %v; want none", size, bad, err)
		}
	}
}
