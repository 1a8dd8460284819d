package serve

import (
	"github.com/prometheus/client_golang/prometheus"
)

// SegmentEvent is a segment's start or end in a long input's reply: an
// input of several sentences is synthesized as segments (one generation
// each) read as one audio stream. SSE clients receive each as an event of
// its Type between the audio deltas, at its place in the audio.
type SegmentEvent struct {
	// Type is "speech.segment.start" or "speech.segment.done".
	Type  string `json:"type"`
	Index int    `json:"index"` // 0-based
	Total int    `json:"total"` // segments in the reply
	// Text is the segment's words (start events).
	Text string `json:"text,omitempty"`
	// Start and End place the segment in the reply's audio, in seconds
	// (End on done events).
	Start float64 `json:"start"`
	End   float64 `json:"end,omitempty"`
	// Frames is the segment's codec frames; EndReason why it ended: eos,
	// max_tokens (it reached its frame cap before its end of speech: its
	// audio is cut, and Capped says so), cancelled, error (done events).
	Frames    int       `json:"frames,omitempty"`
	EndReason EndReason `json:"end_reason,omitempty"`
	Capped    bool      `json:"capped,omitempty"`
}

// Segment event types.
const (
	SegmentStart = "speech.segment.start"
	SegmentDone  = "speech.segment.done"
)

// SegmentedStream is an AudioStream of a long input that reports its
// segments: serve calls TakeSegments after each Next and before writing
// that chunk, and once after the end, and writes the events taken (SSE)
// and counts the ended segments (omni_segments_total).
type SegmentedStream interface {
	AudioStream
	// TakeSegments returns the events since the last call, in order.
	TakeSegments() []SegmentEvent
}

// longMetrics are the families of long inputs and live text.
type longMetrics struct {
	segments      *prometheus.CounterVec // reason
	wsSessions    prometheus.Gauge
	wsTextToAudio prometheus.Histogram
}

// newLongMetrics registers the long-input and WebSocket families on reg.
func newLongMetrics(reg *prometheus.Registry) longMetrics {
	m := longMetrics{
		segments: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "omni_segments_total",
			Help: "Segments of long inputs that ended, by reason (eos; max_tokens: the segment reached its frame cap and its audio is cut; cancelled; error)."}, []string{"reason"}),
		wsSessions: prometheus.NewGauge(prometheus.GaugeOpts{Name: "omni_ws_sessions",
			Help: "Live-text WebSocket sessions open (/v1/audio/speech/stream)."}),
		wsTextToAudio: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "omni_ws_text_to_first_audio_seconds",
			Help: "From the message completing a sentence to its first audio sent, over the WebSocket.", Buckets: ttfaBuckets}),
	}
	reg.MustRegister(m.segments, m.wsSessions, m.wsTextToAudio)
	for _, r := range []EndReason{EndEOS, EndMaxTokens, EndCancelled, EndError} {
		m.segments.WithLabelValues(string(r))
	}
	return m
}

// segments writes and counts the segment events st has for the client: SSE
// events in the stream, a warning logged for each capped segment.
func (s *Server) segments(out frameWriter, st AudioStream) error {
	ss, ok := st.(SegmentedStream)
	if !ok {
		return nil
	}
	for _, ev := range ss.TakeSegments() {
		if ev.Type == SegmentDone {
			s.metrics.long.segments.WithLabelValues(string(ev.EndReason)).Inc()
			if ev.Capped {
				s.cfg.Logger.Warn("segment reached its frame cap: its audio is cut", "segment", ev.Index, "of", ev.Total, "frames", ev.Frames)
			}
		}
		if w, ok := out.(*sseWriter); ok {
			if err := w.event(ev.Type, ev); err != nil {
				return err
			}
		}
	}
	return nil
}
