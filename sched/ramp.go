package sched

import (
	"fmt"
	"strconv"
	"strings"
)

// Chunking defaults: the fixed ramp of the edge profile, the steady chunk
// and the decoder's left context (its sliding attention window).
const (
	DefaultChunkFrames       = 25
	DefaultLeftContextFrames = 72
)

// DefaultRamp returns the edge profile's chunk sizes in frames: 2, 4, 8, 16, 25.
func DefaultRamp() []int { return []int{2, 4, 8, 16, 25} }

// FixedRamp is a fixed chunk schedule: chunk i has Ramp[i] frames while the
// table lasts, ChunkFrames frames after it; each chunk is decoded with up to
// LeftContextFrames earlier frames of context.
type FixedRamp struct {
	Ramp              []int `json:"ramp"`
	ChunkFrames       int   `json:"chunk_frames"`
	LeftContextFrames int   `json:"left_context_frames"`
}

// DefaultFixedRamp returns the edge schedule: ramp 2, 4, 8, 16, 25, then 25
// frames per chunk, 72 frames of left context.
func DefaultFixedRamp() FixedRamp {
	return FixedRamp{Ramp: DefaultRamp(), ChunkFrames: DefaultChunkFrames, LeftContextFrames: DefaultLeftContextFrames}
}

// Validate checks for at least two ramp entries, all ≥ 1, a steady chunk ≥ 1
// and a left context ≥ 0. (A last entry other than ChunkFrames is allowed.)
func (r FixedRamp) Validate() error {
	if len(r.Ramp) < 2 {
		return fmt.Errorf("sched: chunk ramp %v: want at least 2 entries", r.Ramp)
	}
	for i, n := range r.Ramp {
		if n < 1 {
			return fmt.Errorf("sched: chunk ramp %v: entry %d is %d, want ≥ 1", r.Ramp, i, n)
		}
	}
	if r.ChunkFrames < 1 {
		return fmt.Errorf("sched: chunk_frames %d, want ≥ 1", r.ChunkFrames)
	}
	if r.LeftContextFrames < 0 {
		return fmt.Errorf("sched: left_context_frames %d, want ≥ 0", r.LeftContextFrames)
	}
	return nil
}

// ChunkEnd is the frame count at which chunk i (from 0) is complete:
// Σ Ramp[:i+1] inside the table, Σ Ramp + (i+1−len(Ramp)) × ChunkFrames
// beyond it. Chunk i covers frames [ChunkEnd(i−1), ChunkEnd(i)).
func (r FixedRamp) ChunkEnd(i int) int {
	end := 0
	for j := 0; j <= i && j < len(r.Ramp); j++ {
		end += r.Ramp[j]
	}
	if extra := i + 1 - len(r.Ramp); extra > 0 {
		end += extra * r.ChunkFrames
	}
	return end
}

// Ready reports whether chunk number emitted (the next one) can be sent once
// frames frames exist.
func (r FixedRamp) Ready(emitted, frames int) bool {
	return frames >= r.ChunkEnd(emitted)
}

// LeftContext is the context frames a chunk starting at frame start is
// decoded with: min(start, LeftContextFrames).
func (r FixedRamp) LeftContext(start int) int {
	return min(max(start, 0), r.LeftContextFrames)
}

// ParseRamp parses a chunk ramp written as "2,4,8,16,25".
func ParseRamp(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("sched: chunk ramp %q: entry %q is not a positive integer", s, f)
		}
		out = append(out, n)
	}
	if len(out) < 2 {
		return nil, fmt.Errorf("sched: chunk ramp %q: want at least 2 entries", s)
	}
	return out, nil
}
