// Package core is omni's engine: requests in, a stream of Qwen3-TTS codec
// frames and their audio out, many streams batched into each decode pass.
//
// An Engine owns a model (the talker and the code predictor, through small
// interfaces core defines and the predictor package satisfies), a batched
// sampler, the edge scheduling policy and a stats recorder, all injected.
// Submit validates a Request, builds its prompt exactly as Qwen3-TTS does
// and queues it; every Step admits waiting requests the KV budget and the
// prefill throttle allow, prefills them, then runs one decode step for all
// running streams together: talker decode over B rows, codebook-0 sampling
// under the Qwen3-TTS contract, the code predictor over the same B rows,
// the next talker inputs, and the frames to each stream's chunker. Chunks
// travel to the codec stage over a bounded queue, so a slow consumer slows
// generation instead of growing memory. With Config.Codec the stage decodes
// each stream's chunks with that stream's own codec.Stream (the chunks
// waiting together in one DecodeBatch) and the chunk events carry the PCM;
// a stream whose reader lets more than MaxUnreadMS of audio pile up waits
// for it alone.
//
// Step is synchronous (one scheduler step, no goroutines), so a WASI guest
// can drive the engine; Run is the goroutine loop around it. core is
// portable: it imports the standard library and omni's predictor, codec,
// sampler, sched and stats packages only, never simd, and builds for wasip1.
package core
