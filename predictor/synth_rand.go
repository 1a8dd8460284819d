package predictor

// The synthetic weights come from a counter-based generator: the value at
// index i of tensor T is a pure function of (seed, T's name, i), so any row
// of any tensor is produced on demand without generating the rest.

// mix64 is the splitmix64 finaliser: a bijective avalanche of x.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// golden is the splitmix64 counter increment (2^64 / φ).
const golden = 0x9e3779b97f4a7c15

// nameKey derives a tensor's stream key from the seed and its name
// (FNV-1a of the name, then mixed with the seed).
func nameKey(seed uint64, name string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(name); i++ {
		h ^= uint64(name[i])
		h *= 1099511628211
	}
	return mix64(h ^ mix64(seed+golden))
}

// normalish returns a zero-mean, unit-variance, roughly Gaussian value for
// index i of the stream key: the sum of the four 16-bit lanes of one
// splitmix64 output (Irwin–Hall of four uniforms), standardised. It is
// bounded by ±√12 ≈ 3.46, so no weight is ever extreme.
func normalish(key, i uint64) float32 {
	z := mix64(key + (i+1)*golden)
	s := int64((z&0xffff)+(z>>16&0xffff)+(z>>32&0xffff)+(z>>48)) - normalishMean
	return float32(normalishInvStd) * float32(s)
}

// Four uniforms on [0, 65535] have mean 2 × 65535 and variance
// 4 × (65536² − 1)/12.
const (
	normalishMean   = 2 * 65535
	normalishInvStd = 1 / 37837.22723720648 // 1 / sqrt(4 × (65536² − 1) / 12)
)

// uniform01 returns a uniform value in [0, 1) for index i of the stream key.
func uniform01(key, i uint64) float64 {
	return float64(mix64(key+(i+1)*golden)>>11) * (1.0 / (1 << 53))
}
