package stats

import "testing"

// disabledCounter and disabledRecorder are read from memory on every
// iteration, as a caller's struct field would be, so the compiler cannot
// prove them nil and drop the calls.
var (
	disabledCounter  *Counter
	disabledRecorder *Recorder
)

func BenchmarkAddDisabled(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		disabledCounter.Add(1.5)
	}
}

func BenchmarkRecorderAddDisabled(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		disabledRecorder.Add("predictor.substep_ms", 1.5)
	}
}

func BenchmarkStartStopDisabled(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		disabledRecorder.Start("core.step_ms").Stop()
	}
}

func benchRecorder(b *testing.B) *Recorder {
	r, err := New(Config{Dir: b.TempDir(), Role: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { r.Close() })
	return r
}

func BenchmarkAddEnabled(b *testing.B) {
	c := benchRecorder(b).Counter("predictor.substep_ms")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c.Add(1.5)
	}
}

func BenchmarkRecorderAddEnabled(b *testing.B) {
	r := benchRecorder(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r.Add("predictor.substep_ms", 1.5)
	}
}

func BenchmarkStartStopEnabled(b *testing.B) {
	c := benchRecorder(b).Counter("core.step_ms")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c.Start().Stop()
	}
}

func BenchmarkAddEnabledParallel(b *testing.B) {
	c := benchRecorder(b).Counter("predictor.substep_ms")
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			c.Add(1.5)
		}
	})
}

// BenchmarkFloor is an empty loop body, the floor the others compare to.
func BenchmarkFloor(b *testing.B) {
	x := 0.0
	for i := 0; i < b.N; i++ {
		x += 1.5
	}
	sink = x
}

// BenchmarkClockNow is the cost of one clock reading, the floor of an
// enabled Start/Stop pair (which reads the clock twice).
func BenchmarkClockNow(b *testing.B) {
	c := SystemClock()
	for i := 0; i < b.N; i++ {
		sinkT = c.Now().UnixNano()
	}
}

var (
	sink  float64
	sinkT int64
)
