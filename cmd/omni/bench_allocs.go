package main

import "runtime"

// fewestMallocs returns the fewest heap allocations the process made over
// any of tries calls of f: an allocation f makes shows in every call, while
// one another goroutine happens to make during a call (a test server
// shutting down, the runtime) does not, so the figure is f's own.
func fewestMallocs(tries int, f func() error) (uint64, error) {
	var best uint64
	for i := 0; i < max(1, tries); i++ {
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		if err := f(); err != nil {
			return 0, err
		}
		runtime.ReadMemStats(&m1)
		if n := m1.Mallocs - m0.Mallocs; i == 0 || n < best {
			best = n
		}
	}
	return best, nil
}
