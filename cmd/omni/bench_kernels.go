package main

import (
	"context"
	"fmt"

	"github.com/omni-tts/omni/bench"
)

// benchKernelsCmd measures the streaming-read floor and the GEMV/GEMM
// kernels on data sets far larger than the L3, in one process.
type benchKernelsCmd struct {
	JSON  bool    `name:"json" help:"Print one JSON object on stdout."`
	Reps  int     `default:"7" help:"Repetitions per figure; medians are reported (${default})."`
	Block int     `default:"32" help:"Quantization block BK for the int8 figures: 32, 64 or 128 (${default})."`
	GiB   float64 `name:"gib" default:"1" help:"Size of each data set in GiB; at least twice the L3 keeps it out of the cache (${default})."`
}

// Run implements "omni bench kernels".
func (c *benchKernelsCmd) Run(g *Globals, _ context.Context) error {
	if err := checkBounds("bench kernels", bound{"--reps", c.Reps, 1, maxRepeat}); err != nil {
		return err
	}
	if c.Block != 32 && c.Block != 64 && c.Block != 128 {
		return usageErrorf("bench kernels: --block %d not 32, 64 or 128", c.Block)
	}
	if !(c.GiB > 0 && c.GiB <= maxGiB) {
		return usageErrorf("bench kernels: --gib %v outside (0, %d]", c.GiB, maxGiB)
	}
	rep, err := bench.Kernels(bench.KernelsOptions{Reps: c.Reps, Block: c.Block, GiB: c.GiB, Threads: g.kernelThreads(), ThreadsGiven: g.Threads > 0},
		func(format string, a ...any) { fmt.Fprintf(g.Stderr, "bench kernels: "+format+"\n", a...) })
	if err != nil {
		return err
	}
	if c.JSON {
		return encodeJSON(g.Stdout, rep, true)
	}
	rep.WriteText(g.Stdout)
	return nil
}
