package bench

import (
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/klauspost/cpuid/v2"

	"github.com/omni-tts/omni/simd"
)

// KernelFigures are the figures for one thread count.
type KernelFigures struct {
	Threads            int     `json:"threads"`
	ReadGBps           float64 `json:"read_gbps"`
	GemvInt8GBps       float64 `json:"gemv_int8_gbps"`
	GemvInt8Efficiency float64 `json:"gemv_int8_efficiency"`
	GemmM8GBps         float64 `json:"gemm_m8_gbps"`
	GemmM8OverM1       float64 `json:"gemm_m8_over_m1"`
	GemvFP32GBps       float64 `json:"gemv_fp32_gbps"`
	GemvFP32Efficiency float64 `json:"gemv_fp32_efficiency"`
	GemvInt8GWps       float64 `json:"gemv_int8_gweights_per_s"`
	GemmM8GWps         float64 `json:"gemm_m8_gweights_per_s"`
	GemvInt8PassMs     float64 `json:"gemv_int8_pass_ms"`
	GemmM8PassMs       float64 `json:"gemm_m8_pass_ms"`
	// GemvInt8OtherGBps is the one-row GEMV with the quad kernels' software
	// prefetch switched the other way from this CPU's choice (QuadPrefetch
	// in the report), measured in the same passes: the figure that choice
	// rests on.
	// (0 below the AVX-512 VNNI level, which has no quad kernels).
	GemvInt8OtherGBps       float64 `json:"gemv_int8_other_prefetch_gbps,omitempty"`
	GemvInt8OtherEfficiency float64 `json:"gemv_int8_other_prefetch_efficiency,omitempty"`
	// GemvInt4GBps is the one-row GEMV on the same matrices in 4 bits
	// (--precision int4's kernels: 4.5 bits a weight), bytes of the 4-bit
	// set a second; GemvInt4Other* the same with the quad prefetch the
	// other way (the 4-bit quad kernels follow the int8 choice).
	GemvInt4GBps            float64 `json:"gemv_int4_gbps"`
	GemvInt4Efficiency      float64 `json:"gemv_int4_efficiency"`
	GemvInt4OtherGBps       float64 `json:"gemv_int4_other_prefetch_gbps,omitempty"`
	GemvInt4OtherEfficiency float64 `json:"gemv_int4_other_prefetch_efficiency,omitempty"`
}

// KernelsReport is the JSON object "omni bench kernels --json" prints: the
// figures at the requested (or default) thread count at top level, and,
// when --threads was not given, the same at 1 and 2 threads in by_threads.
type KernelsReport struct {
	Level string `json:"level"`
	CPU   string `json:"cpu"`
	// QuadPrefetch is whether this CPU's one- and two-row int8 and 4-bit
	// kernels prefetch (simd.QuadPrefetch); gemv_int{8,4}_other_prefetch_*
	// is the other way.
	QuadPrefetch bool   `json:"quad_prefetch"`
	L3Bytes      int    `json:"l3_bytes"`
	Block        int    `json:"block"`
	Reps         int    `json:"reps"`
	ReadBytes    int64  `json:"read_bytes"`
	Int8Bytes    int64  `json:"int8_bytes"`
	Int4Bytes    int64  `json:"int4_bytes"`
	FP32Bytes    int64  `json:"fp32_bytes"`
	Shapes       string `json:"shapes"`
	KernelFigures
	ByThreads []KernelFigures `json:"by_threads,omitempty"`
}

// KernelsOptions say what "omni bench kernels" measures.
type KernelsOptions struct {
	Reps         int     // repetitions per figure (medians reported)
	Block        int     // int8 quantization block: 32, 64 or 128
	GiB          float64 // size of each data set
	Threads      int     // the main thread count
	ThreadsGiven bool    // false: also measure at 1 and 2 threads
}

// Kernels measures the streaming-read floor and the GEMV/GEMM kernels on
// data sets far larger than the L3, in one process, the floor's passes
// interleaved with the kernels'.
func Kernels(o KernelsOptions, logf func(string, ...any)) (*KernelsReport, error) {
	size := int64(o.GiB * (1 << 30))

	if l3 := cpuid.CPU.Cache.L3; l3 > 0 && size < 2*int64(l3) {
		logf("warning: --gib %.3g is less than twice the %d MiB L3: the figures are not DRAM figures", o.GiB, l3>>20)
	}
	logf("preparing %.2f GiB read buffer, int8, 4-bit and fp32 weight sets (level %s)", 4*o.GiB, simd.Active())
	d, err := prepareKernelData(size, o.Block)
	if err != nil {
		return nil, err
	}
	rep := KernelsReport{
		Level: simd.Active().String(), QuadPrefetch: simd.QuadPrefetch(), Block: o.Block, Reps: o.Reps,
		CPU: CPUName(), L3Bytes: cpuid.CPU.Cache.L3,
		ReadBytes: int64(len(d.buf)), Int8Bytes: d.q8Bytes, Int4Bytes: d.q4Bytes, FP32Bytes: d.f32Bytes,
		Shapes: "1024x3072 and 3072x1024 matrices alternating (predictor MLP), x quantized before timing",
	}
	main := o.Threads
	counts := []int{main}
	if !o.ThreadsGiven {
		for _, t := range []int{1, 2} {
			if !slices.Contains(counts, t) {
				counts = append(counts, t)
			}
		}
	}
	byT := map[int]KernelFigures{}
	for _, t := range counts {
		logf("measuring at %d thread(s), %d repetitions", t, o.Reps)
		byT[t] = d.measure(t, o.Reps)
	}
	rep.KernelFigures = byT[main]
	if !o.ThreadsGiven {
		for _, t := range []int{1, 2} {
			rep.ByThreads = append(rep.ByThreads, byT[t])
		}
	}
	return &rep, nil
}

