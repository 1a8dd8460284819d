package main

// modelCmd groups the model subcommands: "omni model synth" writes a
// synthetic checkpoint, "omni model inspect" describes one.
type modelCmd struct {
	Synth   modelSynthCmd   `cmd:"" help:"Write a deterministic synthetic Qwen3-TTS checkpoint (HF layout, bf16)."`
	Inspect modelInspectCmd `cmd:"" help:"Describe a checkpoint directory or synth:SIZE model: geometry, tensors, bytes."`
}
