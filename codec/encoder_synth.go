package codec

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/omni-tts/omni/safetensors"
)

// WriteSyntheticCodec writes the synthetic codec of seed to dir in the
// speech_tokenizer layout: config.json (decoder_config, and encoder_config
// when enc is not nil) and model.safetensors (F32: every tensor of
// ExpectedTensors and, with enc, of EncoderTensors, optional ones
// included). The encoder's frame must be the decoder's (1920 samples for
// the real geometries).
func WriteSyntheticCodec(dir string, cfg Config, enc *EncoderConfig, seed uint64) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	js, err := cfg.JSON()
	if err != nil {
		return fmt.Errorf("codec: %w", err)
	}
	ts := ExpectedTensors(&cfg)
	if enc != nil {
		if err := enc.Validate(); err != nil {
			return err
		}
		if enc.SamplesPerFrame() != cfg.SamplesPerFrame() {
			return errorf(ErrConfig, "encoder frame of %d samples, the decoder's is %d", enc.SamplesPerFrame(), cfg.SamplesPerFrame())
		}
		var top map[string]any
		if err := json.Unmarshal(js, &top); err != nil {
			return fmt.Errorf("codec: %w", err)
		}
		top["encoder_config"] = enc.JSONSection()
		if js, err = json.MarshalIndent(top, "", "  "); err != nil {
			return fmt.Errorf("codec: %w", err)
		}
		ts = append(ts, EncoderTensors(enc)...)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("codec: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.json"), append(js, '\n'), 0o644); err != nil {
		return fmt.Errorf("codec: %w", err)
	}
	var ws []safetensors.WriteTensor
	for _, t := range ts {
		ws = append(ws, safetensors.WriteTensor{Name: t.Name, DType: safetensors.F32, Shape: t.Shape,
			Stream: func(w io.Writer) error {
				v := SynthTensor(t, seed)
				data := make([]byte, 4*len(v))
				for i, x := range v {
					binary.LittleEndian.PutUint32(data[4*i:], math.Float32bits(x))
				}
				_, err := w.Write(data)
				return err
			}})
	}
	return safetensors.Write(filepath.Join(dir, "model.safetensors"), ws, map[string]string{"format": "pt"})
}
