package simd

import (
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

type countTask struct {
	hits  []atomic.Int32
	calls atomic.Int32
	grain int
	bad   atomic.Bool
}

func (c *countTask) RunRange(lo, hi int) {
	c.calls.Add(1)
	if lo%c.grain != 0 || lo >= hi {
		c.bad.Store(true)
	}
	for i := lo; i < hi; i++ {
		c.hits[i].Add(1)
	}
}

func TestPoolRun(t *testing.T) {
	for _, threads := range []int{1, 2, 3, 8} {
		p := NewPool(threads)
		if p.Threads() != threads {
			t.Fatalf("NewPool(%d).Threads() = %d", threads, p.Threads())
		}
		for _, n := range []int{0, 1, 2, 7, 16, 100, 1001} {
			for _, grain := range []int{1, 3, 16} {
				c := &countTask{hits: make([]atomic.Int32, n), grain: grain}
				p.Run(c, n, grain)
				for i := range c.hits {
					if c.hits[i].Load() != 1 {
						t.Fatalf("Pool(%d).Run(n=%d, grain=%d): index %d ran %d times", threads, n, grain, i, c.hits[i].Load())
					}
				}
				if c.bad.Load() || int(c.calls.Load()) > threads {
					t.Fatalf("Pool(%d).Run(n=%d, grain=%d): %d chunks, misaligned %v", threads, n, grain, c.calls.Load(), c.bad.Load())
				}
			}
		}
		p.Close()
		p.Close() // idempotent
	}
	if NewPool(0).Threads() != DefaultThreads() {
		t.Fatal("NewPool(0) does not use DefaultThreads")
	}
}

func TestPoolGemm(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	p := NewPool(3)
	defer p.Close()
	eachLevel(t, func(t *testing.T) {
		for _, c := range []q8Case{{1, 100, 333, 32}, {8, 1000, 64, 32}, {5, 17, 1024, 64}, {64, 48, 100, 32}} {
			w, _ := QuantizeQ8(randWeights(rng, c.rows, c.cols, c.block), c.rows, c.cols, c.block)
			x := NewQ8Input(c.m, c.cols, c.block)
			x.Quantize(randActs(rng, c.m, c.cols), c.m)
			want := make([]float32, c.m*c.rows)
			GemmQ8(want, x, w)
			y := make([]float32, c.m*c.rows)
			p.GemmQ8(y, x, w)
			for i := range y {
				if math.Float32bits(y[i]) != math.Float32bits(want[i]) {
					t.Fatalf("Pool.GemmQ8(%dx%dx%d) row %d col %d = %v, want %v", c.m, c.cols, c.rows, i/c.rows, i%c.rows, y[i], want[i])
				}
			}
			wf := make([]float32, c.rows*c.cols)
			for i := range wf {
				wf[i] = float32(rng.NormFloat64())
			}
			fm, _ := NewF32Matrix(wf, c.rows, c.cols)
			xf := randActs(rng, c.m, c.cols)
			GemmF32(want, xf, c.m, fm)
			p.GemmF32(y, xf, c.m, fm)
			for i := range y {
				if math.Float32bits(y[i]) != math.Float32bits(want[i]) {
					t.Fatalf("Pool.GemmF32(%dx%dx%d) row %d col %d = %v, want %v", c.m, c.cols, c.rows, i/c.rows, i%c.rows, y[i], want[i])
				}
			}
		}
	})
}

func TestPoolNoAlloc(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	p := NewPool(2)
	defer p.Close()
	w, _ := QuantizeQ8(randWeights(rng, 256, 512, 32), 256, 512, 32)
	x := NewQ8Input(8, 512, 32)
	xf := randActs(rng, 8, 512)
	y := make([]float32, 8*256)
	wf := make([]float32, 256*512)
	fm, _ := NewF32Matrix(wf, 256, 512)
	for _, m := range []int{1, 8} {
		x.Quantize(xf, m)
		p.GemmQ8(y, x, w) // warm-up
		if a := testing.AllocsPerRun(50, func() { p.GemmQ8(y, x, w) }); a != 0 {
			t.Errorf("Pool.GemmQ8(m=%d) allocates %v times per call", m, a)
		}
		if a := testing.AllocsPerRun(50, func() { x.Quantize(xf, m) }); a != 0 {
			t.Errorf("Q8Input.Quantize(m=%d) allocates %v times per call", m, a)
		}
		if a := testing.AllocsPerRun(20, func() { p.GemmF32(y, xf, m, fm) }); a != 0 {
			t.Errorf("Pool.GemmF32(m=%d) allocates %v times per call", m, a)
		}
	}
}

// TestPoolHammer runs GemmQ8 from several goroutines on one pool (run it
// with -race): results stay exact, calls are serialized.
func TestPoolHammer(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	p := NewPool(2)
	defer p.Close()
	w, _ := QuantizeQ8(randWeights(rng, 100, 200, 32), 100, 200, 32)
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		x := NewQ8Input(3, 200, 32)
		x.Quantize(randActs(rng, 3, 200), 3)
		want := make([]float32, 300)
		GemmQ8(want, x, w)
		wg.Add(1)
		go func() {
			defer wg.Done()
			y := make([]float32, 300)
			for it := 0; it < 50; it++ {
				p.GemmQ8(y, x, w)
				for i := range y {
					if y[i] != want[i] {
						t.Errorf("goroutine result %d = %v, want %v", i, y[i], want[i])
						return
					}
				}
			}
		}()
	}
	wg.Wait()
}

