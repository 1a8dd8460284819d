package stats

import (
	"sync"
	"time"
)

// Counter is one named series of a Recorder, resolved once with
// Recorder.Counter so that hot paths skip the name lookup. A nil *Counter
// (from a disabled recorder) is valid: Add, Start and Time are no-ops.
// Counters are safe for concurrent use.
type Counter struct {
	name string
	r    *Recorder
	mu   sync.Mutex
	s    Series
}

// Name returns the counter's name ("" for nil).
func (c *Counter) Name() string {
	if c == nil {
		return ""
	}
	return c.name
}

// Add records one value in milliseconds (or any unit the counter's name
// implies; ratios work too, though their share of the frame is meaningless).
func (c *Counter) Add(ms float64) {
	if c != nil { // small enough to inline: disabled adds cost a nil check
		c.add(ms)
	}
}

// add records ms on an enabled counter.
func (c *Counter) add(ms float64) {
	c.mu.Lock()
	c.s.Add(ms)
	c.mu.Unlock()
	c.r.added(1)
}

// AddN records the value ms n times (as n calls of Add, under one lock):
// a per-frame share of a batch's time recorded once per frame without a
// lock per frame. n <= 0 records nothing.
func (c *Counter) AddN(ms float64, n int) {
	if c == nil || n <= 0 {
		return
	}
	c.mu.Lock()
	for range n {
		c.s.Add(ms)
	}
	c.mu.Unlock()
	c.r.added(int64(n))
}

// Start starts timing a block; Stop on the returned Timer records the
// elapsed milliseconds. On a nil Counter it returns the zero Timer without
// reading the clock.
func (c *Counter) Start() Timer {
	if c == nil {
		return Timer{}
	}
	return c.start()
}

// start starts a Timer on an enabled counter.
func (c *Counter) start() Timer { return Timer{c: c, t0: c.r.clock.Now()} }

// Time runs f and records how long it took.
func (c *Counter) Time(f func()) {
	if c == nil {
		f()
		return
	}
	t := c.Start()
	defer t.Stop()
	f()
}

// Summary returns the counter's current summary (zero for nil).
func (c *Counter) Summary() Summary {
	if c == nil {
		return Summary{}
	}
	c.mu.Lock()
	count, sum, max := c.s.count, c.s.sum, c.s.max
	sample := make([]float64, len(c.s.samples))
	copy(sample, c.s.samples)
	c.mu.Unlock()
	return summarize(count, sum, max, sample)
}

// Timer times one block; it is a value, so timing allocates nothing. The
// zero Timer's Stop does nothing.
type Timer struct {
	c  *Counter
	t0 time.Time
}

// Stop records the milliseconds since Start and returns them (0 for the
// zero Timer). Call it once.
func (t Timer) Stop() float64 {
	if t.c == nil {
		return 0
	}
	return t.c.stop(t.t0)
}

// stop records the milliseconds since t0 on an enabled counter.
func (c *Counter) stop(t0 time.Time) float64 {
	ms := float64(c.r.clock.Now().Sub(t0)) / float64(time.Millisecond)
	c.add(ms)
	return ms
}
