// Package codec is the Qwen3-TTS 12 Hz codec decoder ("code2wav"): 16 codes
// per 80 ms frame in, 1920 samples at 24 kHz out, decoded as a stream with
// every layer's state kept so that any split of the frames gives the samples
// of one call on all of them. The graph runs on a Backend (native kernels in
// simd, or host functions under WASI); codec is portable and builds for
// wasip1.
package codec
