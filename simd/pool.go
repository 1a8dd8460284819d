package simd

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/klauspost/cpuid/v2"
)

// Task is a unit of parallel work over an index range. The caller
// preallocates it (a pointer), so Pool.Run allocates nothing.
type Task interface {
	// RunRange does the work for indices [lo, hi).
	RunRange(lo, hi int)
}

// Pool runs Tasks on long-lived worker goroutines, each locked to its OS
// thread (runtime.LockOSThread), so that kernels run on distinct cores
// without goroutine hand-off costs inside a pass. A Pool serves one Run at
// a time: concurrent callers are serialized.
type Pool struct {
	threads int
	mu      sync.Mutex
	jobs    []chan poolJob // one per worker (threads-1)
	wg      sync.WaitGroup
	closed  atomic.Bool

	q8  gemmQ8Task
	f32 gemmF32Task
}

type poolJob struct {
	t      Task
	lo, hi int
}

// DefaultThreads returns the number of physical cores (at least 1).
func DefaultThreads() int {
	if n := cpuid.CPU.PhysicalCores; n > 0 {
		return min(n, runtime.NumCPU())
	}
	return max(1, runtime.NumCPU())
}

// NewPool starts a pool of threads workers in all (threads ≤ 0 means
// DefaultThreads): the calling goroutine is one of them, so threads-1
// goroutines are started. Close stops them.
func NewPool(threads int) *Pool {
	if threads <= 0 {
		threads = DefaultThreads()
	}
	p := &Pool{threads: threads, jobs: make([]chan poolJob, threads-1)}
	for i := range p.jobs {
		ch := make(chan poolJob, 1)
		p.jobs[i] = ch
		go p.worker(ch)
	}
	return p
}

func (p *Pool) worker(ch chan poolJob) {
	runtime.LockOSThread()
	for j := range ch {
		j.t.RunRange(j.lo, j.hi)
		p.wg.Done()
	}
}

// Threads returns the number of threads work is split over.
func (p *Pool) Threads() int { return p.threads }

// Close stops the workers. The pool must not be used afterwards.
func (p *Pool) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed.Swap(true) {
		return
	}
	for _, ch := range p.jobs {
		close(ch)
	}
}

// Run splits [0, n) into at most Threads chunks whose bounds are multiples
// of grain (the last ends at n), runs t.RunRange on each, one of them on
// the calling goroutine, and returns when all are done. It allocates
// nothing.
func (p *Pool) Run(t Task, n, grain int) {
	if n <= 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.run(t, n, grain)
}

// run is Run with p.mu held.
func (p *Pool) run(t Task, n, grain int) {
	grain = max(grain, 1)
	units := (n + grain - 1) / grain
	k := min(p.threads, units)
	if k <= 1 {
		t.RunRange(0, n)
		return
	}
	if p.closed.Load() {
		panic("simd: Pool.Run after Close")
	}
	bound := func(c int) int { return min(n, c*units/k*grain) }
	p.wg.Add(k - 1)
	for c := 1; c < k; c++ {
		p.jobs[c-1] <- poolJob{t, bound(c), bound(c + 1)}
	}
	t.RunRange(0, bound(1))
	p.wg.Wait()
}

// gemmQ8Task splits GemmQ8 over output panels.
type gemmQ8Task struct {
	y []float32
	x *Q8Input
	w *Q8Matrix
}

// RunRange implements Task over panels [lo, hi).
func (t *gemmQ8Task) RunRange(lo, hi int) {
	GemmQ8Rows(t.y, t.x, t.w, lo*PanelRows, min(hi*PanelRows, t.w.rows))
}

// GemmQ8 is GemmQ8 split over the pool's threads by output rows; the
// result is bit-identical to the single-threaded one. It allocates nothing.
func (p *Pool) GemmQ8(y []float32, x *Q8Input, w *Q8Matrix) {
	checkQ8(y, x, w, 0, w.rows)
	if p.threads == 1 || w.panels == 1 {
		GemmQ8(y, x, w)
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	t := &p.q8
	t.y, t.x, t.w = y, x, w
	p.run(t, w.panels, 1)
	t.y, t.x, t.w = nil, nil, nil
}

// gemmF32Task splits GemmF32 over output panels.
type gemmF32Task struct {
	y, x []float32
	m    int
	w    *F32Matrix
}

// RunRange implements Task over panels [lo, hi).
func (t *gemmF32Task) RunRange(lo, hi int) {
	GemmF32Rows(t.y, t.x, t.m, t.w, lo*PanelRows, min(hi*PanelRows, t.w.rows))
}

// GemmF32 is GemmF32 split over the pool's threads by output rows; the
// result is bit-identical to the single-threaded one. It allocates nothing.
func (p *Pool) GemmF32(y, x []float32, m int, w *F32Matrix) {
	checkF32(y, x, m, w, 0, w.rows)
	if p.threads == 1 || w.panels == 1 {
		GemmF32(y, x, m, w)
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	t := &p.f32
	t.y, t.x, t.m, t.w = y, x, m, w
	p.run(t, w.panels, 1)
	t.y, t.x, t.w = nil, nil, nil
}
