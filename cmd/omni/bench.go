package main

// benchCmd groups the benchmark subcommands ("omni bench kernels", …). Each
// subcommand is a field; each measures its floor in the same process and
// can print one JSON object (--json).
type benchCmd struct {
	Kernels   benchKernelsCmd   `cmd:"" help:"Kernel throughput against the streaming-read floor measured in the same run."`
	Sampler   benchSamplerCmd   `cmd:"" help:"Batched sampler time per row against the generator-advance floor."`
	Predictor benchPredictorCmd `cmd:"" help:"Code predictor per frame (15 sub-steps) against the weight-read floor measured in the same run."`
	Talker    benchTalkerCmd    `cmd:"" help:"Talker per decode token and prefill against the weight-read floor measured in the same run."`
	Codec     benchCodecCmd     `cmd:"" help:"Codec decoder per frame for 1 and B streams against the fp32-FMA and int8 peaks measured in the same run."`
	Speaker   benchSpeakerCmd   `cmd:"" help:"Speaker encoder (log-mel + ECAPA-TDNN) on one reference clip against the fp32-FMA peak measured in the same run."`
	Encode    benchEncodeCmd    `cmd:"" help:"Codec encoder on one clip (a voice reference): ms per audio second against the fp32-FMA peak measured in the same run."`
	E2E       benchE2ECmd       `cmd:"" name:"e2e" help:"The whole engine: N streams, ms/frame, RTF, TTFA, stalls, against the weight-read floor measured in the same run."`
}
