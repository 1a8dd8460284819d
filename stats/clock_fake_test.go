package stats

import (
	"time"
)

// newFakeClock returns the tests' ManualClock.
func newFakeClock() *ManualClock {
	return NewManualClock(time.Date(2026, 9, 9, 14, 55, 55, 0, time.UTC))
}
