package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/alecthomas/kong"

	"github.com/omni-tts/omni/simd"
)

// Exit codes of the omni binary.
const (
	exitOK          = 0
	exitError       = 1
	exitConformance = 2
	exitUsage       = 80
)

// Globals are the flags every command accepts.
type Globals struct {
	Threads int    `help:"Worker threads for the kernels (0 = physical cores)." default:"0" env:"OMNI_THREADS"`
	Kernels string `help:"Force a kernel level: ${enum}; empty picks the best this CPU has." enum:",generic,avx2,avx512vnni" default:"" env:"OMNI_KERNELS"`
	Verbose bool   `short:"v" help:"Log more to stderr."`
	// CPUProfile names a file for a Go CPU profile of the whole command.
	CPUProfile string `name:"cpuprofile" help:"Write a Go CPU profile of the command to this file (go tool pprof)." type:"path"`

	Stdout io.Writer `kong:"-"`
	Stderr io.Writer `kong:"-"`
}

// CLI is the root of the omni command tree. Each command lives in its own
// file as one struct with a Run(*Globals, context.Context) error method.
type CLI struct {
	Globals

	Version     versionCmd     `cmd:"" help:"Print the build, the CPU features found and the kernel level in use."`
	Conformance conformanceCmd `cmd:"" help:"Replay conformance suites (docs/TESTVECTORS.md); exit 2 when a case fails."`
	Bench       benchCmd       `cmd:"" help:"Benchmarks; every figure comes with its floor measured in the same run."`
	Stats       statsCmd       `cmd:"" help:"Step statistics: merge per-process dumps into an attribution table."`
	Profile     profileCmd     `cmd:"" help:"Print the resolved deploy profile and how each number was derived."`
	Run         runCmd         `cmd:"" help:"Generate one stream of codec frames (built-in synthetic 0.6B model and demo prompt by default)."`
	Sweep       sweepCmd       `cmd:"" help:"Run bench e2e over thread and stream counts; write summary.json, summary.md and a chart."`
	Model       modelCmd       `cmd:"" help:"Synthetic checkpoints and checkpoint inspection (synth, inspect)."`
	Serve       serveCmd       `cmd:"" help:"Serve the OpenAI-compatible speech API, a playground page and metrics."`
	Loadtest    loadtestCmd    `cmd:"" help:"Open many speech streams against a server; report TTFA, RTF, 429s and lost audio."`
}

// exitCoder lets a command choose the process exit status (conformance
// failures exit 2).
type exitCoder interface{ ExitCode() int }

// parserExit carries kong's exit request (after --help) out of Parse.
type parserExit int

// run parses args with a fresh parser and runs the chosen command.
func run(args []string, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(parserExit)
			if !ok {
				panic(r)
			}
			code = int(e)
		}
	}()
	var cli CLI
	cli.Stdout, cli.Stderr = stdout, stderr
	ctx := context.Background()
	parser, err := kong.New(&cli,
		kong.BindTo(ctx, (*context.Context)(nil)),
		kong.Name("omni"),
		kong.Description("Qwen3-TTS speech codes on ordinary CPUs, many streams at once."),
		kong.Writers(stdout, stderr),
		kong.Exit(func(c int) { panic(parserExit(c)) }),
		kong.UsageOnError(),
	)
	if err != nil {
		fmt.Fprintf(stderr, "omni: %v\n", err)
		return exitError
	}
	kctx, err := parser.Parse(args)
	if err != nil {
		fmt.Fprintf(stderr, "omni: %v\n", err)
		return exitUsage
	}
	if kctx == nil || kctx.Command() == "" {
		return exitOK // --help was printed
	}
	if err := applyKernels(&cli.Globals); err != nil {
		fmt.Fprintf(stderr, "omni: %v\n", err)
		return exitError
	}
	stopProfile, err := startCPUProfile(cli.CPUProfile)
	if err != nil {
		fmt.Fprintf(stderr, "omni: %v\n", err)
		return exitError
	}
	err = kctx.Run(&cli.Globals)
	if perr := stopProfile(); perr != nil && err == nil {
		err = perr
	}
	if err != nil {
		var ec exitCoder
		if errors.As(err, &ec) {
			fmt.Fprintf(stderr, "omni: %v\n", err)
			return ec.ExitCode()
		}
		fmt.Fprintf(stderr, "omni: %v\n", err)
		return exitError
	}
	return exitOK
}

// kernelThreads is --threads, or the physical core count when it is 0.
func (g *Globals) kernelThreads() int {
	if g.Threads > 0 {
		return g.Threads
	}
	return simd.DefaultThreads()
}

// applyKernels makes the --kernels choice (or OMNI_KERNELS) active, refusing
// a level this CPU lacks.
func applyKernels(g *Globals) error {
	if g.Kernels == "" {
		return nil
	}
	l, err := simd.ParseLevel(g.Kernels)
	if err != nil {
		return err
	}
	return simd.Select(l)
}
