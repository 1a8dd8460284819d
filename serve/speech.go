package serve

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"time"
)

// Trailers sent after a raw audio stream, so a client can check it got
// everything: the end reason and the frames generated.
const (
	trailerEndReason = "X-Omni-End-Reason"
	trailerFrames    = "X-Omni-Frames"
	trailerError     = "X-Omni-Error"
)

// handleSpeech is POST /v1/audio/speech.
func (s *Server) handleSpeech(w http.ResponseWriter, r *http.Request) {
	received := time.Now()
	body, ok := s.admitBody(w, r)
	if !ok {
		return
	}
	defer s.leave()
	p, err := decodeSpeech(body, s.limits())
	if err == nil {
		err = s.resolveClone(r.Context(), &p) // clone_prepare.go
	}
	if err != nil {
		if r.Context().Err() != nil {
			s.metrics.clientDisconnects.Inc()
			return // gone while its voice was prepared: nobody to answer
		}
		s.writeErr(w, err)
		return
	}
	p.Req.Received = received

	// net/http clears the read deadline once the body is read (its
	// background read), so ReadTimeout never cuts a stream; writes get a
	// deadline each (Config.WriteTimeout).
	rc := http.NewResponseController(w)

	// ctx ends when the client goes away or the drain grace runs out.
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	stop := context.AfterFunc(s.hardCtx, cancel)
	defer stop()

	st, err := s.admit(ctx, p.Req)
	if err != nil {
		switch {
		case r.Context().Err() != nil:
			s.metrics.clientDisconnects.Inc()
			return // nobody to answer
		case s.hardCtx.Err() != nil:
			err = ErrDraining // the drain grace ran out while it waited
		}
		s.writeErr(w, err)
		return
	}
	if st, err = withSpeed(st, p.Speed); err != nil {
		st.Close()
		s.writeErr(w, err)
		return
	}
	s.running.Add(1)
	defer func() {
		st.Close()
		s.running.Add(-1)
	}()
	s.stream(ctx, w, rc, r, p, st, received)
}

// admit passes the request to the synthesizer unless the waiting queue is
// full, counting it as waiting meanwhile.
func (s *Server) admit(ctx context.Context, req SpeechRequest) (AudioStream, error) {
	return s.admitWith(ctx, req, s.syn.Start)
}

// admitWith is admit with the synthesizer's start (Start, or a
// LiveSynthesizer's StartLive).
func (s *Server) admitWith(ctx context.Context, req SpeechRequest, start func(context.Context, SpeechRequest) (AudioStream, error)) (AudioStream, error) {
	if n := s.waiting.Add(1); n > int64(s.cfg.MaxWaiting) {
		s.waiting.Add(-1)
		s.metrics.refused.WithLabelValues(refusedQueueFull).Inc()
		return nil, &CapacityError{Reason: fmt.Sprintf("waiting queue full (%d requests)", s.cfg.MaxWaiting), RetryAfter: s.cfg.RetryAfter}
	}
	t0 := time.Now()
	st, err := start(ctx, req)
	s.waiting.Add(-1)
	if err == nil {
		// Start returns at admission: this is submit → admitted.
		s.metrics.queue.Observe(time.Since(t0).Seconds())
	}
	if err != nil {
		var ce *CapacityError
		switch {
		case errors.As(err, &ce):
			s.metrics.refused.WithLabelValues(refusedCapacity).Inc()
		case errors.Is(err, ErrDraining):
			s.metrics.refused.WithLabelValues(refusedDraining).Inc()
		}
		return nil, err
	}
	if st == nil {
		return nil, errors.New("serve: synthesizer returned no stream and no error")
	}
	return st, nil
}

// streamState is what the write loop accounts per stream.
type streamState struct {
	received   time.Time
	first      time.Time // first audio written
	playEnd    time.Time // when a real-time player started at first would run dry
	samples    int64
	frames     int64
	stalls     int
	underrun   time.Duration
	lastSample time.Time
}

func (a *streamState) chunk(now time.Time, n, frames int) {
	d := time.Duration(float64(n) / SampleRate * float64(time.Second))
	if a.first.IsZero() {
		a.first, a.playEnd = now, now
	} else if now.After(a.playEnd) {
		a.stalls++
		a.underrun += now.Sub(a.playEnd)
		a.playEnd = now
	}
	a.playEnd = a.playEnd.Add(d)
	a.samples += int64(n)
	a.frames += int64(frames)
	a.lastSample = now
}

