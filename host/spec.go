package host

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/omni-tts/omni/hub"
	"github.com/omni-tts/omni/predictor"
)

// ModelSpec is a parsed --model spec, one of
//
//   - "synth:SIZE[+outliers][@SEED]": a synthetic model (predictor.ParseSynth);
//   - a checkpoint directory (any spec that names an existing path, or that
//     is not shaped ORG/NAME);
//   - "ORG/NAME[@REV]": a model pulled into the Hugging Face cache (omni
//     pull), looked up by Resolve.
//
// Every host-side user of a model spec parses it here once and resolves it
// once (Resolve) into the locations of its weights, codec and tokenizer.
type ModelSpec struct {
	raw   string
	synth *predictor.Synth
}

// ParseModelSpec parses spec. It refuses the empty spec and a malformed
// synth: spec (errors wrap predictor.ErrSpec); a path or hub id is checked
// by Resolve.
func ParseModelSpec(spec string) (ModelSpec, error) {
	if spec == "" {
		return ModelSpec{}, fmt.Errorf("%w: empty model spec (a checkpoint directory, ORG/NAME or synth:SIZE)", predictor.ErrSpec)
	}
	s, ok, err := predictor.ParseSynth(spec)
	if err != nil {
		return ModelSpec{}, err
	}
	m := ModelSpec{raw: spec}
	if ok {
		m.synth = &s
	}
	return m, nil
}

// String returns the spec as given.
func (m ModelSpec) String() string { return m.raw }

// Synth returns the synthetic model m names, ok false when m is a
// directory or hub id.
func (m ModelSpec) Synth() (predictor.Synth, bool) {
	if m.synth == nil {
		return predictor.Synth{}, false
	}
	return *m.synth, true
}

// ModelFiles are where a resolved model spec's parts live. For a synthetic
// model every location is "" and Synth is set.
type ModelFiles struct {
	// Spec is the spec resolved.
	Spec ModelSpec
	// Synth is the synthetic model (nil for a checkpoint).
	Synth *predictor.Synth
	// Weights is the checkpoint directory (config.json, model.safetensors).
	Weights string
	// Codec is the codec directory: <Weights>/speech_tokenizer when it
	// exists, else Weights (codec.Load names what is missing).
	Codec string
	// Tokenizer is the directory holding the tokenizer files (the
	// checkpoint's; text.Load falls back to the built-in one when absent).
	Tokenizer string
}

// Resolve finds m's files: nothing to look up for a synthetic model; a
// hub id becomes its snapshot directory in the Hugging Face cache (an
// error says to run omni pull when it is not there); a directory is taken
// as given (OpenSource names what is missing).
func (m ModelSpec) Resolve() (ModelFiles, error) {
	if m.raw == "" {
		return ModelFiles{}, fmt.Errorf("%w: empty model spec", predictor.ErrSpec)
	}
	if m.synth != nil {
		return ModelFiles{Spec: m, Synth: m.synth}, nil
	}
	dir, _, err := hub.Resolve(m.raw)
	if err != nil {
		return ModelFiles{}, err
	}
	f := ModelFiles{Spec: m, Weights: dir, Codec: dir, Tokenizer: dir}
	if st := filepath.Join(dir, "speech_tokenizer"); isDir(st) {
		f.Codec = st
	}
	return f, nil
}

// OpenSource opens the model's weights: the synthetic model, or the
// checkpoint (predictor.OpenCheckpoint).
func (f ModelFiles) OpenSource() (predictor.Source, error) {
	if f.Synth != nil {
		return f.Synth.Open()
	}
	if f.Weights == "" {
		return nil, fmt.Errorf("%w: model %q resolved to no directory", predictor.ErrSpec, f.Spec)
	}
	return predictor.OpenCheckpoint(f.Weights)
}

// ResolveModel parses and resolves spec (ParseModelSpec, then Resolve).
func ResolveModel(spec string) (ModelFiles, error) {
	m, err := ParseModelSpec(spec)
	if err != nil {
		return ModelFiles{}, err
	}
	return m.Resolve()
}

// OpenModel opens a model spec's weights: ResolveModel, then OpenSource.
func OpenModel(spec string) (predictor.Source, error) {
	f, err := ResolveModel(spec)
	if err != nil {
		return nil, err
	}
	return f.OpenSource()
}

// isDir reports whether path is a directory.
func isDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}
