package simd

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestArgminShifted checks ArgminShifted at every level against a direct
// search (the smallest float32 norm − 2·s, the lowest index among ties) on
// lengths around the 16-lane blocks, with planted ties, an all-+∞ row and
// values that differ in the last bit; and NearestCodes on 1 and 2 threads.
func TestArgminShifted(t *testing.T) {
	eachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(31, 32))
		direct := func(norm, s []float32) int {
			bi := -1
			var bd float32
			for n := range s {
				d := norm[n] - 2*s[n]
				if bi < 0 || d < bd {
					bi, bd = n, d
				}
			}
			if math.IsInf(float64(bd), 1) {
				return 0
			}
			return bi
		}
		for _, n := range []int{1, 2, 15, 16, 17, 31, 32, 33, 100, 2048} {
			for trial := 0; trial < 20; trial++ {
				norm, s := randVec(r, n, 2), randVec(r, n, 1)
				switch trial % 4 {
				case 1: // ties: the minimum planted at two or three places
					i, j := r.IntN(n), r.IntN(n)
					norm[i], s[i] = -50, 0.5
					norm[j], s[j] = -50, 0.5
					if n > 20 {
						norm[n-1], s[n-1] = -50, 0.5
					}
				case 2: // quantized values: many equal differences
					for i := range s {
						norm[i], s[i] = float32(r.IntN(3)), float32(r.IntN(3))
					}
				case 3:
					if trial == 3 {
						for i := range norm {
							norm[i] = float32(math.Inf(1))
						}
					}
				}
				if got, want := ArgminShifted(norm, s), direct(norm, s); got != want {
					t.Fatalf("n %d trial %d: %d, want %d (d %v vs %v)", n, trial, got, want, norm[got]-2*s[got], norm[want]-2*s[want])
				}
			}
		}
		for _, threads := range []int{1, 2} {
			b := NewBackend(threads)
			T, N := 40, 2048
			norm, sc := randVec(r, N, 2), randVec(r, T*N, 1)
			ids := make([]int32, T)
			if err := b.NearestCodes(ids, sc, norm, T); err != nil {
				t.Fatal(err)
			}
			for row := 0; row < T; row++ {
				if want := direct(norm, sc[row*N:(row+1)*N]); int(ids[row]) != want {
					t.Fatalf("%d threads, row %d: %d, want %d", threads, row, ids[row], want)
				}
			}
			if err := b.NearestCodes(ids[:2], sc, norm, 2); err == nil {
				t.Error("NearestCodes with the wrong score count: no error")
			}
			b.Close()
		}
	})
}
