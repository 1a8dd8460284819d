// Package speaker is the Qwen3-TTS speaker encoder of the Base models: a
// reference clip (mono, 24 kHz) in, one x-vector of the talker's hidden
// size out, which becomes the speaker row of a voice-cloning prompt.
//
// The front end (Mel) is fixed by the upstream code: a 1024-point FFT every
// 256 samples under a periodic Hann window, after a reflect padding of 384
// samples each side with no centring; magnitudes √(re²+im²+1e-9); 128
// Slaney mels from 0 to 12 kHz; ln(max(x, 1e-5)). The network (Encoder) is
// ECAPA-TDNN: a TDNN of kernel 5, SE-Res2Net blocks (pointwise TDNN,
// Res2Net of dilated kernel-3 convs on channel splits, pointwise TDNN,
// squeeze-excitation, residual), multi-layer feature aggregation,
// attentive statistics pooling and a final pointwise conv; ReLU after every
// TDNN; every conv padded "same" by reflection. The geometry comes from the
// checkpoint's speaker_encoder_config.
//
// The graph runs on a Backend of conv handles (a subset of codec.Backend:
// simd.Backend natively, host functions under WASI); the elementwise steps
// and the pooling statistics are plain Go on preallocated buffers.
//
// Entry points: Load (a Base checkpoint directory), NewSynthetic (random
// weights of any geometry, DefaultConfig or TinyConfig), Encoder.Embed.
//
// speaker is portable: it builds for wasip1 and imports the standard
// library and omni/safetensors only.
package speaker