// WriteText writes the report as a table.
func (r *KernelsReport) WriteText(w io.Writer) {
	fmt.Fprintf(w, "level %s, block %d, medians of %d; read set %d MiB, int8 set %d MiB, 4-bit set %d MiB, fp32 set %d MiB; quad kernels prefetch: %t\n",
		r.Level, r.Block, r.Reps, r.ReadBytes>>20, r.Int8Bytes>>20, r.Int4Bytes>>20, r.FP32Bytes>>20, r.QuadPrefetch)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "threads\tread GB/s\tint8 m=1 GB/s\tefficiency\tprefetch the other way\tint8 m=8 GB/s\tm8/m1 time\tint4 m=1 GB/s\tefficiency\tprefetch the other way\tfp32 m=1 GB/s\tefficiency\t")
	rows := append([]KernelFigures{r.KernelFigures}, r.ByThreads...)
	for _, f := range rows {
		fmt.Fprintf(tw, "%d\t%.1f\t%.1f\t%.2f\t%s\t%.1f\t%.2f\t%.1f\t%.2f\t%s\t%.1f\t%.2f\t\n", f.Threads, f.ReadGBps, f.GemvInt8GBps,
			f.GemvInt8Efficiency, otherWay(f.GemvInt8OtherEfficiency), f.GemmM8GBps, f.GemmM8OverM1,
			f.GemvInt4GBps, f.GemvInt4Efficiency, otherWay(f.GemvInt4OtherEfficiency), f.GemvFP32GBps, f.GemvFP32Efficiency)
	}
	tw.Flush()
}

// otherWay formats a "prefetch the other way" efficiency: "-" when it was
// not measured (no quad kernels below AVX-512 VNNI).
func otherWay(eff float64) string {
	if eff > 0 {
		return fmt.Sprintf("%.2f", eff)
	}
	return "-"
}

// kernelData holds the data sets, built once and shared by all thread counts.
type kernelData struct {
	buf      []byte
	q8       []*simd.Q8Matrix
	q4       []*simd.Q4Matrix
	f32      []*simd.F32Matrix
	q8Bytes  int64
	q4Bytes  int64
	q8Ws     int64 // weights in the int8 set (bytes/weight = 1 + 2/BK)
	f32Bytes int64
	x1, x8   map[int]*simd.Q8Input // by cols
	x4       map[int]*simd.Q8Input // one row in 4-bit's blocks (simd.Q4Block), by cols
	xf       map[int][]float32
	y        []float32
}

