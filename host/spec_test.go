package host

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/omni-tts/omni/predictor"
)

func TestParseModelSpec(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "speech_tokenizer"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		spec  string
		synth predictor.Synth
		dir   string // Weights when not synth
		codec string
		bad   bool
	}{
		{spec: "synth:tiny", synth: predictor.Synth{Size: "tiny", Seed: 1}},
		{spec: "synth:0.6b+outliers@7", synth: predictor.Synth{Size: "0.6b", Outliers: true, Seed: 7}},
		{spec: dir, dir: dir, codec: filepath.Join(dir, "speech_tokenizer")},
		{spec: "./no/such", dir: "./no/such", codec: "./no/such"},
		{spec: "", bad: true},
		{spec: "synth:2b", bad: true},
		{spec: "synth:tiny+noise", bad: true},
		{spec: "synth:tiny@x", bad: true},
	} {
		f, err := ResolveModel(c.spec)
		if c.bad {
			if !errors.Is(err, predictor.ErrSpec) {
				t.Errorf("ResolveModel(%q) = %v, want an error wrapping ErrSpec", c.spec, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ResolveModel(%q): %v", c.spec, err)
			continue
		}
		if c.dir == "" {
			if f.Synth == nil || *f.Synth != c.synth || f.Weights != "" || f.Tokenizer != "" {
				t.Errorf("ResolveModel(%q) = %+v, want synth %+v", c.spec, f, c.synth)
			}
			continue
		}
		if f.Synth != nil || f.Weights != c.dir || f.Tokenizer != c.dir || f.Codec != c.codec {
			t.Errorf("ResolveModel(%q) = %+v, want weights and tokenizer %s, codec %s", c.spec, f, c.dir, c.codec)
		}
	}
}
