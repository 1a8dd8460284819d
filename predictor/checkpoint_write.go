package predictor

import (
	"encoding/binary"
	"fmt"
	"github.com/omni-tts/omni/safetensors"
	"io"
	"os"
	"path/filepath"
)

// writeChunk is how many elements WriteHF converts at a time, so writing
// the 151936 × 2048 text embedding never holds it whole.
const writeChunk = 1 << 20

// WriteHF writes src as a Hugging Face Qwen3-TTS checkpoint directory (created
// if needed): config.json and generation_config.json with the checkpoint's key
// names (EncodeConfig), and model.safetensors holding every tensor of src in
// BF16 (rounded to nearest even), read a chunk of rows at a time. OpenModel
// reads the directory back as the same model, up to bf16 rounding.
func WriteHF(src Source, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("predictor: %w", err)
	}
	cfgJSON, genJSON, err := EncodeConfig(src.Config())
	if err != nil {
		return fmt.Errorf("predictor: encode config: %w", err)
	}
	var tensors []safetensors.WriteTensor
	for _, t := range src.Tensors() {
		tensors = append(tensors, safetensors.WriteTensor{Name: t.Name, DType: safetensors.BF16, Shape: t.Shape,
			Stream: func(w io.Writer) error { return streamBF16(src, t, w) }})
	}
	md := map[string]string{"format": "pt"}
	if s, ok := src.(fmt.Stringer); ok {
		md["omni_source"] = s.String()
	}
	if err := safetensors.Write(filepath.Join(dir, WeightsFile), tensors, md); err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		b    []byte
	}{{ConfigFile, cfgJSON}, {GenerationFile, genJSON}} {
		if err := writeFileAtomic(filepath.Join(dir, f.name), f.b); err != nil {
			return err
		}
	}
	return nil
}

// streamBF16 writes tensor t of src as little-endian bf16, whole rows at a
// time (≤ writeChunk elements per read when a row allows).
func streamBF16(src Source, t safetensors.TensorInfo, w io.Writer) error {
	n := t.Elems()
	if n == 0 {
		return nil
	}
	rows, cols := int64(1), n
	if len(t.Shape) >= 2 {
		rows, cols = int64(t.Shape[0]), n/int64(t.Shape[0])
	}
	per := max(1, writeChunk/cols)
	if len(t.Shape) < 2 {
		per = 1
	}
	buf := make([]float32, min(per, rows)*cols)
	out := make([]byte, 2*len(buf))
	for r := int64(0); r < rows; r += per {
		k := min(per, rows-r)
		vals := buf[:k*cols]
		var err error
		if len(t.Shape) >= 2 {
			err = src.ReadRowsF32(t.Name, int(r), int(k), vals)
		} else {
			err = src.ReadF32(t.Name, vals)
		}
		if err != nil {
			return err
		}
		b := out[:2*len(vals)]
		for i, v := range vals {
			binary.LittleEndian.PutUint16(b[2*i:], safetensors.BF16FromF32(v))
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

// writeFileAtomic writes b to path through a temporary file and a rename.
func writeFileAtomic(path string, b []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("predictor: %w", err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return fmt.Errorf("predictor: %w", err)
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return fmt.Errorf("predictor: %w", err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("predictor: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("predictor: %w", err)
	}
	return nil
}
