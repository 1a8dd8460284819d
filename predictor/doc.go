// Package predictor holds the Qwen3-TTS codec-token models: the checkpoint
// config (config.json, generation_config.json), checkpoint loading on
// package safetensors (the reader and writer), deterministic synthetic checkpoints of the exact 0.6B and 1.7B
// geometry, the Qwen3 decoder graph (talker and code predictor), KV caches,
// precisions and parity measurement, and the backend interface the graph runs
// on.
//
// The loading half works one tensor at a time: a Source (a checkpoint
// directory opened with OpenModel, or a synthetic model from NewSynth) lists
// its tensors and converts any of them, or any rows of one, into caller
// memory, so peak memory stays at one tensor.
//
// predictor is portable: it imports the standard library and safetensors
// only, never simd, host, wazero or kong, and builds with GOOS=wasip1
// GOARCH=wasm and with -tags purego.
package predictor
