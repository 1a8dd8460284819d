package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/omni-tts/omni/hub/hubtest"
)

// synthRepoFiles writes the tiny synthetic checkpoint with "omni model
// synth" and returns its files as a hub repo's.
func synthRepoFiles(t *testing.T) map[string][]byte {
	t.Helper()
	dir := t.TempDir()
	var out, errb bytes.Buffer
	if code := run([]string{"model", "synth", "--size", "tiny", "--seed", "5", "--out", dir}, &out, &errb); code != exitOK {
		t.Fatalf("model synth exit %d: %s", code, errb.String())
	}
	files := map[string][]byte{}
	for _, f := range []string{"config.json", "generation_config.json", "model.safetensors"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		files[f] = b
	}
	return files
}

// TestPullThenInspect pulls the tiny checkpoint from a fake hub whose CDN
// drops the connection a third of the way into the weights, then opens it
// by name with "omni model inspect ORG/NAME" and "omni profile --model".
func TestPullThenInspect(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and pulls a 27 MB checkpoint; the hub package tests cover pull under -short")
	}
	s := hubtest.NewServer()
	defer s.Close()
	files := synthRepoFiles(t)
	repo := s.AddRepo("Qwen/Qwen3-TTS-Tiny", files)
	repo.CutAfter["model.safetensors"] = int64(len(files["model.safetensors"]) / 3)
	cache := t.TempDir()
	t.Setenv("HF_HUB_CACHE", cache)
	t.Setenv("HF_TOKEN", "")

	var out, errb bytes.Buffer
	code := run([]string{"pull", "Qwen/Qwen3-TTS-Tiny", "--endpoint", s.URL}, &out, &errb)
	t.Logf("omni pull stderr:\n%s", errb.String())
	if code != exitOK {
		t.Fatalf("pull exit %d", code)
	}
	snap := filepath.Join(cache, "models--Qwen--Qwen3-TTS-Tiny", "snapshots", repo.Commit)
	if got := strings.TrimSpace(out.String()); got != snap {
		t.Errorf("pull printed %q, want the snapshot %s", got, snap)
	}
	if !strings.Contains(errb.String(), "model.safetensors: resuming at ") || !strings.Contains(errb.String(), "sha256 ok") {
		t.Errorf("pull progress lacks the resume or the sha256 check")
	}

	out.Reset()
	errb.Reset()
	if code := run([]string{"model", "inspect", "Qwen/Qwen3-TTS-Tiny", "--json"}, &out, &errb); code != exitOK {
		t.Fatalf("inspect by name exit %d: %s", code, errb.String())
	}
	var r struct {
		TensorCount int `json:"tensor_count"`
	}
	if err := json.Unmarshal(out.Bytes(), &r); err != nil || r.TensorCount != 83 {
		t.Errorf("inspect Qwen/Qwen3-TTS-Tiny: %d tensors (%v), want the tiny model's 83", r.TensorCount, err)
	}

	out.Reset()
	if code := run([]string{"profile", "--model", "Qwen/Qwen3-TTS-Tiny", "--json"}, &out, &errb); code != exitOK {
		t.Fatalf("profile --model by name exit %d: %s", code, errb.String())
	}
	var p struct {
		Memory struct {
			WeightsBytes int64 `json:"weights_bytes"`
		} `json:"memory"`
	}
	if err := json.Unmarshal(out.Bytes(), &p); err != nil || p.Memory.WeightsBytes != int64(len(files["model.safetensors"])) {
		t.Errorf("profile weights_bytes %d (%v), want the blob's %d", p.Memory.WeightsBytes, err, len(files["model.safetensors"]))
	}

	// A name that was never pulled says what to do.
	errb.Reset()
	if code := run([]string{"model", "inspect", "Qwen/Never-Pulled"}, &out, &errb); code != exitError ||
		!strings.Contains(errb.String(), "run `omni pull Qwen/Never-Pulled`") {
		t.Errorf("unpulled model: exit %d, stderr %q", code, errb.String())
	}
}

// TestPullRefusals: a corrupted blob and a gated repo fail with exit 1 and
// a message naming the file or HF_TOKEN.
func TestPullRefusals(t *testing.T) {
	s := hubtest.NewServer()
	defer s.Close()
	files := map[string][]byte{
		"config.json":       []byte(`{"model_type": "qwen3_tts"}`),
		"model.safetensors": bytes.Repeat([]byte{1, 2, 3, 4}, 1000),
	}
	bad := s.AddRepo("Qwen/Corrupt", files)
	bad.Corrupt["model.safetensors"] = true
	s.AddRepo("Qwen/Gated", files).Token = "hf_right"
	t.Setenv("HF_HUB_CACHE", t.TempDir())
	for _, c := range []struct {
		repo, token string
		want        []string
	}{
		{"Qwen/Corrupt", "", []string{"model.safetensors", "checksum mismatch", "discarded"}},
		{"Qwen/Gated", "hf_wrong", []string{"repo Qwen/Gated", "401", "HF_TOKEN"}},
	} {
		t.Setenv("HF_TOKEN", c.token)
		var out, errb bytes.Buffer
		code := run([]string{"pull", c.repo, "--endpoint", s.URL}, &out, &errb)
		t.Logf("omni pull %s stderr:\n%s", c.repo, errb.String())
		if code != exitError {
			t.Errorf("%s: exit %d, want %d", c.repo, code, exitError)
		}
		for _, w := range c.want {
			if !strings.Contains(errb.String(), w) {
				t.Errorf("%s: stderr does not say %q", c.repo, w)
			}
		}
	}
}
