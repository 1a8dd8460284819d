package predictor

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"github.com/omni-tts/omni/safetensors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestWriteHFRoundTrip writes the tiny synthetic models as HF directories and
// reads them back: the same config, the same tensor names and shapes, and
// every value equal to the synthetic value rounded to bf16.
func TestWriteHFRoundTrip(t *testing.T) {
	for _, size := range []string{"tiny", "tiny-wide"} {
		t.Run(size, func(t *testing.T) {
			src := mustSynth(t, size, true, 3)
			dir := filepath.Join(t.TempDir(), "model")
			if err := WriteHF(src, dir); err != nil {
				t.Fatal(err)
			}
			back, err := OpenModel(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer back.Close()
			if !reflect.DeepEqual(back.Config(), src.Config()) {
				t.Errorf("config read back:\n%+v\nwant\n%+v", back.Config(), src.Config())
			}
			want, got := src.Tensors(), back.Tensors()
			if len(got) != len(want) {
				t.Fatalf("%d tensors read back, want %d", len(got), len(want))
			}
			for i := range want {
				w, g := want[i], got[i]
				if g.Name != w.Name || !slices.Equal(g.Shape, w.Shape) || g.DType != safetensors.BF16 {
					t.Fatalf("tensor %d: %s %v %s, want %s %v BF16", i, g.Name, g.Shape, g.DType, w.Name, w.Shape)
				}
				a, b := make([]float32, w.Elems()), make([]float32, w.Elems())
				if err := src.ReadF32(w.Name, a); err != nil {
					t.Fatal(err)
				}
				if err := back.ReadF32(w.Name, b); err != nil {
					t.Fatal(err)
				}
				for j := range a {
					// Reference rounding written plainly: keep the upper 16 bits of
					// the float32, adding half an ulp with ties to even.
					bits := math.Float32bits(a[j])
					r := (bits + 0x7fff + (bits>>16)&1) &^ 0xffff
					if math.Float32bits(b[j]) != r {
						t.Fatalf("%s[%d] = %g, want bf16(%g) = %g", w.Name, j, b[j], a[j], math.Float32frombits(r))
					}
				}
			}
			if size == "tiny-wide" && !back.Config().HasProjection() {
				t.Error("tiny-wide read back without small_to_mtp_projection")
			}
		})
	}
}

// hfTensors returns the tiny model's tensors as bf16 WriteTensors, for tests
// that build broken checkpoints.
func hfTensors(t *testing.T) (*Config, []safetensors.WriteTensor) {
	t.Helper()
	src := mustSynth(t, "tiny", false, 1)
	var out []safetensors.WriteTensor
	for _, ti := range src.Tensors() {
		v := make([]float32, ti.Elems())
		if err := src.ReadF32(ti.Name, v); err != nil {
			t.Fatal(err)
		}
		out = append(out, safetensors.WriteTensor{Name: ti.Name, DType: safetensors.BF16, Shape: ti.Shape, Data: safetensors.EncodeBF16(v)})
	}
	return src.Config(), out
}

// writeDir writes config files and tensors as a checkpoint directory.
func writeDir(t *testing.T, cfg *Config, ts []safetensors.WriteTensor) string {
	t.Helper()
	dir := t.TempDir()
	c, g, err := EncodeConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, ConfigFile), c, 0o644)
	os.WriteFile(filepath.Join(dir, GenerationFile), g, 0o644)
	if ts != nil {
		if err := safetensors.Write(filepath.Join(dir, WeightsFile), ts, nil); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestOpenCheckpointRefuses(t *testing.T) {
	cfg, base := hfTensors(t)
	edit := func(f func([]safetensors.WriteTensor) []safetensors.WriteTensor) []safetensors.WriteTensor {
		ts := slices.Clone(base)
		return f(ts)
	}
	find := func(ts []safetensors.WriteTensor, name string) int {
		for i := range ts {
			if ts[i].Name == name {
				return i
			}
		}
		t.Fatalf("no %s", name)
		return -1
	}
	t.Run("wrong shape", func(t *testing.T) {
		ts := edit(func(ts []safetensors.WriteTensor) []safetensors.WriteTensor {
			i := find(ts, "talker.model.norm.weight")
			ts[i] = safetensors.WriteTensor{Name: ts[i].Name, DType: safetensors.BF16, Shape: []int{63}, Data: ts[i].Data[:126]}
			return ts
		})
		_, err := OpenModel(writeDir(t, cfg, ts))
		var se *ShapeError
		if !errors.As(err, &se) || !errors.Is(err, ErrShape) || se.Name != "talker.model.norm.weight" ||
			!slices.Equal(se.Got, []int{63}) || !slices.Equal(se.Want, []int{64}) ||
			!strings.Contains(err.Error(), "model.safetensors: tensor talker.model.norm.weight: shape [63], config says [64]") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("missing tensor", func(t *testing.T) {
		ts := edit(func(ts []safetensors.WriteTensor) []safetensors.WriteTensor {
			return slices.Delete(ts, find(ts, "talker.code_predictor.lm_head.9.weight"), find(ts, "talker.code_predictor.lm_head.9.weight")+1)
		})
		_, err := OpenModel(writeDir(t, cfg, ts))
		var te *safetensors.TensorError
		if !errors.Is(err, ErrNoTensor) || !errors.As(err, &te) || te.Name != "talker.code_predictor.lm_head.9.weight" {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("NaN in a norm weight", func(t *testing.T) {
		const name = "talker.code_predictor.model.layers.1.post_attention_layernorm.weight"
		ts := edit(func(ts []safetensors.WriteTensor) []safetensors.WriteTensor {
			i := find(ts, name)
			d := slices.Clone(ts[i].Data)
			binary.LittleEndian.PutUint16(d[2*17:], 0x7fc0) // bf16 NaN at index 17
			ts[i].Data = d
			return ts
		})
		_, err := OpenModel(writeDir(t, cfg, ts))
		var te *safetensors.TensorError
		if !errors.Is(err, ErrNonFinite) || !errors.As(err, &te) || te.Name != name || te.Index != 17 ||
			!strings.Contains(err.Error(), name+" [17]") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("int dtype for a weight", func(t *testing.T) {
		ts := edit(func(ts []safetensors.WriteTensor) []safetensors.WriteTensor {
			i := find(ts, "talker.model.layers.0.self_attn.q_norm.weight")
			ts[i].DType = safetensors.I16
			return ts
		})
		_, err := OpenModel(writeDir(t, cfg, ts))
		if !errors.Is(err, ErrDType) || !strings.Contains(err.Error(), "q_norm") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("truncated file", func(t *testing.T) {
		dir := writeDir(t, cfg, base)
		p := filepath.Join(dir, WeightsFile)
		st, _ := os.Stat(p)
		os.Truncate(p, st.Size()-1)
		_, err := OpenModel(dir)
		if !errors.Is(err, ErrTruncated) || !strings.Contains(err.Error(), p) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("no weights", func(t *testing.T) {
		_, err := OpenModel(writeDir(t, cfg, nil))
		if !errors.Is(err, ErrNoTensor) || !strings.Contains(err.Error(), IndexFile) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("config missing field", func(t *testing.T) {
		dir := writeDir(t, cfg, base[:1])
		b, _ := os.ReadFile(filepath.Join(dir, ConfigFile))
		var m map[string]any
		json.Unmarshal(b, &m)
		delete(m["talker_config"].(map[string]any), "num_code_groups")
		b, _ = json.Marshal(m)
		os.WriteFile(filepath.Join(dir, ConfigFile), b, 0o644)
		_, err := OpenModel(dir)
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "talker_config.num_code_groups missing") || !strings.Contains(err.Error(), dir) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("no config", func(t *testing.T) {
		if _, err := OpenModel(t.TempDir()); err == nil || !strings.Contains(err.Error(), ConfigFile) {
			t.Fatalf("err = %v", err)
		}
	})
}

// TestShardedCheckpoint splits the tiny model over two shards with an index.
func TestShardedCheckpoint(t *testing.T) {
	cfg, ts := hfTensors(t)
	dir := writeDir(t, cfg, nil)
	half := len(ts) / 2
	shards := map[string][]safetensors.WriteTensor{
		"model-00001-of-00002.safetensors": ts[:half],
		"model-00002-of-00002.safetensors": ts[half:],
	}
	wm := map[string]string{}
	for file, part := range shards {
		if err := safetensors.Write(filepath.Join(dir, file), part, nil); err != nil {
			t.Fatal(err)
		}
		for _, x := range part {
			wm[x.Name] = file
		}
	}
	writeIndex := func(wm map[string]string) {
		b, _ := json.Marshal(map[string]any{"metadata": map[string]any{"total_size": 1}, "weight_map": wm})
		os.WriteFile(filepath.Join(dir, IndexFile), b, 0o644)
	}
	writeIndex(wm)
	src, err := OpenModel(dir)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(src.Tensors()); n != len(ts) {
		t.Errorf("%d tensors, want %d", n, len(ts))
	}
	last := ts[len(ts)-1]
	got := make([]float32, len(last.Data)/2)
	if err := src.ReadF32(last.Name, got); err != nil {
		t.Fatal(err)
	}
	for i := range got {
		if got[i] != safetensors.BF16ToF32(binary.LittleEndian.Uint16(last.Data[2*i:])) {
			t.Fatalf("%s[%d] = %g", last.Name, i, got[i])
		}
	}
	src.Close()
	// An index that puts a tensor in the wrong shard is refused.
	wm[ts[0].Name] = "model-00002-of-00002.safetensors"
	writeIndex(wm)
	if _, err := OpenModel(dir); !errors.Is(err, ErrNoTensor) || !strings.Contains(err.Error(), ts[0].Name) {
		t.Errorf("wrong shard err = %v", err)
	}
	wm[ts[0].Name] = "../x.safetensors"
	writeIndex(wm)
	if _, err := OpenModel(dir); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "not a file name") {
		t.Errorf("path escape err = %v", err)
	}
}
