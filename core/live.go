package core

import (
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
)

// Live text: a stream submitted with Request.Live takes its text while it
// generates. Its prompt holds the first text token (the streaming layout,
// docs/MODEL.md §4); every later token arrives through FeedText and enters
// the talker input one row per frame, as the streaming layout feeds text
// anyway; while the caller has sent nothing new, frames take tts_pad and
// the model cannot end (its EOS logit is held down) until EndText's tts_eos
// row has been fed. Native engines only (the guest boundary carries no
// live stream).

// ErrTextEnded is returned by FeedText after EndText.
var ErrTextEnded = errors.New("core: live text already ended")

// liveText is a live stream's text queue: pending is guarded by
// Stream.mu, and the writers set the flags under it too; the step
// goroutine reads the flags without it, so a step takes the lock only when
// there is new text. A writer appends to pending before it sets news, and
// sets news before ended, so a step that sees ended sees news for the
// tts_eos still pending.
type liveText struct {
	pending []int32 // ids fed and not yet embedded
	vocab   int     // the text vocabulary (set at Submit)
	// news: pending may hold ids the step goroutine has not taken;
	// ended: EndText was called (tts_eos queued).
	news, ended atomic.Bool
	// owned by the step goroutine
	rows int // trailing rows consumed
	done bool
}

// FeedText queues text ids (text-vocabulary, no special tokens) for a
// live stream: they enter its generation one per frame as soon as the
// frames before them have taken theirs. It is safe from any goroutine.
func (s *Stream) FeedText(ids []int32) error {
	if !s.req.Live {
		return fmt.Errorf("core: request %q is not live", s.req.ID)
	}
	for i, id := range ids {
		if id < 0 || int(id) >= s.live.vocab {
			return invalid("request %q: live text id [%d] = %d outside [0, %d)", s.req.ID, i, id, s.live.vocab)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.live.ended.Load() {
		return ErrTextEnded
	}
	s.live.pending = append(s.live.pending, ids...)
	s.live.news.Store(true)
	return nil
}

// EndText ends a live stream's text: after its last row (then tts_eos)
// the model may end the speech. Further calls do nothing.
func (s *Stream) EndText() {
	if !s.req.Live {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.live.ended.Load() {
		s.live.pending = append(s.live.pending, -1) // tts_eos, resolved by the engine
		s.live.news.Store(true)
		s.live.ended.Store(true)
	}
}

// takeLive embeds the text fed to live stream s since the last step into
// its trailing rows (step goroutine; it locks only when there is news).
func (e *Engine) takeLive(s *Stream) error {
	if !s.live.news.Swap(false) {
		return nil
	}
	s.mu.Lock()
	ids := s.live.pending
	s.live.pending = nil
	s.mu.Unlock()
	if len(ids) == 0 {
		return nil
	}
	for i, id := range ids {
		if id == -1 {
			ids[i] = e.ids.TTSEos
		}
	}
	H := e.dims.Hidden
	if s.live.rows*H == len(s.trailing) {
		// every fed row is used (the last one was added to a talker input
		// already): start again at the front instead of growing forever
		s.trailing, s.live.rows = s.trailing[:0], 0
	}
	n := len(s.trailing)
	// grown in place (no zeroed temporary on the step goroutine); the
	// embedding writes every new value
	s.trailing = slices.Grow(s.trailing, len(ids)*H)[:n+len(ids)*H]
	return e.model.TextEmbed(s.trailing[n:], ids)
}

// liveRow returns the text row a live stream adds to its next talker
// input: its next fed row, else tts_pad (step goroutine).
func (s *Stream) liveRow(H int) []float32 {
	if s.live.rows < len(s.trailing)/H {
		r := s.trailing[s.live.rows*H : (s.live.rows+1)*H]
		s.live.rows++
		return r
	}
	return s.pad
}

// liveWaiting reports whether a live stream's text is not all fed yet: its
// EOS must wait (step goroutine; no lock: ended, then no news, means the
// tts_eos and every id before it were taken).
func (s *Stream) liveWaiting(H int) bool {
	if s.live.done {
		return false
	}
	if s.live.ended.Load() && !s.live.news.Load() && s.live.rows >= len(s.trailing)/H {
		s.live.done = true
		return false
	}
	return true
}
