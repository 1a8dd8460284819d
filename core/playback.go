package core

import "time"

// PlaybackReport is how a player fed by a stream's chunks fares
// (docs/SCHEDULING.md §2), times relative to the request's
// submission.
type PlaybackReport struct {
	TTFAMS float64 // first audio-carrying chunk's arrival
	// StartMS is the earliest start without an underrun: max_i (t_i − C_i),
	// C_i the audio before chunk i (≥ TTFA).
	StartMS float64
	// Stalls and StallMS count the underruns of a player starting at TTFA
	// (each stall shifts its cursor).
	Stalls  int
	StallMS float64
	AudioMS float64 // audio received
}

// Playback computes the report of arrivals (in order) for a request
// submitted at submitted. No arrivals give the zero report.
func Playback(submitted time.Duration, arrivals []Arrival) PlaybackReport {
	var r PlaybackReport
	if len(arrivals) == 0 {
		return r
	}
	t := func(a Arrival) float64 { return ms(a.At - submitted) }
	r.TTFAMS = t(arrivals[0])
	var before float64
	for _, a := range arrivals {
		r.StartMS = max(r.StartMS, t(a)-before)
		before += a.AudioMS
	}
	r.AudioMS = before
	// A player starting at TTFA: chunk i is needed when the cursor has
	// played the audio before it.
	cursor := r.TTFAMS // wall time at which audio position 0 plays
	before = 0
	for _, a := range arrivals {
		need := cursor + before
		if at := t(a); at > need {
			r.Stalls++
			r.StallMS += at - need
			cursor += at - need
		}
		before += a.AudioMS
	}
	return r
}
