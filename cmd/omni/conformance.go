package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/omni-tts/omni/codec"
	"github.com/omni-tts/omni/predictor"
	"github.com/omni-tts/omni/simd"
	"github.com/omni-tts/omni/testvectors"
)

// conformanceCmd replays conformance suites (docs/TESTVECTORS.md).
type conformanceCmd struct {
	Dirs []string `arg:"" name:"dir" help:"Suite directories (or case files) to replay."`
	Kind string   `help:"Run only cases of this kind: ${conformance_kinds} (the runner's registry)." default:""`
	JSON bool     `name:"json" help:"Print a machine-readable JSON report instead of text."`
	Wasm bool     `help:"Run the cases inside the WASI control core (wazero; kernels as host functions)."`
}

// conformanceFailure is returned when some case failed; it exits 2.
type conformanceFailure struct{ failed int }

// Error implements error.
func (e conformanceFailure) Error() string {
	return fmt.Sprintf("conformance: %d case(s) failed", e.failed)
}

// ExitCode implements exitCoder: conformance failures exit 2.
func (conformanceFailure) ExitCode() int { return exitConformance }

// Run implements the "omni conformance" command.
func (c *conformanceCmd) Run(g *Globals, _ context.Context) error {
	if c.Kind != "" && !slices.Contains(testvectors.Kinds(), c.Kind) {
		return usageErrorf("conformance: --kind %q unknown (known: %s)", c.Kind, strings.Join(testvectors.Kinds(), ", "))
	}
	var rep *testvectors.Report
	var err error
	if c.Wasm {
		rep, err = wasmConformance(g, c.Dirs, c.Kind)
	} else {
		rep, err = testvectors.Run(c.Dirs, testvectors.Options{Kind: c.Kind}, nativeEnv(g.Threads))
	}
	if err != nil {
		return err
	}
	if c.JSON {
		err = rep.WriteJSON(g.Stdout)
	} else {
		err = rep.WriteText(g.Stdout)
	}
	if err != nil {
		return err
	}
	if rep.Failed > 0 {
		return conformanceFailure{failed: rep.Failed}
	}
	return nil
}

// offeredPrecisions lists every precision predictor and codec offer, in
// both modes (the WASI guest runs the same kernels as host functions).
func offeredPrecisions() []string {
	var precs []string
	for _, p := range predictor.Precisions() {
		precs = append(precs, p.String())
	}
	for _, p := range codec.Precisions() {
		if !slices.Contains(precs, p) {
			precs = append(precs, p)
		}
	}
	return precs
}

// nativeEnv is the conformance environment of the omni binary: every
// precision predictor and codec offer, model kinds on the native simd
// backend.
func nativeEnv(threads int) *testvectors.Env {
	return &testvectors.Env{
		Precisions: offeredPrecisions(),
		Threads:    threads,
		NewBackend: func() (predictor.Backend, func()) {
			b := simd.NewBackend(threads)
			return b, b.Close
		},
	}
}
