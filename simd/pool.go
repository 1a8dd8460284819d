package simd

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"

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
// without goroutine hand-off costs inside a pass. An idle worker spins for
// spinFor before it parks, so the back-to-back calls of a forward pass
// hand work over in well under a microsecond (a futex wake-up costs tens of
// µs on a VM). A Pool serves one Run at a time: concurrent callers are
// serialized; a Task must not call Run on its own pool.
type Pool struct {
	threads int
	mu      sync.Mutex
	workers []*poolWorker // threads-1 of them
	closed  atomic.Bool

	q8  gemmQ8Task
	f32 gemmF32Task
}

// spinFor is how long an idle worker polls for work before parking.
const spinFor = 200 * time.Microsecond

type poolWorker struct {
	job      poolJob
	seq      atomic.Uint64 // bumped by the dispatcher after writing job
	done     atomic.Uint64 // set to seq by the worker when the job is done
	sleeping atomic.Bool
	wake     chan struct{}
	_        [64]byte // keep workers' hot words on separate cache lines
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
	p := &Pool{threads: threads}
	for i := 0; i < threads-1; i++ {
		w := &poolWorker{wake: make(chan struct{}, 1)}
		p.workers = append(p.workers, w)
		go w.loop(&p.closed)
	}
	return p
}

func (w *poolWorker) loop(closed *atomic.Bool) {
	runtime.LockOSThread()
	var last uint64
	for {
		// Wait for seq to move: spin, then park.
		t0 := time.Now()
		for spins := 0; w.seq.Load() == last; spins++ {
			if closed.Load() {
				return
			}
			if spins&255 == 255 && time.Since(t0) > spinFor {
				w.sleeping.Store(true)
				if w.seq.Load() == last && !closed.Load() {
					<-w.wake
				}
				w.sleeping.Store(false)
				t0 = time.Now()
			}
		}
		last = w.seq.Load()
		j := w.job
		j.t.RunRange(j.lo, j.hi)
		w.job.t = nil
		w.done.Store(last)
	}
}

// post hands job to the worker and wakes it if it parked.
func (w *poolWorker) post(j poolJob) {
	w.job = j
	w.seq.Add(1)
	if w.sleeping.Load() {
		select {
		case w.wake <- struct{}{}:
		default:
		}
	}
}

// wait returns when the worker has finished its last job.
func (w *poolWorker) wait() {
	want := w.seq.Load()
	for spins := 0; w.done.Load() != want; spins++ {
		if spins&1023 == 1023 {
			runtime.Gosched()
		}
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
	for _, w := range p.workers {
		select {
		case w.wake <- struct{}{}:
		default:
		}
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
	for c := 1; c < k; c++ {
		p.workers[c-1].post(poolJob{t, bound(c), bound(c + 1)})
	}
	t.RunRange(0, bound(1))
	for c := 1; c < k; c++ {
		p.workers[c-1].wait()
	}
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
