// Package serve is omni's HTTP speech server: the OpenAI-compatible
// POST /v1/audio/speech (with vLLM-Omni's extra fields; speed stretches the
// audio, pitch kept, through audio.Stretcher: speed.go), its batch form
// POST /v1/audio/speech/batch (batch.go), the voice and model listings, health and readiness probes, Prometheus metrics, an embedded
// playground page, admission with a bounded waiting queue, and drain.
//
// serve does not know the engine. It drives a [Synthesizer], the small
// interface defined in synth.go; the adapter over omni's engine implements it
// in package serve/engine (so serve links neither host nor wazero: a test
// checks with go list), and the tests use a deterministic fake (package
// servetest). serve is host-side: it may import net/http and client_golang,
// and the portable packages must not import it.
//
// Audio leaves the synthesizer as float32 PCM at 24 kHz mono and is encoded
// by package audio's streaming encoders: wav (streamed, with the
// unknown-length header), pcm (s16le), flac (fixed predictors and Rice
// coding) and mp3 (github.com/braheezy/shine-mp3); opus is Ogg Opus from
// package audio/oggopus (github.com/thesyncim/gopus's encoder). aac is
// refused with a 400 that names the format (see RATIONALE.md).
package serve
