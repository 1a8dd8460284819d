package simd

func addGeneric(dst, x []float32) {
	x = x[:len(dst)]
	for i := range dst {
		dst[i] += x[i]
	}
}

func scaleGeneric(alpha float32, x []float32) {
	for i := range x {
		x[i] *= alpha
	}
}

func axpyGeneric(alpha float32, x, y []float32) {
	x = x[:len(y)]
	for i := range y {
		y[i] += float32(alpha * x[i])
	}
}

// dotGeneric keeps four partial sums (element i goes to sum i mod 4), then
// adds them as (s0+s1)+(s2+s3).
func dotGeneric(x, y []float32) float32 {
	y = y[:len(x)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(x); i += 4 {
		s0 += float32(x[i] * y[i])
		s1 += float32(x[i+1] * y[i+1])
		s2 += float32(x[i+2] * y[i+2])
		s3 += float32(x[i+3] * y[i+3])
	}
	for j := 0; i < len(x); i, j = i+1, j+1 {
		p := float32(x[i] * y[i])
		switch j {
		case 0:
			s0 += p
		case 1:
			s1 += p
		default:
			s2 += p
		}
	}
	return (s0 + s1) + (s2 + s3)
}
