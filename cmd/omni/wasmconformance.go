package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/omni-tts/omni/host"
	"github.com/omni-tts/omni/testvectors"
)

// wasmConformance replays the suites inside the WASI control core (omni
// conformance --wasm) and returns the guest's report.
func wasmConformance(g *Globals, dirs []string, kind string) (*testvectors.Report, error) {
	raw, err := host.Conformance(context.Background(), host.SuiteOptions{
		Dirs: dirs, Kind: kind, Precisions: wasmPrecisions(), Threads: g.Threads, Stderr: g.Stderr,
	})
	if err != nil {
		return nil, err
	}
	var rep testvectors.Report
	if err := json.Unmarshal(raw, &rep); err != nil {
		return nil, fmt.Errorf("conformance: --wasm report: %w", err)
	}
	return &rep, nil
}

// wasmPrecisions is offeredPrecisions less "bf16": a guest uploads its convs
// through the host's conv functions, which take "fp32" and "int8" only
// (host/ops_codec.go convPrec), so bf16 codec cases are skipped under
// --wasm until the host takes bf16 too (the native backend does).
func wasmPrecisions() []string {
	var precs []string
	for _, p := range offeredPrecisions() {
		if p != "bf16" {
			precs = append(precs, p)
		}
	}
	return precs
}