// stream writes st to the client in p's formats. The first chunk is awaited
// before the status line so an early engine error still gets a proper status.
func (s *Server) stream(ctx context.Context, w http.ResponseWriter, rc *http.ResponseController, r *http.Request, p speechParams, st AudioStream, received time.Time) {
	acc := &streamState{received: received}
	chunk, err := st.Next(ctx)
	if err != nil && err != io.EOF {
		if ctx.Err() != nil {
			s.finish(acc, st, EndCancelled, r)
			if r.Context().Err() == nil && s.hardCtx.Err() != nil {
				s.writeErr(w, ErrDraining) // the grace ran out before any audio
			}
			return
		}
		s.finish(acc, st, EndError, r)
		s.writeErr(w, err)
		return
	}
	enc, encErr := newEncoder(p.Format)
	if encErr != nil {
		s.finish(acc, st, EndError, r) // an admitted stream is always counted
		s.writeErr(w, encErr)
		return
	}
	h := w.Header()
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	h.Set("X-Sample-Rate", strconv.Itoa(SampleRate))
	h.Set("X-Channels", "1")
	var out frameWriter
	if p.StreamFormat == StreamSSE {
		h.Set("Content-Type", "text/event-stream")
		out = &sseWriter{w: w, format: p.Format}
	} else {
		h.Set("Content-Type", contentType(p.Format))
		if p.Format == FormatPCM {
			h.Set("X-Sample-Format", "s16le")
		}
		h.Set("Trailer", trailerEndReason+", "+trailerFrames+", "+trailerError)
		out = &rawWriter{w: w}
	}
	w.WriteHeader(http.StatusOK)

	deadline := func() { _ = rc.SetWriteDeadline(time.Now().Add(s.cfg.WriteTimeout)) }
	emit := func() error {
		deadline()
		if err := out.flushEvent(); err != nil {
			return err
		}
		return rc.Flush()
	}

	if werr := enc.Begin(out); werr != nil {
		s.finish(acc, st, EndCancelled, r)
		return
	}
	for err == nil {
		if werr := s.segments(out, st); werr != nil {
			s.finish(acc, st, EndCancelled, r)
			return
		}
		if werr := enc.Encode(out, chunk.PCM); werr != nil {
			s.finish(acc, st, EndCancelled, r)
			return
		}
		if werr := emit(); werr != nil {
			s.finish(acc, st, EndCancelled, r)
			return
		}
		acc.chunk(time.Now(), len(chunk.PCM), chunk.Frames)
		chunk, err = st.Next(ctx)
	}
	if err == io.EOF {
		// Next returns a chunk or an error, never both: all audio is
		// encoded; flush the encoder's tail (the last mp3 frame).
		if werr := enc.Finish(out); werr == nil {
			werr = emit()
		}
		_ = s.segments(out, st) // the last segment's end
		res := st.Result()
		if res.Reason == "" {
			res.Reason = EndEOS
		}
		deadline()
		out.done(res)
		_ = rc.Flush()
		s.finish(acc, st, res.Reason, r)
		return
	}
	if ctx.Err() != nil {
		s.finish(acc, st, EndCancelled, r)
		if r.Context().Err() != nil {
			return // the client went away
		}
		// The drain grace ran out mid-stream: the answer is incomplete.
		err = ErrDraining
	} else {
		s.finish(acc, st, EndError, r)
	}
	// The stream failed mid-way: tell the client in the stream.
	_, body, _ := s.errorStatus(err)
	deadline()
	if out.fail(body) {
		_ = rc.Flush()
		return
	}
	// A raw stream cannot change its status: abort the connection so the
	// client sees a truncated body, not a clean end.
	panic(http.ErrAbortHandler)
}

// errBodyTimeout is a body not received within the read timeout (408).
var errBodyTimeout = errors.New("serve: request body read timed out")

// bodyError maps a failure to read the request body to its answer: 413
// past the size cap, 408 on the read timeout, else a 400 that names the
// body without the connection's details (no socket addresses).
func bodyError(err error) error {
	var mbe *http.MaxBytesError
	var ne net.Error
	switch {
	case errors.As(err, &mbe):
		return mbe
	case errors.As(err, &ne) && ne.Timeout():
		return errBodyTimeout
	case errors.Is(err, io.ErrUnexpectedEOF):
		return &FieldError{Field: "body", Msg: "ended before its Content-Length"}
	}
	return &FieldError{Field: "body", Msg: "could not be read (the connection failed)"}
}

