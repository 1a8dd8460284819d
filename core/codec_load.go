package core

import (
	"math"
	"sync/atomic"

	"github.com/omni-tts/omni/sched"
)

// codecLoad keeps the codec stage's figures for the chunk controllers: an
// EWMA (the engine's, ewma) of its busy share (each call's decode time over the time since the
// previous call ended) and of the decode time per frame of one stream's
// chunk (the call's time over the most frames one stream had in it). The
// codec goroutine writes them once per decode call; generation reads them
// when it sizes a chunk. The zero value has measured nothing (CodecLoad{}).
type codecLoad struct {
	busy, perFrame atomic.Uint64 // float64 bits
	lastEndMS      float64       // codec goroutine only; 0 before the first call
}

// observe records a decode call that ended at endMS after elMS, in which
// one stream had at most frames frames.
func (l *codecLoad) observe(endMS, elMS float64, frames int) {
	if frames < 1 || !(elMS >= 0) {
		return
	}
	if l.lastEndMS > 0 && endMS > l.lastEndMS {
		share := min(1, elMS/(endMS-l.lastEndMS))
		ewmaStore(&l.busy, share)
	}
	l.lastEndMS = endMS
	ewmaStore(&l.perFrame, elMS/float64(frames))
}

// load returns the current figures.
func (l *codecLoad) load() sched.CodecLoad {
	return sched.CodecLoad{Busy: math.Float64frombits(l.busy.Load()), MSPerFrame: math.Float64frombits(l.perFrame.Load())}
}

// ewmaStore folds sample into the EWMA held in v (ewma: the sample itself
// when v is still 0). Only one goroutine writes v.
func ewmaStore(v *atomic.Uint64, sample float64) {
	v.Store(math.Float64bits(ewma(math.Float64frombits(v.Load()), sample)))
}