// TestPoolOneProc runs the pool with GOMAXPROCS(1), where the workers
// rarely get to run: the caller takes their chunks back, and every index
// still runs exactly once with exact GEMM results.
func TestPoolOneProc(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	p := NewPool(3)
	defer p.Close()
	for it := 0; it < 200; it++ {
		n := 1 + it%37
		c := &countTask{hits: make([]atomic.Int32, n), grain: 1}
		p.Run(c, n, 1)
		for i := range c.hits {
			if c.hits[i].Load() != 1 {
				t.Fatalf("Run(n=%d) under GOMAXPROCS(1): index %d ran %d times", n, i, c.hits[i].Load())
			}
		}
	}
	rng := rand.New(rand.NewPCG(19, 20))
	w, _ := QuantizeQ8(randWeights(rng, 300, 64, 32), 300, 64, 32)
	x := NewQ8Input(2, 64, 32)
	x.Quantize(randActs(rng, 2, 64), 2)
	want, y := make([]float32, 600), make([]float32, 600)
	GemmQ8(want, x, w)
	for it := 0; it < 100; it++ {
		clear(y)
		p.GemmQ8(y, x, w)
		for i := range y {
			if y[i] != want[i] {
				t.Fatalf("Pool.GemmQ8 under GOMAXPROCS(1), call %d: [%d] = %v, want %v", it, i, y[i], want[i])
			}
		}
	}
}

// TestPoolSetActive: a pool limited to k of its threads splits a call into
// at most k chunks that still cover every index once; the limit clamps to
// 1..Threads, and Backend.SetThreads(0) restores all threads.
func TestPoolSetActive(t *testing.T) {
	p := NewPool(3)
	defer p.Close()
	for _, c := range []struct{ set, want int }{{1, 1}, {2, 2}, {0, 1}, {-4, 1}, {9, 3}, {3, 3}} {
		if got := p.SetActive(c.set); got != c.want || p.Active() != c.want {
			t.Fatalf("SetActive(%d) = %d (Active %d), want %d", c.set, got, p.Active(), c.want)
		}
		for _, dyn := range []bool{false, true} {
			ct := &countTask{hits: make([]atomic.Int32, 600), grain: 1}
			if dyn {
				p.mu.Lock()
				p.runDynamic(ct, 600, 200)
				p.mu.Unlock()
			} else {
				p.Run(ct, 600, 1)
			}
			for i := range ct.hits {
				if ct.hits[i].Load() != 1 {
					t.Fatalf("Active %d, dynamic %v: index %d ran %d times", c.want, dyn, i, ct.hits[i].Load())
				}
			}
			if !dyn && int(ct.calls.Load()) != c.want {
				t.Fatalf("Active %d: Run made %d chunks, want %d", c.want, ct.calls.Load(), c.want)
			}
		}
	}
	b := NewBackend(3)
	defer b.Close()
	if got := b.SetThreads(1); got != 1 || b.ActiveThreads() != 1 {
		t.Fatalf("Backend.SetThreads(1) = %d, ActiveThreads %d", got, b.ActiveThreads())
	}
	if got := b.SetThreads(0); got != 3 {
		t.Fatalf("Backend.SetThreads(0) = %d, want all 3", got)
	}
	if got := NewBackend(1).SetThreads(0); got != 1 {
		t.Fatalf("a one-thread Backend's SetThreads(0) = %d, want 1", got)
	}
}
