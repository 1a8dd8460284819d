package predictor

import "github.com/omni-tts/omni/safetensors"

// Source is where a model's weights come from: a checkpoint directory or a
// synthetic model. A loader reads one tensor (or some rows of one) at a time
// into its own memory, so peak memory stays at one tensor.
type Source interface {
	// Config returns the model's configuration (validated).
	Config() *Config
	// Tensors returns every tensor the source holds, sorted by name.
	Tensors() []safetensors.TensorInfo
	// ReadF32 converts the named tensor into dst (len(dst) = element count).
	ReadF32(name string, dst []float32) error
	// ReadRowsF32 converts rows row0 .. row0+n-1 (first dimension) of the
	// named tensor into dst (len(dst) = n × row length).
	ReadRowsF32(name string, row0, n int, dst []float32) error
	// Close releases the source; reads after Close fail.
	Close() error
}
