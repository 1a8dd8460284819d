package core

import (
	"math"
	"sync/atomic"

	"github.com/omni-tts/omni/sched"
)

// codecLoad keeps the codec stage's figure for the chunk controllers: an
// EWMA (the engine's, ewma) of the decode time per frame of one stream's
// chunk (the call's time over the most frames one stream had in it). The
// codec goroutine writes it once per decode call; generation reads it
// when it sizes a chunk. The zero value has measured nothing (CodecLoad{}).
type codecLoad struct {
	perFrame atomic.Uint64 // float64 bits
}

// observe records a decode call that took elMS, in which one stream had at
// most frames frames.
func (l *codecLoad) observe(elMS float64, frames int) {
	if frames < 1 || !(elMS >= 0) {
		return
	}
	ewmaStore(&l.perFrame, elMS/float64(frames))
}

// load returns the current figure.
func (l *codecLoad) load() sched.CodecLoad {
	return sched.CodecLoad{MSPerFrame: math.Float64frombits(l.perFrame.Load())}
}

// ewmaStore folds sample into the EWMA held in v (ewma: the sample itself
// when v is still 0). Only one goroutine writes v.
func ewmaStore(v *atomic.Uint64, sample float64) {
	v.Store(math.Float64bits(ewma(math.Float64frombits(v.Load()), sample)))
}
