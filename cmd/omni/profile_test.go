package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/omni-tts/omni/deploy"
)

func TestProfileCommand(t *testing.T) {
	hw := `{"arch": "x86_64", "cpu_model": "test", "cpu_flags": ["avx2", "avx512", "avx512_bf16"], "n_logical": 6, "n_physical": 6, "ram_total_bytes": 17179869184, "ram_available_bytes": 12884901888}`
	t.Setenv(deploy.EnvHWProfile, hw)
	t.Setenv(deploy.EnvCacheDir, t.TempDir())
	t.Setenv(deploy.EnvProfileDir, t.TempDir())
	model := t.TempDir()
	os.WriteFile(filepath.Join(model, "config.json"), []byte(`{"talker_config": {"num_hidden_layers": 28, "num_attention_heads": 16, "num_key_value_heads": 8, "head_dim": 128, "hidden_size": 1024}}`), 0o644)
	os.WriteFile(filepath.Join(model, "model.safetensors"), make([]byte, 4096), 0o644)

	var out, errb bytes.Buffer
	if code := run([]string{"profile", "--model", model, "--json"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var p deploy.Profile
	if err := json.Unmarshal(out.Bytes(), &p); err != nil {
		t.Fatal(err)
	}
	// float32 KV (the engine's): 2 × 28 × 8 × 128 × 4 B; 6 CPUs split 4 / 2.
	if p.Class != deploy.X86CPU || p.BytesPerToken != 229376 || p.MaxNumSeqs != 2 || p.ModelThreads != 4 || p.CodecThreads != 2 || p.Memory.WeightsBytes != 4096 {
		t.Errorf("profile: class %s bpt %d seqs %d threads %d/%d weights %d", p.Class, p.BytesPerToken, p.MaxNumSeqs, p.ModelThreads, p.CodecThreads, p.Memory.WeightsBytes)
	}
	for _, gone := range []string{`"dtype"`, `"kv_dtype"`, `"model_cpus"`, `"codec_cpus"`} {
		if strings.Contains(out.String(), gone) {
			t.Errorf("profile JSON still prints %s, a field the engine does not apply", gone)
		}
	}
	out.Reset()
	if code := run([]string{"profile", "--deploy-profile", "edge", "--threads", "3", "--chunk-ramp", "4,8,25"}, &out, &errb); code != 0 {
		t.Fatalf("edge exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"deploy profile edge", "max_num_seqs", "flag --threads", "[4 8 25]"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("edge output lacks %q:\n%s", want, out.String())
		}
	}
	errb.Reset()
	if code := run([]string{"profile", "--max-num-seqs", "1000"}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "do not fit") {
		t.Errorf("--max-num-seqs 1000: exit %d, %s", code, errb.String())
	}
	// Calibration from a slow measured request (10 frames/s) is cached and
	// then used by auto.
	req := filepath.Join(t.TempDir(), "req.json")
	os.WriteFile(req, []byte(`[[225, 3840], [625, 7680], [1425, 15360], [3025, 30720], [5525, 48000]]`), 0o644)
	out.Reset()
	errb.Reset()
	if code := run([]string{"profile", "--calibrate-from", req, "--json"}, &out, &errb); code != 0 {
		t.Fatalf("calibrate exit %d: %s", code, errb.String())
	}
	if err := json.Unmarshal(out.Bytes(), &p); err != nil {
		t.Fatal(err)
	}
	if p.ChunkMinFrames != 7 || !p.ChunkAdaptive || !strings.Contains(p.Derivation["chunk_ramp"], "calibration") {
		t.Errorf("after calibration: min %d adaptive %v ramp %v (%s)", p.ChunkMinFrames, p.ChunkAdaptive, p.ChunkRamp, p.Derivation["chunk_ramp"])
	}
}
