package bench

import (
	"time"

	"github.com/omni-tts/omni/simd"
)

// Floor holds the read rates measured beside a benchmark: DRAM (a buffer
// far larger than any L3) and an L3-resident buffer.
type Floor struct {
	ReadGBps   float64 `json:"read_gbps"`
	ReadL3GBps float64 `json:"read_l3_gbps"`
}

// FloorMeter measures streaming-read rates with simd.StreamRead on a
// benchmark's thread count: a 1 GiB buffer (DRAM on the machines omni
// targets; bench kernels warns when the L3 is not far smaller) and a
// 64 MiB one read repeatedly (L3-resident).
type FloorMeter struct {
	pool      *simd.Pool
	dram, l3  *readTask
	threads   int
	l3Repeats int
}

// NewFloorMeter allocates and fills the two buffers.
func NewFloorMeter(threads int) *FloorMeter {
	f := &FloorMeter{pool: simd.NewPool(threads), threads: threads, l3Repeats: 8}
	dram := make([]byte, 1<<30)
	for i := range dram {
		dram[i] = byte(i)
	}
	f.dram = &readTask{buf: dram, parts: threads, sums: make([]uint64, threads)}
	small := make([]byte, 64<<20)
	for i := range small {
		small[i] = byte(i * 3)
	}
	f.l3 = &readTask{buf: small, parts: threads, sums: make([]uint64, threads)}
	return f
}

// Measure returns the median of three DRAM passes and of three sets of
// L3 passes (after a warm-up pass each).
func (f *FloorMeter) Measure() Floor {
	var d, l []float64
	f.pool.Run(f.dram, f.threads, 1)
	f.pool.Run(f.l3, f.threads, 1)
	for i := 0; i < 3; i++ {
		t0 := time.Now()
		f.pool.Run(f.dram, f.threads, 1)
		d = append(d, float64(len(f.dram.buf))/time.Since(t0).Seconds()/1e9)
		t0 = time.Now()
		for j := 0; j < f.l3Repeats; j++ {
			f.pool.Run(f.l3, f.threads, 1)
		}
		l = append(l, float64(f.l3Repeats*len(f.l3.buf))/time.Since(t0).Seconds()/1e9)
	}
	return Floor{ReadGBps: Median(d), ReadL3GBps: Median(l)}
}

// Close stops the meter's worker pool.
func (f *FloorMeter) Close() { f.pool.Close() }

// MedianFloor combines the floors measured before and after the timed work.
func MedianFloor(fs ...Floor) Floor {
	var d, l []float64
	for _, f := range fs {
		d, l = append(d, f.ReadGBps), append(l, f.ReadL3GBps)
	}
	return Floor{ReadGBps: Median(d), ReadL3GBps: Median(l)}
}

// readTask splits a buffer into parts read by StreamRead.
type readTask struct {
	buf   []byte
	parts int
	sums  []uint64
}

// RunRange implements simd.Task.
func (t *readTask) RunRange(lo, hi int) {
	n := len(t.buf)
	for p := lo; p < hi; p++ {
		t.sums[p] = simd.StreamRead(t.buf[p*n/t.parts : (p+1)*n/t.parts])
	}
}
