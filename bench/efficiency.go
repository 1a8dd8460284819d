package bench

// FloorMS is the time reading bytes takes at gbps (GB/s), in ms: the
// floor of a pass that must read them once.
func FloorMS(bytes int64, gbps float64) float64 {
	return float64(bytes) / (gbps * 1e9) * 1e3
}

// Efficiency is floorMS / ms: 1 means the measured pass ran at the floor.
func Efficiency(floorMS, ms float64) float64 { return floorMS / ms }

// MixedFloorMS is the floor of one decode step when the code predictor's
// per-pass weights fit the L3: after the talker's pass (talkerBytes) evicts
// them, the first of passes predictor passes streams from DRAM at dram
// GB/s, the others hit L3 at l3 GB/s (predictorBytes is all passes'):
//
//	((talker + pass) / dram + (passes − 1) · pass / l3) · 1e3, pass = predictor / passes
func MixedFloorMS(talkerBytes, predictorBytes int64, passes int, dram, l3 float64) float64 {
	pass := float64(predictorBytes) / float64(passes)
	return ((float64(talkerBytes)+pass)/(dram*1e9) + float64(passes-1)*pass/(l3*1e9)) * 1e3
}
