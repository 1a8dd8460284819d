package core

import (
	"fmt"

	"github.com/omni-tts/omni/codec"
	"github.com/omni-tts/omni/sched"
	"github.com/omni-tts/omni/stats"
)

// Config configures an Engine. Model and IDs are required; every other
// zero field takes the default its comment names.
type Config struct {
	Model Model      // the talker and code predictor
	IDs   SpecialIDs // the model's special ids (IDsFromConfig, Qwen3TTSIDs)

	// MaxBatch bounds the streams running at once (max_num_seqs); 0 means
	// the model's MaxBatch.
	MaxBatch int
	// KVBudgetBytes bounds the talker KV caches of all running streams; a
	// stream reserves its whole length (prompt + frame cap, rounded up to
	// sched's 16-token blocks) at admission, so no stream is ever
	// preempted. 0 means no bound beyond MaxBatch.
	KVBudgetBytes int64
	// MaxWaiting bounds the queue of submitted, not yet admitted requests;
	// 0 means 1024.
	MaxWaiting int

	Limits Limits          // frame caps; zero means DefaultLimits
	Chunks sched.FixedRamp // chunk schedule; zero means sched.DefaultFixedRamp
	// Adaptive, when set, sizes each stream's chunks with a sched.Adaptive
	// controller on the engine clock instead of the fixed ramp of Chunks
	// (whose LeftContextFrames still gives the left context). Its zero
	// MaxFrames means Chunks.ChunkFrames; the other fields are taken as
	// given and checked by sched.AdaptiveConfig.Validate. nil means the
	// fixed ramp.
	Adaptive *sched.AdaptiveConfig

	// Throttle holds prefills back while a running stream's playback is at
	// risk.
	Throttle Throttle

	// HopDepth is the codec-stage queue's capacity in chunks; 0 means 4.
	HopDepth int
	// Sink is the codec stage; nil means none (streams still record their
	// chunk arrivals).
	Sink ChunkSink
	// Inline runs the codec stage inside Step instead of on its own
	// goroutine: the engine then starts no goroutine at all (a WASI guest
	// drives it with Step).
	Inline bool

	// Codec, when set, is the codec stage's decoder: every chunk is decoded
	// into PCM (Chunk.PCM) with its stream's own decoder state before it
	// reaches the stream, on the stage's goroutine (or inside Step when
	// Inline). nil: codes only. The engine uses it from one goroutine and
	// does not close it.
	Codec *codec.Model `json:"-"`
	// MaxUnreadMS bounds the decoded audio a stream holds unread: over it
	// the codec stage parks that stream's chunks (codes only) until its
	// reader catches up, so a slow reader delays only its own audio. 0
	// means DefaultMaxUnreadMS; negative means no bound. Inline engines
	// have no bound (their host drains every event each step).
	MaxUnreadMS float64
	// ClonePrefixFrames bounds the reference frames an in-context clone's
	// codec state is primed with before its first generated frame (the
	// last ones; clone_prefix.go). 0 means all of them: the delivered audio
	// is then upstream's one-call decode of ref ‖ generated with the
	// reference cut, sample for sample, at a TTFA cost of R codec frames.
	// K > 0 bounds that cost to K frames; the codec's attention window
	// (sliding_window, 72 frames) and its causal convolutions then see a
	// shortened reference, so the first generated frames differ slightly
	// (upstream itself decodes past 300 frames in chunks with 25 frames of
	// left context).
	ClonePrefixFrames int
	// PrimedStates is how many primed reference states the codec stage
	// keeps (clone_primed.go), so that the next in-context clone with the
	// same reference copies its decoder state instead of decoding the
	// reference again (native backends; 0 means DefaultPrimedStates, a
	// negative value keeps none).
	PrimedStates int
	// CodecBusyThreads is how many of its backend's threads the codec
	// stage decodes on while generation runs; while generation waits (no
	// stream generating, or the step loop blocked on a full hop) it
	// decodes on all of them (codec.Model.SetThreads). 0 means all of them
	// always. The samples do not depend on it. The host sizes the codec's
	// pool to the machine and sets this to the deploy profile's
	// codec_threads (codec_idle.go).
	CodecBusyThreads int
	// GenerateDuringFirstDecode keeps generation running while the codec
	// stage decodes the first chunks of a batch of streams none of which
	// is playing yet. By default generation waits for that first audio
	// (first_audio.go): the decode then has every core, and the time to
	// first audio is shorter by about half the first decode.
	GenerateDuringFirstDecode bool
	// CodecBusy, when set, is called on the codec stage's goroutine as
	// each decode call starts (true) and ends (false). The host uses it to
	// run generation on fewer threads while the codec decodes beside it,
	// so that the two stages never put more busy threads than cores on
	// the machine (host/native.go). It must be quick and not block.
	CodecBusy func(busy bool) `json:"-"`

	// Seed seeds the generator of random rows without their own seed.
	Seed int64
	// Clock is the engine's clock; nil means the system clock. Stats must
	// use the same clock.
	Clock stats.Clock
	// Stats receives the engine's counters; nil disables them.
	Stats *stats.Recorder
}