func prepareKernelData(size int64, block int) (*kernelData, error) {
	d := &kernelData{x1: map[int]*simd.Q8Input{}, x8: map[int]*simd.Q8Input{}, x4: map[int]*simd.Q8Input{}, xf: map[int][]float32{}}
	d.buf = make([]byte, size)
	for i := range d.buf {
		d.buf[i] = byte(i*7 + 1)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	shapes := [][2]int{{1024, 3072}, {3072, 1024}}
	var q8s []*simd.Q8Matrix
	var q4s []*simd.Q4Matrix
	var f32s []*simd.F32Matrix
	for _, s := range shapes {
		rows, cols := s[0], s[1]
		w := make([]float32, rows*cols)
		for i := range w {
			w[i] = float32(rng.NormFloat64()) * 0.02
		}
		q, err := simd.QuantizeQ8(w, rows, cols, block)
		if err != nil {
			return nil, fmt.Errorf("bench kernels: %w", err)
		}
		q4, err := simd.QuantizeQ4(w, rows, cols, simd.Q4NonUniform)
		if err != nil {
			return nil, fmt.Errorf("bench kernels: %w", err)
		}
		f, err := simd.NewF32Matrix(w, rows, cols)
		if err != nil {
			return nil, fmt.Errorf("bench kernels: %w", err)
		}
		q8s, q4s, f32s = append(q8s, q), append(q4s, q4), append(f32s, f)
		x := make([]float32, 8*cols)
		for i := range x {
			x[i] = float32(rng.NormFloat64())
		}
		d.xf[cols] = x
		d.x1[cols] = simd.NewQ8Input(1, cols, block)
		d.x1[cols].Quantize(x, 1)
		d.x8[cols] = simd.NewQ8Input(8, cols, block)
		d.x8[cols].Quantize(x, 8)
		d.x4[cols] = simd.NewQ8Input(1, cols, simd.Q4Block)
		d.x4[cols].Quantize(x, 1)
	}
	d.q8, d.q8Bytes = weightSet(q8s, size)
	for _, m := range d.q8 {
		d.q8Ws += int64(m.Rows() * m.Cols())
	}
	d.q4, d.q4Bytes = weightSet(q4s, size)
	d.f32, d.f32Bytes = weightSet(f32s, size)
	d.y = make([]float32, 8*3072)
	return d, nil
}

// prefetchFlipped returns pass with the quad kernels' software prefetch
// switched the other way from this CPU's choice for its duration.
func prefetchFlipped(pass func()) func() {
	return func() {
		defer simd.UseQuadPrefetch(!simd.QuadPrefetch())()
		pass()
	}
}

// weightSet cycles through the two shapes' matrices, copies after the
// first two, until the set holds at least size bytes; it returns the set
// and its bytes.
func weightSet[M interface {
	Bytes() int
	Clone() M
}](shapes []M, size int64) ([]M, int64) {
	var set []M
	var n int64
	for i := 0; n < size; i++ {
		m := shapes[i%len(shapes)]
		if i >= len(shapes) {
			m = m.Clone()
		}
		set = append(set, m)
		n += int64(m.Bytes())
	}
	return set, n
}

// measure returns the figures at threads, each the median of reps passes;
// the passes of the floor and of the kernels are interleaved so that the
// machine's drift affects them alike.
func (d *kernelData) measure(threads, reps int) KernelFigures {
	p := simd.NewPool(threads)
	defer p.Close()
	rt := &readTask{buf: d.buf, parts: threads, sums: make([]uint64, threads)}
	passes := map[string]func(){
		"read": func() { p.Run(rt, threads, 1) },
		"q8m1": func() {
			for _, w := range d.q8 {
				p.GemmQ8(d.y, d.x1[w.Cols()], w)
			}
		},
		"q4m1": func() {
			for _, w := range d.q4 {
				p.GemmQ4(d.y, d.x4[w.Cols()], w)
			}
		},
		"q8m8": func() {
			for _, w := range d.q8 {
				p.GemmQ8(d.y, d.x8[w.Cols()], w)
			}
		},
		"f32m1": func() {
			for _, w := range d.f32 {
				p.GemmF32(d.y, d.xf[w.Cols()], 1, w)
			}
		},
	}
	order := []string{"read", "q8m1", "q8m8", "q4m1", "f32m1"}
	if simd.Active() == simd.AVX512VNNI { // the only level with quad kernels
		for _, k := range []string{"q8m1", "q4m1"} {
			passes[k+"other"] = prefetchFlipped(passes[k])
			order = append(order, k+"other")
		}
	}
	times := map[string][]float64{}
	for _, k := range order { // warm-up: page faults, caches, frequency
		passes[k]()
	}
	for r := 0; r < reps; r++ {
		for _, k := range order {
			t0 := time.Now()
			passes[k]()
			times[k] = append(times[k], time.Since(t0).Seconds())
		}
	}
	med := func(k string) float64 { return Median(times[k]) }
	gbps := func(bytes int64, k string) float64 { // 0 for a pass not run
		if len(times[k]) == 0 {
			return 0
		}
		return float64(bytes) / med(k) / 1e9
	}
	f := KernelFigures{Threads: threads}
	f.ReadGBps = float64(len(d.buf)) / med("read") / 1e9
	f.GemvInt8GBps = gbps(d.q8Bytes, "q8m1")
	f.GemmM8GBps = gbps(d.q8Bytes, "q8m8")
	f.GemvFP32GBps = gbps(d.f32Bytes, "f32m1")
	f.GemvInt8OtherGBps = gbps(d.q8Bytes, "q8m1other")
	f.GemvInt4GBps = gbps(d.q4Bytes, "q4m1")
	f.GemvInt4OtherGBps = gbps(d.q4Bytes, "q4m1other")
	f.GemvInt8Efficiency = f.GemvInt8GBps / f.ReadGBps
	f.GemvInt8OtherEfficiency = f.GemvInt8OtherGBps / f.ReadGBps
	f.GemvInt4Efficiency = f.GemvInt4GBps / f.ReadGBps
	f.GemvInt4OtherEfficiency = f.GemvInt4OtherGBps / f.ReadGBps
	f.GemvFP32Efficiency = f.GemvFP32GBps / f.ReadGBps
	f.GemmM8OverM1 = med("q8m8") / med("q8m1")
	f.GemvInt8GWps = float64(d.q8Ws) / med("q8m1") / 1e9
	f.GemmM8GWps = float64(d.q8Ws) / med("q8m8") / 1e9
	f.GemvInt8PassMs = med("q8m1") * 1e3
	f.GemmM8PassMs = med("q8m8") * 1e3
	return f
}
