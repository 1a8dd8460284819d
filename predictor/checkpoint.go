package predictor

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/omni-tts/omni/safetensors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Checkpoint file names in a Hugging Face Qwen3-TTS directory.
const (
	ConfigFile     = "config.json"
	GenerationFile = "generation_config.json"
	WeightsFile    = "model.safetensors"
	IndexFile      = "model.safetensors.index.json"
)

// dirSource is a checkpoint directory: config.json, an optional
// generation_config.json, and model.safetensors or shards listed by
// model.safetensors.index.json. It implements Source.
type dirSource struct {
	dir     string
	cfg     *Config
	files   []*safetensors.File
	byName  map[string]*safetensors.File
	tensors []safetensors.TensorInfo
}

// OpenCheckpoint opens a Hugging Face Qwen3-TTS checkpoint directory, checks
// that every tensor the talker and code predictor need is present with the
// shape the config implies (CheckTensors) and that no norm weight holds a NaN
// or infinity (CheckFinite). Errors name the file and the tensor.
func OpenCheckpoint(dir string) (Source, error) {
	cfgJSON, err := os.ReadFile(filepath.Join(dir, ConfigFile))
	if err != nil {
		return nil, fmt.Errorf("predictor: checkpoint %s: %w", dir, err)
	}
	genJSON, err := os.ReadFile(filepath.Join(dir, GenerationFile))
	if errors.Is(err, fs.ErrNotExist) {
		genJSON, err = nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("predictor: checkpoint %s: %w", dir, err)
	}
	cfg, err := ParseConfig(cfgJSON, genJSON)
	if err != nil {
		return nil, inFile(dir, err)
	}
	s := &dirSource{dir: dir, cfg: cfg, byName: map[string]*safetensors.File{}}
	if err := s.openWeights(); err != nil {
		s.Close()
		return nil, err
	}
	if err := CheckTensors(s); err != nil {
		s.Close()
		return nil, err
	}
	if err := CheckFinite(s); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// openWeights opens model.safetensors, or the shards of the index.
func (s *dirSource) openWeights() error {
	single := filepath.Join(s.dir, WeightsFile)
	if _, err := os.Stat(single); err == nil {
		f, err := safetensors.Open(single)
		if err != nil {
			return err
		}
		s.add(f)
		return nil
	}
	idxPath := filepath.Join(s.dir, IndexFile)
	b, err := os.ReadFile(idxPath)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w: checkpoint %s has neither %s nor %s", ErrNoTensor, s.dir, WeightsFile, IndexFile)
	}
	if err != nil {
		return fmt.Errorf("predictor: %w", err)
	}
	var idx struct {
		WeightMap map[string]string `json:"weight_map"`
	}
	if err := json.Unmarshal(b, &idx); err != nil {
		return inFile(idxPath, errorf(ErrFormat, "%v", err))
	}
	if len(idx.WeightMap) == 0 {
		return inFile(idxPath, formatError("empty weight_map"))
	}
	shards := map[string]*safetensors.File{}
	for _, name := range sortedKeys(idx.WeightMap) {
		file := idx.WeightMap[name]
		if file == "" || filepath.Base(file) != file {
			return inFile(idxPath, formatError("tensor %s: shard %q is not a file name in the checkpoint directory", name, file))
		}
		if _, ok := shards[file]; !ok {
			f, err := safetensors.Open(filepath.Join(s.dir, file))
			if err != nil {
				return err
			}
			shards[file] = f
			s.add(f)
		}
		if _, ok := shards[file].Info(name); !ok {
			return &safetensors.TensorError{File: shards[file].Path(), Name: name, Index: -1,
				Err: fmt.Errorf("%w: %s lists it in this shard", ErrNoTensor, IndexFile)}
		}
	}
	for file, f := range shards {
		for _, name := range f.Names() {
			if idx.WeightMap[name] != file {
				return inFile(idxPath, formatError("tensor %s: in shard %s but weight_map says %q", name, file, idx.WeightMap[name]))
			}
		}
	}
	return nil
}

// add registers a file's tensors; a name held by two shards is caught by the
// weight_map check above (each name maps to one file).
func (s *dirSource) add(f *safetensors.File) {
	s.files = append(s.files, f)
	for _, t := range f.Tensors() {
		s.byName[t.Name] = f
		s.tensors = append(s.tensors, t)
	}
	slices.SortFunc(s.tensors, func(a, b safetensors.TensorInfo) int { return strings.Compare(a.Name, b.Name) })
}

// String returns the checkpoint directory.
func (s *dirSource) String() string { return s.dir }

// Config implements Source.
func (s *dirSource) Config() *Config { return s.cfg }

// Tensors implements Source: every tensor of every shard (including ones
// the graph does not use, such as the speaker encoder), sorted by name.
func (s *dirSource) Tensors() []safetensors.TensorInfo {
	out := make([]safetensors.TensorInfo, len(s.tensors))
	for i, t := range s.tensors {
		t.Shape = append([]int(nil), t.Shape...)
		out[i] = t
	}
	return out
}

// FileOf returns the file holding the named tensor ("" if none).
func (s *dirSource) FileOf(name string) string {
	if f, ok := s.byName[name]; ok {
		return f.Path()
	}
	return ""
}

// ReadF32 implements Source. It refuses a NaN or infinity in the tensor
// (a *TensorError naming the file, the tensor and the element, wrapping
// ErrNonFinite): whole-tensor reads are how LoadWeights reads every weight
// it uploads, so a damaged checkpoint fails at load, where the weights come
// off the disk, before any upload; the per-token path never checks. (The
// check is here rather than in the loader so that a WASI guest replaying
// the host's load, whose source reads nothing, scans nothing.)
func (s *dirSource) ReadF32(name string, dst []float32) error {
	f, ok := s.byName[name]
	if !ok {
		return &safetensors.TensorError{File: s.dir, Name: name, Index: -1, Err: ErrNoTensor}
	}
	if err := f.ReadF32(name, dst); err != nil {
		return err
	}
	return checkFinite(f.Path(), name, dst, 0)
}

// ReadRowsF32 implements Source. It returns the rows as stored: the one
// table served by rows while generating (the text embedding) is checked
// whole when the checkpoint opens (CheckFinite), and ScanFinite reads rows
// to report every damaged tensor rather than stop at the first.
func (s *dirSource) ReadRowsF32(name string, row0, n int, dst []float32) error {
	f, ok := s.byName[name]
	if !ok {
		return &safetensors.TensorError{File: s.dir, Name: name, Index: -1, Err: ErrNoTensor}
	}
	return f.ReadRowsF32(name, row0, n, dst)
}

// Close implements Source.
func (s *dirSource) Close() error {
	var first error
	for _, f := range s.files {
		if err := f.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}