// finish records the end of an admitted stream in the metrics.
func (s *Server) finish(acc *streamState, st AudioStream, reason EndReason, r *http.Request) {
	m := s.metrics
	if reason == EndCancelled && r.Context().Err() != nil {
		m.clientDisconnects.Inc()
	}
	st.Close()
	res := st.Result()
	m.finished.WithLabelValues(string(reason)).Inc()
	if !acc.first.IsZero() {
		m.ttfa.Observe(acc.first.Sub(acc.received).Seconds())
	}
	audio := float64(acc.samples) / SampleRate
	m.audioSeconds.Add(audio)
	m.audioFrames.Add(float64(acc.frames))
	m.stalls.Add(float64(acc.stalls))
	m.underrunSeconds.Add(acc.underrun.Seconds())
	if (reason == EndEOS || reason == EndMaxTokens) && audio > 0 {
		m.rtf.Observe(acc.lastSample.Sub(acc.received).Seconds() / audio)
	}
	m.e2e.Observe(time.Since(acc.received).Seconds())
	m.inputTokens.Add(float64(res.InputTokens))
	m.outputTokens.Add(float64(res.OutputTokens))
	for phase, sec := range res.Steps {
		m.AddStepSeconds(phase, sec)
	}
}

// frameWriter is where an encoder writes; flushEvent hands what was written
// since the last call to the client (raw bytes, or one SSE delta).
type frameWriter interface {
	io.Writer
	flushEvent() error
	done(Result)
	// fail reports a mid-stream error in-band; false if the framing cannot.
	fail(apiError) bool
}

// rawWriter writes encoder bytes straight to the response.
type rawWriter struct{ w http.ResponseWriter }

func (o *rawWriter) Write(b []byte) (int, error) { return o.w.Write(b) }
func (o *rawWriter) flushEvent() error           { return nil }
func (o *rawWriter) done(res Result) {
	o.w.Header().Set(trailerEndReason, string(res.Reason))
	o.w.Header().Set(trailerFrames, strconv.Itoa(res.Frames))
}
func (o *rawWriter) fail(e apiError) bool {
	o.w.Header().Set(trailerEndReason, string(EndError))
	o.w.Header().Set(trailerError, e.Error.Message)
	return false
}

// sseWriter buffers encoder bytes and sends them as speech.audio.delta events.
type sseWriter struct {
	w      http.ResponseWriter
	format string
	buf    bytes.Buffer
	ev     []byte
}

func (o *sseWriter) Write(b []byte) (int, error) { return o.buf.Write(b) }

// sseDelta is the speech.audio.delta event (OpenAI's shape plus vLLM-Omni's
// response_format).
type sseDelta struct {
	Type           string `json:"type"`
	Audio          string `json:"audio"`
	ResponseFormat string `json:"response_format"`
}

type sseUsage struct {
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
	TotalTokens  int `json:"total_tokens"`
}

type sseDone struct {
	Type      string    `json:"type"`
	Usage     sseUsage  `json:"usage"`
	EndReason EndReason `json:"end_reason"`
	Frames    int       `json:"frames"`
}

type sseError struct {
	Type  string       `json:"type"`
	Error apiErrorBody `json:"error"`
}

func (o *sseWriter) event(name string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	o.ev = append(o.ev[:0], "event: "...)
	o.ev = append(o.ev, name...)
	o.ev = append(o.ev, "\ndata: "...)
	o.ev = append(o.ev, b...)
	o.ev = append(o.ev, "\n\n"...)
	_, err = o.w.Write(o.ev)
	return err
}

func (o *sseWriter) flushEvent() error {
	if o.buf.Len() == 0 {
		return nil
	}
	d := sseDelta{Type: "speech.audio.delta", Audio: base64.StdEncoding.EncodeToString(o.buf.Bytes()), ResponseFormat: o.format}
	o.buf.Reset()
	return o.event(d.Type, d)
}

func (o *sseWriter) done(res Result) {
	o.event("speech.audio.done", sseDone{Type: "speech.audio.done", EndReason: res.Reason, Frames: res.Frames,
		Usage: sseUsage{InputTokens: res.InputTokens, OutputTokens: res.OutputTokens, TotalTokens: res.InputTokens + res.OutputTokens}})
}

func (o *sseWriter) fail(e apiError) bool {
	return o.event("speech.audio.error", sseError{Type: "speech.audio.error", Error: e.Error}) == nil
}
