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
// without goroutine hand-off costs inside a pass.
//
// An idle worker spins for spinFor before it parks, so the back-to-back
// calls of a forward pass hand work over in well under a microsecond (a
// futex wake-up costs tens of µs on a VM). A worker must claim its chunk
// before running it; a chunk still unclaimed when the caller has finished
// its own is run by the caller, so a worker that the OS has descheduled (a
// loaded machine) delays a call by at most the chunk it already started.
//
// A Pool serves one call at a time: concurrent callers are serialized; a
// Task must not call Run on its own pool.
type Pool struct {
	threads int
	active  atomic.Int32 // threads a call uses, 1..threads (SetActive)
	mu      sync.Mutex
	workers []*poolWorker // threads-1 of them
	closed  atomic.Bool

	dyn dynTask
	q8  gemmQ8Task
	q4  gemmQ4Task
	f32 gemmF32Task
}

// spinFor is how long an idle worker polls for work before parking.
const spinFor = 200 * time.Microsecond

// Worker job states.
const (
	jobPosted  = iota // posted, not yet claimed
	jobRunning        // claimed by the worker
	jobDone           // finished by the worker
	jobTaken          // claimed by the caller (run there, or nothing to run)
)

type poolWorker struct {
	job      poolJob
	state    atomic.Int32
	seq      atomic.Uint64 // bumped by every post
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
	p.active.Store(int32(threads))
	for i := 0; i < threads-1; i++ {
		w := &poolWorker{wake: make(chan struct{}, 1)}
		w.state.Store(jobTaken)
		p.workers = append(p.workers, w)
		go w.loop(&p.closed)
	}
	return p
}

func (w *poolWorker) loop(closed *atomic.Bool) {
	runtime.LockOSThread()
	var last uint64
	for {
		// Wait for a post: spin, then park.
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
		if w.state.CompareAndSwap(jobPosted, jobRunning) {
			j := w.job
			j.t.RunRange(j.lo, j.hi)
			w.state.Store(jobDone)
		}
	}
}

// post hands job to the worker and wakes it if it parked. The previous job
// must be finished or taken.
func (w *poolWorker) post(j poolJob) {
	w.job = j
	w.state.Store(jobPosted)
	w.seq.Add(1)
	if w.sleeping.Load() {
		select {
		case w.wake <- struct{}{}:
		default:
		}
	}
}

// finish returns once the worker's job is done or taken back; it reports
// whether it was taken back (so the caller must run it).
func (w *poolWorker) finish() (takenBack bool) {
	for spins := 0; ; spins++ {
		switch w.state.Load() {
		case jobDone:
			return false
		case jobPosted:
			if w.state.CompareAndSwap(jobPosted, jobTaken) {
				return true
			}
		}
		if spins&1023 == 1023 {
			runtime.Gosched()
		}
	}
}

// Threads returns the number of threads work is split over.
func (p *Pool) Threads() int { return p.threads }

// SetActive makes the next calls use n of the pool's threads (clamped to
// 1..Threads; the others stay idle, parked after their spin), and returns
// the number set. It may be called from any goroutine, at any time: a call
// in progress keeps the threads it started with.
func (p *Pool) SetActive(n int) int {
	n = min(max(n, 1), p.threads)
	p.active.Store(int32(n))
	return n
}

// Active returns the number of threads the next call uses.
func (p *Pool) Active() int { return int(p.active.Load()) }

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
	k := min(p.Active(), units)
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
		if p.workers[c-1].finish() {
			t.RunRange(bound(c), bound(c+1))
		}
	}
}

// dynTask hands out chunks of [0, n) from a shared counter to whoever
// asks: the caller and every worker that got to run.
type dynTask struct {
	t        Task
	n, chunk int64
	next     atomic.Int64
}

// RunRange implements Task; its arguments are ignored.
func (d *dynTask) RunRange(_, _ int) {
	for {
		c := d.next.Add(d.chunk) - d.chunk
		if c >= d.n {
			return
		}
		d.t.RunRange(int(c), int(min(c+d.chunk, d.n)))
	}
}

// runDynamic runs t over [0, n) in chunks of chunk claimed dynamically by
// the caller and the workers (p.mu held): however late a worker starts,
// the call waits at most for the one chunk it runs.
func (p *Pool) runDynamic(t Task, n, chunk int) {
	chunk = max(chunk, 1)
	k := min(p.Active(), (n+chunk-1)/chunk)
	if k <= 1 {
		t.RunRange(0, n)
		return
	}
	if p.closed.Load() {
		panic("simd: Pool.Run after Close")
	}
	d := &p.dyn
	d.t, d.n, d.chunk = t, int64(n), int64(chunk)
	d.next.Store(0)
	for c := 1; c < k; c++ {
		p.workers[c-1].post(poolJob{d, 0, 0})
	}
	d.RunRange(0, 0)
	for c := 1; c < k; c++ {
		p.workers[c-1].finish() // a job taken back has nothing left to run
	}
	d.t = nil
}

// poolChunkBytes is the weight bytes of one dynamically claimed chunk of a
// GEMM split: large enough to stream efficiently, small enough that a late
// worker costs little.
const poolChunkBytes = 256 << 10

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
	p.runDynamic(t, w.panels, wholeQuads(max(1, min(poolChunkBytes/w.panelBytes, w.panels/p.threads))))
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
	p.runDynamic(t, w.panels, max(1, min(poolChunkBytes/(64*w.cols), w.panels/p.threads)))
	t.y, t.x, t.w = nil, nil, nil
}
