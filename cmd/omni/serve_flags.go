package main

import (
	"fmt"
	"time"
)

// Bounds of omni serve's size-like flags (every value refused by name, exit
// 80, before the model loads; serve.Config would take 0 as "default").
const (
	maxServeBody        = 1 << 30 // --max-body (bytes)
	maxServeInput       = 1 << 24 // --max-input (characters)
	maxServeWaiting     = 1 << 20 // --max-waiting
	maxServeConnections = 1 << 20 // --max-connections
)

// checkFlags refuses serve's flags out of their bounds, naming the flag.
func (c *serveCmd) checkFlags() error {
	if c.MaxBody < 1 || c.MaxBody > maxServeBody {
		return usageErrorf("serve: --max-body %d outside [1, %d]", c.MaxBody, maxServeBody)
	}
	if err := checkBounds("serve",
		bound{"--max-input", c.MaxInput, 1, maxServeInput},
		bound{"--max-waiting", c.MaxWaiting, 1, maxServeWaiting},
		bound{"--max-connections", c.MaxConnections, 1, maxServeConnections},
		bound{"--fake-capacity", c.FakeCapacity, 1, maxStreams},
	); err != nil {
		return err
	}
	if err := checkBounds("serve", bound{"--max-connections-per-client", c.MaxPerClient, 0, c.MaxConnections}); err != nil {
		return fmt.Errorf("%w (at most --max-connections)", err)
	}
	for _, d := range []struct {
		flag string
		v    time.Duration
	}{
		{"--read-timeout", c.ReadTimeout}, {"--write-timeout", c.WriteTimeout}, {"--idle-timeout", c.IdleTimeout},
		{"--retry-after", c.RetryAfter}, {"--grace", c.Grace}, {"--fake-frame-time", c.FakeFrameTime},
	} {
		if d.v < 0 {
			return usageErrorf("serve: %s %s is negative", d.flag, d.v)
		}
	}
	return nil
}
