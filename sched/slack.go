package sched

// ChunkArrival is one chunk of audio as the player sees it: when it arrived
// (on the consumer's clock) and how much audio it carries, in milliseconds.
type ChunkArrival struct {
	TMS     float64 `json:"t_ms"`
	AudioMS float64 `json:"audio_ms"`
}

// PlaybackSlack is PlaybackSlackFrom with playback starting at the first
// chunk's arrival.
func PlaybackSlack(chunks []ChunkArrival, nowMS float64) float64 {
	if len(chunks) == 0 {
		return 0
	}
	return PlaybackSlackFrom(chunks, nowMS, chunks[0].TMS)
}

// PlaybackSlackFrom is the audio buffered ahead of a player that started at
// startMS: Σ audio of the chunks with t ≤ now, minus max(0, now − start).
// Negative slack means the player has already run dry. No chunks → 0.
func PlaybackSlackFrom(chunks []ChunkArrival, nowMS, startMS float64) float64 {
	if len(chunks) == 0 {
		return 0
	}
	buffered := 0.0
	for _, c := range chunks {
		if c.TMS <= nowMS {
			buffered += c.AudioMS
		}
	}
	return buffered - max(0, nowMS-startMS)
}

// ShouldThrottlePrefills reports whether the engine should hold back new
// prefills this step: slack − nextChunkETA < margin, i.e. once the next
// chunk lands, less than margin of audio would be left in the player.
func ShouldThrottlePrefills(slackMS, nextChunkETAMS, marginMS float64) bool {
	return slackMS-nextChunkETAMS < marginMS
}

// NextChunkETA estimates when a stream's next chunk reaches the player:
// the steps still needed × the step time, plus the hop to the codec.
func NextChunkETA(steps int, stepMS, hopMS float64) float64 {
	return float64(max(steps, 0))*stepMS + hopMS
}

// Playback tracks one stream's slack incrementally, for chunks arriving in
// time order: O(1) per step instead of a sum over every chunk. The zero
// Playback has received nothing.
type Playback struct {
	started  bool
	startMS  float64
	buffered float64
}

// Arrive records a chunk arriving at tMS with audioMS of audio. Playback
// starts at the first arrival.
func (p *Playback) Arrive(tMS, audioMS float64) {
	if !p.started {
		p.started, p.startMS = true, tMS
	}
	p.buffered += audioMS
}

// Slack is the buffered audio minus the audio played by nowMS (0 before the
// first chunk). It equals PlaybackSlack over the arrivals when nowMS is not
// before the last one.
func (p *Playback) Slack(nowMS float64) float64 {
	if !p.started {
		return 0
	}
	return p.buffered - max(0, nowMS-p.startMS)
}
