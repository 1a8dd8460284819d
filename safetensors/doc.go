// Package safetensors reads and writes the safetensors format (a JSON header
// of tensor names, dtypes, shapes and byte ranges, then the raw little-endian
// data), memory-mapped where the platform allows. It is portable (builds for
// wasip1) and imports the standard library only.
package safetensors
