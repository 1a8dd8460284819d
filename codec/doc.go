// Package codec is the Qwen3-TTS 12 Hz codec decoder ("code2wav"): 16 codes
// per 80 ms frame in, 1920 samples at 24 kHz out, decoded as a stream with
// every layer's state kept so that any split of the frames gives the samples
// of one call on all of them, bit for bit.
//
// The graph (RVQ dequantisation, the two output projections, pre_conv, the
// 8-layer sliding-window transformer with LayerScale, two ×2 transposed-conv
// + ConvNeXt upsample stages, the SnakeBeta vocoder with strides 8·5·4·3,
// the final conv and clamp) runs on a Backend of coarse ops on handles:
// simd.Backend natively, host functions under WASI. Activations are
// time-major; several streams' frames go through each layer as one matrix
// product (DecodeBatch).
//
// The encoder is the decoder's mirror, for voice references: 24 kHz
// samples through the SEANet convolutions (ELU, residual units, strides
// 4·5·6·8), an 8-layer windowed transformer, a ×2 downsample and the split
// RVQ's nearest codewords, 16 codes per 1920 samples, on the same Backend
// (LoadEncoder, NewSyntheticEncoder, Encoder.AppendEncode).
//
// Entry points: Load (a speech_tokenizer directory or a checkpoint holding
// one), NewSynthetic / WriteSynthetic (deterministic weights of any
// geometry, RealConfig or TinyConfig), Model.NewStream, Stream.Decode.
//
// codec is portable: it builds for wasip1 and with -tags purego, and imports
// the standard library and omni/safetensors only (never predictor or simd).
package codec
