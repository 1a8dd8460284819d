package testvectors

import "github.com/omni-tts/omni/safetensors"

// tensorSource is the sibling safetensors file of a case.
type tensorSource interface {
	F32(name string) ([]float32, []int, error)
	Int64s(name string) ([]int64, []int, error)
	Close() error
}

// openTensors opens a case's sibling safetensors file with the checkpoint
// loader's reader.
func openTensors(path string) (tensorSource, error) {
	return safetensors.Open(path)
}