// Throttle configures prefill throttling (docs/SCHEDULING.md §3):
// a waiting request is not prefilled while some running stream whose
// playback has started has sched.ShouldThrottlePrefills(slack,
// next_chunk_eta, MarginMS), where next_chunk_eta is sched.NextChunkETA of
// the frames left until that stream's next chunk, the recent step time and
// the recent prefill time (what admitting would add). After MaxHoldSteps
// consecutive held steps one request is admitted anyway, so a machine
// slower than real time still serves its queue.
type Throttle struct {
	Disabled     bool    // never throttle
	MarginMS     float64 // safety margin; 0 means 120 (the x86 CPU class)
	MaxHoldSteps int     // 0 means 25 (one steady chunk)
}

// withDefaults returns c with every zero field defaulted, or an error.
func (c Config) withDefaults() (Config, error) {
	if c.Model == nil {
		return c, fmt.Errorf("core: config has no model")
	}
	if err := c.IDs.Validate(); err != nil {
		return c, err
	}
	d := c.Model.Dims()
	if d.Vocab != c.IDs.CodecVocab || d.CodebookSize != c.IDs.CodebookSize || d.Groups != Codebooks || d.Hidden < 1 {
		return c, fmt.Errorf("core: model dims %+v do not match the ids (codec vocab %d, codebook %d, %d groups)", d, c.IDs.CodecVocab, c.IDs.CodebookSize, Codebooks)
	}
	if c.MaxBatch == 0 {
		c.MaxBatch = c.Model.MaxBatch()
	}
	if c.MaxBatch < 1 || c.MaxBatch > c.Model.MaxBatch() {
		return c, fmt.Errorf("core: max batch %d outside [1, %d] (the model's)", c.MaxBatch, c.Model.MaxBatch())
	}
	if c.KVBudgetBytes < 0 {
		return c, fmt.Errorf("core: kv budget %d bytes negative", c.KVBudgetBytes)
	}
	if c.MaxWaiting == 0 {
		c.MaxWaiting = 1024
	}
	if c.MaxWaiting < 0 {
		return c, fmt.Errorf("core: max waiting %d negative", c.MaxWaiting)
	}
	if c.Limits == (Limits{}) {
		c.Limits = DefaultLimits()
	}
	if err := c.Limits.Validate(); err != nil {
		return c, err
	}
	if c.Chunks.ChunkFrames == 0 && c.Chunks.Ramp == nil && c.Chunks.LeftContextFrames == 0 {
		c.Chunks = sched.DefaultFixedRamp()
	}
	if err := c.Chunks.Validate(); err != nil {
		return c, err
	}
	if c.Adaptive != nil {
		a, err := adaptiveDefaults(*c.Adaptive, c.Chunks)
		if err != nil {
			return c, err
		}
		c.Adaptive = &a
	}
	if c.Throttle.MarginMS == 0 {
		c.Throttle.MarginMS = 120
	}
	if c.Throttle.MaxHoldSteps == 0 {
		c.Throttle.MaxHoldSteps = 25
	}
	if c.Throttle.MarginMS < 0 || c.Throttle.MaxHoldSteps < 0 {
		return c, fmt.Errorf("core: throttle margin %g ms and max hold %d steps must not be negative", c.Throttle.MarginMS, c.Throttle.MaxHoldSteps)
	}
	if c.HopDepth == 0 {
		c.HopDepth = 4
	}
	if c.PrimedStates == 0 {
		c.PrimedStates = DefaultPrimedStates
	}
	if c.ClonePrefixFrames < 0 {
		return c, fmt.Errorf("core: clone prefix frames %d must not be negative", c.ClonePrefixFrames)
	}
	if c.HopDepth < 1 {
		return c, fmt.Errorf("core: hop depth %d must be >= 1", c.HopDepth)
	}
	if c.Clock == nil {
		c.Clock = stats.SystemClock()
	}
	return c, nil
}
