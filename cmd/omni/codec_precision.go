package main

import (
	"fmt"

	"github.com/omni-tts/omni/host"
)

// codecPrecisionHelp describes --codec-precision's values; its default,
// auto, is the precision the kernel level in use was measured fastest at
// within 30 dB of fp32 (simd.DefaultCodecPrecision), fp32 one flag away.
const codecPrecisionHelp = "Codec precision: auto, fp32, bf16, int8, mixed, or a per-family spec such as bf16+res=int8 (families transformer, upsample, vocoder_in, tconv, res, out); " +
	"auto is bf16+res=int8 where the kernels compute in bf16 (AVX-512 BF16 and VNNI), fp32+res=int8 at AVX-512 VNNI without BF16, else fp32; " +
	"bf16 stores the weights in bfloat16 (computed in bf16 on AVX-512 BF16, else in fp32); mixed is int8 for the layers of at most 32 rows per frame, fp32 for the rest"

// resolveCodecPrecision returns p in its canonical form, or for "auto"
// the level's default (host.ResolveCodecPrecision); a precision the codec
// does not know is refused, naming the flag.
func resolveCodecPrecision(p string) (string, error) {
	c, err := host.ResolveCodecPrecision(p)
	if err != nil {
		return "", fmt.Errorf("--codec-precision: %w", err)
	}
	return c, nil
}
