package stats

import (
	"fmt"
	"os"
	"regexp"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultRole is the role of a process that sets no OMNI_STAGE.
const DefaultRole = "engine"

// FlushEvery is how many adds (over all counters) trigger a dump.
const FlushEvery = 500

// FrameBudgetMS is one Qwen3-TTS codec frame at 12.5 Hz.
const FrameBudgetMS = 80.0

// roleRE is what a role may look like: it names a file.
var roleRE = regexp.MustCompile(`^[A-Za-z0-9_-][A-Za-z0-9._-]*$`)

// Config configures a Recorder.
type Config struct {
	Dir   string // dump directory; empty means disabled (New returns nil)
	Role  string // role in the file name and the dump; empty means DefaultRole
	PID   int    // process id in the file name; 0 means os.Getpid()
	Clock Clock  // nil means SystemClock()
}

// Validate checks the role.
func (c Config) Validate() error {
	if c.Role != "" && !roleRE.MatchString(c.Role) {
		return fmt.Errorf("stats: role %q is not a file-name word ([A-Za-z0-9._-], not starting with '.')", c.Role)
	}
	if c.PID < 0 {
		return fmt.Errorf("stats: pid %d is negative", c.PID)
	}
	return nil
}

// Recorder is a process-local registry of counters that dumps itself to
// <dir>/<role>_<pid>.json every FlushEvery adds (in a background goroutine,
// so no add waits for the disk) and at Close. A nil *Recorder is the
// disabled recorder: every method is a no-op.
type Recorder struct {
	dir, role, path string
	pid             int
	clock           Clock
	started         time.Time

	mu       sync.Mutex                          // serializes counter creation
	counters atomic.Pointer[map[string]*Counter] // copied on write: lookups take no lock

	adds   atomic.Int64
	kick   chan struct{}
	stop   chan struct{}
	done   chan struct{}
	closed atomic.Bool

	dumpMu  sync.Mutex
	errMu   sync.Mutex
	lastErr error
}

// Open returns a recorder dumping into dir under role (see Config). An empty
// dir returns nil, the disabled recorder.
func Open(dir, role string) (*Recorder, error) {
	return New(Config{Dir: dir, Role: role})
}

// RoleFromStage maps a stage name (the original system's OMNI_STAGE) to a role: "" → "engine", a
// number N → "stageN" (the original system's naming), anything else as is.
func RoleFromStage(stage string) string {
	if stage == "" {
		return DefaultRole
	}
	for _, r := range stage {
		if r < '0' || r > '9' {
			return stage
		}
	}
	return "stage" + stage
}

// New returns a recorder for c, creating the dump directory, or nil when
// c.Dir is empty. Close it to stop the background dumper and write the last
// dump.
func New(c Config) (*Recorder, error) {
	if c.Dir == "" {
		return nil, nil
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if c.Role == "" {
		c.Role = DefaultRole
	}
	if c.PID == 0 {
		c.PID = os.Getpid()
	}
	if c.Clock == nil {
		c.Clock = SystemClock()
	}
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("stats: create dump directory: %w", err)
	}
	r := &Recorder{
		dir:   c.Dir,
		role:  c.Role,
		pid:   c.PID,
		path:  DumpPath(c.Dir, c.Role, c.PID),
		clock: c.Clock,
		kick:  make(chan struct{}, 1),
		stop:  make(chan struct{}),
		done:  make(chan struct{}),
	}
	r.counters.Store(&map[string]*Counter{})
	r.started = r.clock.Now()
	go r.dumper()
	return r, nil
}

// Enabled reports whether r records anything.
func (r *Recorder) Enabled() bool { return r != nil }

// Role returns the recorder's role ("" when disabled).
func (r *Recorder) Role() string {
	if r == nil {
		return ""
	}
	return r.role
}

// Path returns the dump file's path ("" when disabled).
func (r *Recorder) Path() string {
	if r == nil {
		return ""
	}
	return r.path
}

// Counter returns the counter called name, creating it on first use; nil
// when r is disabled. Resolve it once outside a hot loop.
func (r *Recorder) Counter(name string) *Counter {
	if r == nil {
		return nil
	}
	if c := (*r.counters.Load())[name]; c != nil {
		return c
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	old := *r.counters.Load()
	if c := old[name]; c != nil {
		return c
	}
	c := &Counter{name: name, r: r}
	next := make(map[string]*Counter, len(old)+1)
	for k, v := range old {
		next[k] = v
	}
	next[name] = c
	r.counters.Store(&next)
	return c
}

// Add records value ms under name (a map lookup; prefer Counter on hot paths).
func (r *Recorder) Add(name string, ms float64) {
	if r != nil { // small enough to inline: disabled adds cost a nil check
		r.add(name, ms)
	}
}

// add records ms under name on an enabled recorder.
func (r *Recorder) add(name string, ms float64) { r.Counter(name).add(ms) }

// Start starts timing a block under name; call Stop on the Timer.
func (r *Recorder) Start(name string) Timer {
	if r == nil {
		return Timer{}
	}
	return r.start(name)
}

// start starts a Timer under name on an enabled recorder.
func (r *Recorder) start(name string) Timer { return r.Counter(name).start() }

// Time runs f and records its duration under name (f still runs when r is
// disabled).
func (r *Recorder) Time(name string, f func()) {
	if r == nil {
		f()
		return
	}
	r.Counter(name).Time(f)
}

// Wrap returns f timed under name on every call; when r is disabled it
// returns f itself.
func (r *Recorder) Wrap(name string, f func()) func() {
	if r == nil {
		return f
	}
	c := r.Counter(name)
	return func() { c.Time(f) }
}

// Summaries returns every counter's current summary (nil when disabled).
func (r *Recorder) Summaries() map[string]Summary {
	if r == nil {
		return nil
	}
	cs := *r.counters.Load()
	out := make(map[string]Summary, len(cs))
	for name, c := range cs {
		out[name] = c.Summary()
	}
	return out
}

// Names returns the counters' names, sorted.
func (r *Recorder) Names() []string {
	if r == nil {
		return nil
	}
	cs := *r.counters.Load()
	names := make([]string, 0, len(cs))
	for n := range cs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// added counts n adds and wakes the dumper each time the total passes a
// multiple of FlushEvery.
func (r *Recorder) added(n int64) {
	if total := r.adds.Add(n); total/FlushEvery == (total-n)/FlushEvery || r.closed.Load() {
		return
	}
	select {
	case r.kick <- struct{}{}:
	default: // a dump is already pending; it will include this add
	}
}

// dumper writes a dump each time it is kicked, until Close.
func (r *Recorder) dumper() {
	defer close(r.done)
	for {
		select {
		case <-r.kick:
			r.setErr(r.Flush())
		case <-r.stop:
			return
		}
	}
}

// setErr remembers the last background dump error.
func (r *Recorder) setErr(err error) {
	if err == nil {
		return
	}
	r.errMu.Lock()
	r.lastErr = err
	r.errMu.Unlock()
}

// Err returns the last error of a background dump, if any.
func (r *Recorder) Err() error {
	if r == nil {
		return nil
	}
	r.errMu.Lock()
	defer r.errMu.Unlock()
	return r.lastErr
}

// Flush writes the dump now, atomically (temporary file, then rename).
func (r *Recorder) Flush() error {
	if r == nil {
		return nil
	}
	r.dumpMu.Lock()
	defer r.dumpMu.Unlock()
	d := Dump{
		Role:      r.role,
		PID:       r.pid,
		StartedAt: unixSeconds(r.started),
		Counters:  r.Summaries(),
	}
	d.DumpedAt = unixSeconds(r.clock.Now())
	return WriteDump(r.path, d)
}

// Close stops the background dumper and writes the final dump. Adds after
// Close are still counted but trigger no dump. Closing twice is harmless.
func (r *Recorder) Close() error {
	if r == nil {
		return nil
	}
	if r.closed.Swap(true) {
		return nil
	}
	close(r.stop)
	<-r.done
	return r.Flush()
}

// Reset clears every counter's series (a benchmark drops its warm-up
// with it); counters stay resolved. Dumps already written keep what they
// held.
func (r *Recorder) Reset() {
	if r == nil {
		return
	}
	for _, c := range *r.counters.Load() {
		c.mu.Lock()
		c.s = Series{}
		c.mu.Unlock()
	}
}
