package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/omni-tts/omni/sampler"
	"github.com/omni-tts/omni/testvectors"
)

// Bounds of the size-like flags: every count a user gives is checked
// against one of these before anything is allocated, so a typo is refused
// by name instead of exhausting threads or memory.
const (
	maxThreads  = 1024    // --threads, OMNI_THREADS, sweep thread counts
	maxStreams  = 1024    // --streams, sweep stream counts
	maxFrames   = 1 << 20 // any frame count (23 hours of audio at 80 ms)
	maxHopDepth = 4096    // --hop-depth (chunks queued for the codec stage)
	maxRepeat   = 1000    // --repeat, --reps
	maxVocab    = 1 << 20 // bench sampler --vocab
	maxCalls    = 1 << 20 // bench sampler --calls
	maxGiB      = 64      // bench kernels --gib (four sets of this size are allocated)
)

// inRange refuses v outside [lo, hi], naming the flag and its bound (a
// usage error: exit 80, as every other bad flag value).
func inRange(flag string, v, lo, hi int) error {
	if v < lo || v > hi {
		return usageErrorf("%s %d outside [%d, %d]", flag, v, lo, hi)
	}
	return nil
}

// usageError is a bad command line found after parsing (a value out of its
// bound, flags that exclude each other): the process exits exitUsage, as
// for the errors kong finds.
type usageError struct{ msg string }

// usageErrorf returns a *usageError with the formatted message.
func usageErrorf(format string, a ...any) error {
	return &usageError{msg: fmt.Sprintf(format, a...)}
}

// Error implements error.
func (e *usageError) Error() string { return e.msg }

// ExitCode implements exitCoder.
func (e *usageError) ExitCode() int { return exitUsage }

// cliVars are the ${…} values of the flags' defaults and help: the bounds
// above and the Qwen3-TTS sampling contract's defaults (one definition, in
// sampler.DefaultQwen3TTS).
func cliVars() kong.Vars {
	c := sampler.DefaultQwen3TTS()
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	return kong.Vars{
		"max_threads": strconv.Itoa(maxThreads), "max_streams": strconv.Itoa(maxStreams),
		"codec_precision_help": codecPrecisionHelp,
		"max_frames":           strconv.Itoa(maxFrames), "max_hop_depth": strconv.Itoa(maxHopDepth), "max_repeat": strconv.Itoa(maxRepeat),
		"talker_temperature": f(c.Talker.Temperature), "talker_top_k": strconv.Itoa(c.Talker.TopK),
		"talker_top_p": f(c.Talker.TopP), "talker_min_p": f(c.Talker.MinP),
		"talker_repetition_penalty": f(c.Talker.RepetitionPenalty), "talker_min_tokens": strconv.Itoa(c.Talker.MinTokens),
		"predictor_temperature": f(c.Predictor.Temperature), "predictor_top_k": strconv.Itoa(c.Predictor.TopK),
		"predictor_top_p":   f(c.Predictor.TopP),
		"conformance_kinds": strings.Join(testvectors.Kinds(), ", "),
		"default_model":     defaultModel,
	}
}

// bound is one size-like flag's value and its allowed range.
type bound struct {
	flag      string
	v, lo, hi int
}

// checkBounds refuses the first value outside its range, naming the
// command, the flag and the bound.
func checkBounds(cmd string, bs ...bound) error {
	for _, b := range bs {
		if err := inRange(b.flag, b.v, b.lo, b.hi); err != nil {
			return fmt.Errorf("%s: %w", cmd, err)
		}
	}
	return nil
}
