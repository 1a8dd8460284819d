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
		Dirs: dirs, Kind: kind, Precisions: offeredPrecisions(), Threads: g.Threads, Stderr: g.Stderr,
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
