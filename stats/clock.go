package stats

import "time"

// Clock tells the time. Now must carry a monotonic reading (as time.Now
// does) so that differences measure elapsed time; its wall part stamps the
// dumps' started_at and dumped_at.
type Clock interface {
	Now() time.Time
}

// SystemClock returns the process clock (time.Now).
func SystemClock() Clock { return systemClock{} }

// systemClock is the Clock backed by time.Now.
type systemClock struct{}

// Now implements Clock.
func (systemClock) Now() time.Time { return time.Now() }

// unixSeconds is t as fractional seconds since the Unix epoch, the form of
// the dumps' started_at and dumped_at (Python's time.time()).
func unixSeconds(t time.Time) float64 {
	return float64(t.UnixNano()) / 1e9
}
