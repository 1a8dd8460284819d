// Package predictor holds the Qwen3-TTS codec-token models: the checkpoint
// config (config.json, generation_config.json), the safetensors reader and
// writer, deterministic synthetic checkpoints of the exact 0.6B and 1.7B
// geometry, the Qwen3 decoder graph (talker and code predictor), KV caches,
// precisions and parity measurement, and the backend interface the graph runs
// on.
//
// The loading half works one tensor at a time: a Source (a checkpoint
// directory opened with OpenModel, or a synthetic model from NewSynth) lists
// its tensors and converts any of them, or any rows of one, into caller
// memory, so peak memory stays at one tensor. Safetensors files are
// memory-mapped on linux, darwin and the BSDs and read with ReadAt elsewhere
// (wasip1); every header is validated against the file size before any data
// is read.
//
// predictor is portable: it imports only the standard library (no omni
// package), never simd, host, wazero or kong, and builds with GOOS=wasip1
// GOARCH=wasm and with -tags purego.
package predictor
