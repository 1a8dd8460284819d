package host

import (
	"context"
	"sync"
	"time"

	"github.com/omni-tts/omni/wcache"
)

// WeightMemory says where the weights of a mapped cache file live once
// the engine has loaded them.
type WeightMemory int

const (
	// PrivateBehind copies them into the engine's own memory (huge pages
	// where the kernel gives them) on a goroutine behind the load, a chunk
	// at a time and in place, so the engine serves meanwhile (the default):
	// reads of private pages stay at full speed where the kernel's handling
	// of mapped page-cache pages stalls them (RATIONALE: "Why are the
	// mapped weights copied into private memory?").
	PrivateBehind WeightMemory = iota
	// PrivateAtLoad makes the same copy before Open returns (benchmarks:
	// the steady state from the first step).
	PrivateAtLoad
	// Shared keeps the page-cache mapping: every process mapping the file
	// shares its pages.
	Shared
)

// String returns "private", "private-at-load" or "shared".
func (m WeightMemory) String() string {
	switch m {
	case PrivateAtLoad:
		return "private-at-load"
	case Shared:
		return "shared"
	}
	return "private"
}

// mappedFile notes a cache file the load mapped (for the private copy).
func (c *cacheRun) mappedFile(f *wcache.File) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.mapped = append(c.mapped, f)
}

// privatize copies the mapped files into private memory as c.Memory says
// (now, behind the load, or not at all) and returns the function that
// stops a copy behind the load and waits for it (Close calls it before
// freeing the weights; it may be called again).
func (c *cacheRun) privatize(ctx context.Context) (stop func()) {
	if c == nil || c.Memory == Shared || len(c.mapped) == 0 {
		return func() {}
	}
	if c.Memory == PrivateAtLoad {
		c.copyPrivate(ctx)
		return func() {}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.copyPrivate(ctx)
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			cancel()
			<-done
		})
	}
}

// copyPrivate privatizes every mapped file and logs what it did.
func (c *cacheRun) copyPrivate(ctx context.Context) {
	t0 := time.Now()
	total := 0
	for _, f := range c.mapped {
		n, err := f.Privatize(ctx)
		total += n
		if err != nil {
			if ctx.Err() == nil {
				c.logf("private copy stopped (%v); the rest of the weights stay in the shared mapping", err)
			}
			return
		}
	}
	if total > 0 {
		c.logf("copied %.0f MB of cached weights into private memory in %.2f s", float64(total)/1e6, time.Since(t0).Seconds())
	}
}
