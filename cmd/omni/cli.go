package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"sync/atomic"
	"syscall"

	"github.com/alecthomas/kong"

	"github.com/omni-tts/omni/simd"
)

// Exit codes of the omni binary.
const (
	exitOK          = 0
	exitError       = 1
	exitConformance = 2  // a conformance case failed (and nothing else)
	exitBug         = 70 // a Go panic: a bug in omni (sysexits EX_SOFTWARE)
	exitUsage       = 80
	exitSignal      = 128 // + the signal number: 130 after SIGINT, 143 after SIGTERM
)

// Globals are the flags every command accepts.
type Globals struct {
	Threads int    `help:"Worker threads for the kernels, 0..${max_threads} (0 = the deploy profile's model_threads, else the physical cores)." default:"0" env:"OMNI_THREADS"`
	Kernels string `help:"Force a kernel level: ${enum}; empty picks the best this CPU has." enum:",generic,avx2,avx512vnni" default:"" env:"OMNI_KERNELS"`
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
	Say         sayCmd         `cmd:"" help:"Speak a text: write the audio as it is made (WAV, or raw PCM), progress and time to first audio on stderr."`
	Run         runCmd         `cmd:"" help:"Generate one stream of codec frames (built-in synthetic 0.6B model and demo prompt by default)."`
	Sweep       sweepCmd       `cmd:"" help:"Run bench e2e over thread and stream counts; write summary.json, summary.md and a chart."`
	Model       modelCmd       `cmd:"" help:"Synthetic checkpoints and checkpoint inspection (synth, inspect)."`
	Pull        pullCmd        `cmd:"" help:"Download a Qwen3-TTS checkpoint from the Hugging Face hub into the HF cache (then --model ORG/NAME)."`
	Tokenize    tokenizeCmd    `cmd:"" help:"Print the token ids of a text (--decode: the text of ids)."`
	Serve       serveCmd       `cmd:"" help:"Serve the OpenAI-compatible speech API, a playground page and metrics."`
	Loadtest    loadtestCmd    `cmd:"" help:"Open many speech streams against a server; report TTFA, RTF, 429s and lost audio."`
	Decode      decodeCmd      `cmd:"" help:"Decode codec frames (the JSON omni run writes) to a 16-bit PCM WAV."`
	Cache       cacheCmd       `cmd:"" help:"The prepared-weights cache: ls, rm, prune."`
	Voice       voiceCmd       `cmd:"" help:"The voice library for cloning on Base models: add (from a reference clip), ls, rm."`
}

// exitCoder lets a command choose the process exit status (conformance
// failures exit 2).
type exitCoder interface{ ExitCode() int }

// errSignalHandled is returned by a command for which SIGINT or SIGTERM is
// its normal end, handled in full (omni serve drains, then stops): run exits
// 0 instead of 128 + the signal.
var errSignalHandled = errors.New("omni: signal handled")

// parserExit carries kong's exit request (after --help) out of Parse.
type parserExit int

// newParser returns a fresh parser for cli writing to stdout and stderr;
// exit is kong's exit function.
func newParser(cli *CLI, ctx context.Context, stdout, stderr io.Writer, exit func(int)) (*kong.Kong, error) {
	return kong.New(cli,
		kong.BindTo(ctx, (*context.Context)(nil)),
		kong.Name("omni"),
		kong.Description("Qwen3-TTS speech codes on ordinary CPUs, many streams at once."),
		kong.Writers(stdout, stderr),
		kong.Exit(exit),
		kong.UsageOnError(),
		kong.WithHyphenPrefixedParameters(true), // --max-frames -1 is a value (refused by its bound), not a flag
		cliVars(),
	)
}

// run parses args with a fresh parser and runs the chosen command under a
// context that SIGINT and SIGTERM cancel: the command ends its work
// cancelled, flushes what it made and exits 128 + the signal. A closed
// stdout (EPIPE) ends it quietly with 0; a panic is a bug (exit 70).
func run(args []string, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(parserExit); ok {
				code = int(e)
				return
			}
			fmt.Fprintf(stderr, "omni: %v\n", &panicError{value: r, stack: debug.Stack()})
			code = exitBug
		}
	}()
	ctx, sig, stopSignals := signalContext()
	defer stopSignals()
	var cli CLI
	cli.Stdout, cli.Stderr = stdout, stderr
	parser, err := newParser(&cli, ctx, stdout, stderr, func(c int) { panic(parserExit(c)) })
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
	if err := inRange("--threads (OMNI_THREADS)", cli.Threads, 0, maxThreads); err != nil {
		fmt.Fprintf(stderr, "omni: %v\n", err)
		return exitUsage
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
	err = guard(func() error { return kctx.Run(&cli.Globals) })
	if perr := stopProfile(); perr != nil && err == nil {
		err = perr
	}
	if errors.Is(err, errSignalHandled) {
		return exitOK
	}
	if s := sig(); s != 0 {
		if err != nil && !errors.Is(err, context.Canceled) {
			fmt.Fprintf(stderr, "omni: %v\n", err)
		}
		fmt.Fprintf(stderr, "omni: stopped by signal %d\n", s)
		return exitSignal + s
	}
	if err != nil {
		if errors.Is(err, syscall.EPIPE) && !isPanic(err) {
			return exitOK // the reader went away: nothing left to say
		}
		fmt.Fprintf(stderr, "omni: %v\n", err)
		var ec exitCoder
		if errors.As(err, &ec) {
			return ec.ExitCode()
		}
		return exitError
	}
	return exitOK
}

// signalContext returns a context SIGINT and SIGTERM cancel, a func giving
// the number of the signal received (0 if none) and a func that stops
// listening. SIGPIPE is caught too, so that a write to a closed stdout
// fails with EPIPE instead of killing the process.
func signalContext() (context.Context, func() int, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM, syscall.SIGPIPE)
	var got atomic.Int32
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-ch:
				if s == syscall.SIGPIPE {
					continue
				}
				if n, ok := s.(syscall.Signal); ok && got.Load() == 0 {
					got.Store(int32(n))
				}
				cancel()
			case <-done:
				return
			}
		}
	}()
	stop := func() {
		signal.Stop(ch)
		close(done)
		cancel()
	}
	return ctx, func() int { return int(got.Load()) }, stop
}

// kernelThreads is --threads; when it is 0, the first of fallback that is
// positive (an engine command passes the deploy profile's model_threads),
// else the physical core count.
func (g *Globals) kernelThreads(fallback ...int) int {
	if g.Threads > 0 {
		return g.Threads
	}
	for _, t := range fallback {
		if t > 0 {
			return t
		}
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
