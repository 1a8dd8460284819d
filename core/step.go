package core

import (
	"errors"
	"fmt"
	"time"

	"github.com/omni-tts/omni/sampler"
	"github.com/omni-tts/omni/sched"
)

// Step runs one scheduler step: it ends cancelled streams, admits and
// prefills the waiting requests the KV budget and the throttle allow, then
// runs one decode step for every running stream together (codebook-0
// sampling, the code predictor, the frames, the next talker inputs, the
// talker decode) and hands the chunks cut to the codec stage. It reports
// whether work remains (running or waiting streams). A model failure ends
// every running stream with EndError and is returned; a row the sampler
// refuses (non-finite logits, e.g. from an extreme penalty) ends that
// stream alone with EndError and is not a step error.
func (e *Engine) Step() (busy bool, err error) {
	e.stepMu.Lock()
	defer e.stepMu.Unlock()
	e.mu.Lock()
	closed := e.closed
	e.mu.Unlock()
	if closed {
		return false, ErrClosed
	}
	t0 := e.now()
	st := e.c.step.Start()
	if e.cfg.Inline && e.hop.stage != nil && (len(e.hop.stage.parked) > 0 || len(e.hop.stage.kept) > 0) {
		e.hop.deliver(nil, false) // retry held chunks, free unclaimed kept decoder states (no consumer goroutine to wake)
	}

	sc := e.c.schedule.Start()
	e.reap()
	admit := e.schedule(t0)
	sc.Stop()
	if len(admit) > 0 || len(e.running) > 0 {
		e.hop.genIdle.Store(false)
	}

	if len(admit) > 0 {
		pt := e.now()
		pc := e.c.prefill.Start()
		e.prefill(admit)
		pc.Stop()
		if n := len(admit); n > 0 {
			e.prefEW = ewma(e.prefEW, ms(e.now()-pt)/float64(n))
		}
	}

	ran := len(e.running) > 0
	if ran {
		e.steps++
		e.stepsA.Store(e.steps)
		if err = e.decode(); err != nil {
			for _, s := range e.running {
				e.finish(s, EndError, err)
			}
			e.running = e.running[:0]
		}
	}
	e.reap()
	// before flush: the codec stage sees the final chunks of the last
	// streams with generation already idle
	e.hop.genIdle.Store(len(e.running) == 0)
	e.flush()
	if ran {
		st.Stop()
		e.stepEW = ewma(e.stepEW, ms(e.now()-t0))
	}
	e.mu.Lock()
	busy = len(e.running) > 0 || len(e.waiting) > 0
	e.mu.Unlock()
	return busy, err
}

// ewma folds x into the running average a (α = 0.3, the first value taken
// as is).
func ewma(a, x float64) float64 {
	if a == 0 {
		return x
	}
	return 0.7*a + 0.3*x
}

// reap ends running streams whose context was cancelled, freeing their KV.
func (e *Engine) reap() {
	k := 0
	for _, s := range e.running {
		if s.isCancelled() {
			e.finish(s, EndCancelled, s.ctx.Err())
			continue
		}
		e.running[k] = s
		k++
	}
	if k != len(e.running) {
		e.compactAfterReap(k)
	}
}

// compactAfterReap packs the batch rows of the k surviving streams (their
// pending hidden and logits, the state carried between steps) into rows
// 0..k-1, in e.running's order, after reap dropped some.
func (e *Engine) compactAfterReap(k int) {
	H, V := e.dims.Hidden, e.dims.Vocab
	for i := 0; i < k; i++ {
		s := e.running[i]
		if s.row != i {
			copy(e.hidden[i*H:(i+1)*H], e.hidden[s.row*H:(s.row+1)*H])
			copy(e.logits[i*V:(i+1)*V], e.logits[s.row*V:(s.row+1)*V])
			s.row = i
		}
	}
	e.truncate(k)
}

// schedule pops the waiting requests to admit this step: in order, while a
// batch row is free, the KV budget holds and the throttle allows it.
// Cancelled waiting requests end here without ever holding KV.
func (e *Engine) schedule(now time.Duration) []*Stream {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.waiting) == 0 {
		return nil
	}
	throttled := e.throttled(now)
	force := throttled && e.held >= e.cfg.Throttle.MaxHoldSteps
	var admit []*Stream
	k := 0
	for i, s := range e.waiting {
		if s.isCancelled() {
			e.finish(s, EndCancelled, s.ctx.Err())
			continue
		}
		fits := len(e.running)+len(admit) < e.cfg.MaxBatch &&
			(e.cfg.KVBudgetBytes == 0 || e.kvUsed+s.kvBytes <= e.cfg.KVBudgetBytes)
		if !fits || (throttled && !force) {
			// FIFO: a request that must wait holds back the ones behind it.
			k += copy(e.waiting[k:], e.waiting[i:])
			break
		}
		e.kvUsed += s.kvBytes
		s.reserved = s.kvBytes
		s.mark(&s.tl.Admitted, now)
		s.admit()
		e.hop.primeEarly(s)
		admit = append(admit, s)
		if force {
			// After the hold, one request only.
			k += copy(e.waiting[k:], e.waiting[i+1:])
			break
		}
	}
	for i := k; i < len(e.waiting); i++ {
		e.waiting[i] = nil
	}
	e.waiting = e.waiting[:k]
	if throttled && !force {
		e.held++
	} else {
		e.held = 0
	}
	return admit
}

// throttled applies sched's prefill-throttle rule to the running streams.
func (e *Engine) throttled(now time.Duration) bool {
	if e.cfg.Throttle.Disabled || len(e.running) == 0 {
		return false
	}
	for _, s := range e.running {
		slack, started := s.slack(now)
		if !started {
			continue
		}
		eta := sched.NextChunkETA(s.chunks.left(len(s.codes), ms(now)), e.stepEW, e.prefEW)
		if sched.ShouldThrottlePrefills(slack, eta, e.cfg.Throttle.MarginMS) {
			return true
		}
	}
	return false
}

// prefill allocates the KV of every admitted stream, embeds its prompt
// and runs all the prompts together (one BatchPrefiller call when the model
// has it, else one Prefill each), parking each stream's hidden and logits
// in the next batch row. A failure ends that stream alone: if the batched
// call fails, every stream is retried on its own.
func (e *Engine) prefill(admit []*Stream) {
	H, V := e.dims.Hidden, e.dims.Vocab
	total := 0
	for _, s := range admit {
		total += s.rows
	}
	e.promptBuf = grow(e.promptBuf, total*H)
	ready, rows := e.prefReady[:0], e.prefRows[:0]
	off := 0
	for _, s := range admit {
		x := e.promptBuf[off*H : (off+s.rows)*H]
		if err := e.preparePrompt(s, x); err != nil {
			e.prefillFailed(s, err)
			continue
		}
		ready, rows = append(ready, s), append(rows, s.rows)
		off += s.rows
	}
	e.prefReady, e.prefRows = ready, rows
	defer clear(e.prefReady)
	if len(ready) == 0 {
		return
	}
	r0 := len(e.running)
	if bp, ok := e.model.(BatchPrefiller); ok && len(ready) > 1 {
		for i, s := range ready {
			e.seqs[i] = s.seq
		}
		n := len(ready)
		err := bp.PrefillBatch(e.seqs[:n], rows, e.promptBuf[:off*H], e.hidden[r0*H:(r0+n)*H], e.logits[r0*V:(r0+n)*V])
		clear(e.seqs[:n])
		if err == nil {
			for _, s := range ready {
				e.startRunning(s)
			}
			return
		}
	}
	off = 0
	for _, s := range ready {
		x := e.promptBuf[off*H : (off+s.rows)*H]
		off += s.rows
		r := len(e.running)
		if err := e.model.Prefill(s.seq, x, e.hidden[r*H:(r+1)*H], e.logits[r*V:(r+1)*V]); err != nil {
			e.prefillFailed(s, err)
			continue
		}
		e.startRunning(s)
	}
}

// prefillFailed ends s with its prefill error.
func (e *Engine) prefillFailed(s *Stream, err error) {
	e.finish(s, EndError, fmt.Errorf("core: request %q: prefill: %w", s.req.ID, err))
}

// startRunning makes prefilled s the next running stream (its hidden and
// logits are in batch row len(e.running)) and, with Config.Adaptive, gives
// it its own adaptive chunk controller.
func (e *Engine) startRunning(s *Stream) {
	s.codes = make([][Codebooks]int32, 0, s.cap)
	s.mark(&s.tl.Prefilled, e.now())
	if e.cfg.Adaptive != nil {
		s.chunks.startAdaptive(*e.cfg.Adaptive)
		if e.hop.stage != nil {
			// With a codec the player's buffer is the audio delivered
			// (decoded), not the audio cut.
			s.chunks.adapt.SetBuffer(func(nowMS float64) float64 {
				slack, started := s.slack(time.Duration(nowMS * float64(time.Millisecond)))
				if !started {
					return 0
				}
				return slack
			})
			s.chunks.adapt.SetCodecLoad(e.hop.stage.load.load)
		}
	}
	s.row = len(e.running)
	e.running = append(e.running, s)
}

// preparePrompt allocates s's KV and writes its s.rows prompt rows into x
// (s.rows×Hidden), with its trailing text rows and pad row.
func (e *Engine) preparePrompt(s *Stream, x []float32) error {
	H := e.dims.Hidden
	seq, err := e.model.NewSequence(s.rows + s.cap)
	if err != nil {
		return err
	}
	s.seq = seq
	s.pad = e.pad
	if emb := s.req.Embedded; emb != nil {
		copy(x, emb.Rows)
		s.trailing = emb.Trailing
		if emb.Pad != nil {
			s.pad = emb.Pad
		}
		return nil
	}
	if err := e.emb.Rows(x[:s.rows*H], &s.prompt); err != nil {
		return err
	}
	t := s.prompt.Trailing
	if s.req.Live && len(t) > 0 {
		t = t[:len(t)-1] // no tts_eos until EndText
	}
	if len(t) > 0 {
		s.trailing = make([]float32, len(t)*H)
		if err := e.model.TextEmbed(s.trailing, t); err != nil {
			return err
		}
	}
	if s.req.Live {
		s.nTrailing = 0 // rows are taken by liveRow
	}
	return nil
}

// grow returns b with length at least n (contents unspecified).
func grow(b []float32, n int) []float32 {
	if cap(b) < n {
		return make([]float32, n)
	}
	return b[:n]
}

// decode runs one frame for every running stream: codebook-0 sampling, the
// code predictor, the frames and chunks, the next inputs and the talker
// decode. Streams ending this frame (EOS, length cap) leave e.running.
func (e *Engine) decode() error {
	H, V := e.dims.Hidden, e.dims.Vocab
	B := len(e.running)

	// A live stream whose text is not all fed cannot end yet.
	for i, s := range e.running {
		if s.req.Live && s.liveWaiting(H) {
			e.logits[i*V+int(e.ids.CodecEos)] = -1e30 // finite after any temperature
		}
	}

	// Codebook 0 under the Qwen3-TTS contract.
	t := e.c.sample.Start()
	for i, s := range e.running {
		e.treqs[i] = s.talker
	}
	clear(e.rowErr[:B])
	if err := sampleRows(e.talker, e.logits[:B*V], e.treqs[:B], e.c0[:B], e.rowErr[:B]); err != nil {
		return fmt.Errorf("core: codebook-0 sampling: %w", err)
	}
	t.Stop()

	// EOS ends a stream before its frame, and a row the sampler refused
	// ends its stream alone; the others keep their rows, packed.
	k := 0
	for i, s := range e.running {
		c := e.c0[i]
		if err := e.rowErr[i]; err != nil {
			e.finish(s, EndError, fmt.Errorf("core: request %q: codebook-0 sampling: %w", s.req.ID, err))
			continue
		}
		if c == e.ids.CodecEos {
			e.finish(s, EndEOS, nil)
			continue
		}
		if err := s.talker.Append(int(c)); err != nil {
			return fmt.Errorf("core: codebook-0 history: %w", err)
		}
		if k != i {
			copy(e.hidden[k*H:(k+1)*H], e.hidden[i*H:(i+1)*H])
			e.c0[k] = c
		}
		e.running[k] = s
		s.row = k
		k++
	}
	e.truncate(k)
	B = k
	if B == 0 {
		return nil
	}

	// The code predictor over all B rows, then the next inputs.
	mtp0 := e.now()
	for i, s := range e.running {
		e.preqs[i] = s.pred
	}
	e.pickErr = nil
	clear(e.rowErr[:B])
	lp := e.c.loop.Start()
	e.pickT = e.c.substep.Start()
	err := e.model.PredictFrame(e.hidden[:B*H], e.c0[:B], e.codes[:B*Codebooks], e.pick)
	lp.Stop()
	if err == nil {
		err = e.pickErr
	}
	if err != nil {
		return fmt.Errorf("core: code predictor: %w", err)
	}
	mtpMS := ms(e.now() - mtp0)

	// Frames to their streams; the length cap ends a stream after its frame.
	now := e.now()
	k = 0
	for i, s := range e.running {
		if err := e.rowErr[i]; err != nil {
			e.finish(s, EndError, fmt.Errorf("core: request %q: code predictor: %w", s.req.ID, err))
			continue
		}
		var f Frame
		copy(f.Codes[:], e.codes[i*Codebooks:(i+1)*Codebooks])
		f.Index, f.At, f.Step = len(s.codes), now, e.steps
		s.codes = append(s.codes, f.Codes)
		s.push(Event{Kind: EventFrame, Frame: f})
		if ch, ok := s.chunks.next(len(s.codes), ms(now)); ok {
			e.cut(s, ch, now)
		}
		if len(s.codes) >= s.cap {
			e.finish(s, EndLength, nil)
			continue
		}
		if k != i {
			copy(e.codes[k*Codebooks:(k+1)*Codebooks], e.codes[i*Codebooks:(i+1)*Codebooks])
		}
		e.running[k] = s
		s.row = k
		k++
	}
	e.truncate(k)
	B = k
	// Chunks go to the codec stage now, before the next talker pass: a full
	// queue blocks here.
	e.flush()
	if B == 0 {
		e.c.mtp.Add(mtpMS)
		return nil
	}
	emb0 := e.now()
	if err := e.model.FrameEmbed(e.embeds[:B*H], e.codes[:B*Codebooks]); err != nil {
		return fmt.Errorf("core: next talker input: %w", err)
	}
	for i, s := range e.running {
		text := s.pad
		if s.req.Live {
			if err := e.takeLive(s); err != nil {
				return err
			}
			text = s.liveRow(H)
		} else if f := len(s.codes) - 1; f < s.nTrailing {
			text = s.trailing[f*H : (f+1)*H]
		}
		addRow(e.embeds[i*H:(i+1)*H], text)
	}
	e.c.mtp.Add(mtpMS + ms(e.now()-emb0))

	// The talker decode for all B rows: next step's hidden and logits.
	for i, s := range e.running {
		e.seqs[i] = s.seq
	}
	ft := e.c.forward.Start()
	if err := e.model.Decode(e.seqs[:B], e.embeds[:B*H], e.hidden[:B*H], e.logits[:B*V]); err != nil {
		return fmt.Errorf("core: talker decode: %w", err)
	}
	ft.Stop()
	return nil
}

// pick is the predictor's per-sub-step callback: it samples codebook g of
// every row with the stream's predictor generator.
//
// A row the sampler refuses (non-finite logits) gets code 0 for the rest
// of the frame and its stream ends with the error after the predictor.
func (e *Engine) pick(g int, logits []float32, codes []int32) {
	B := len(codes)
	if err := sampleRows(e.pred, logits, e.preqs[:B], codes, e.rowErr[:B]); err != nil && e.pickErr == nil {
		e.pickErr = fmt.Errorf("codebook %d sampling: %w", g, err)
	}
	e.pickT.Stop()
	e.pickT = e.c.substep.Start()
}

// sampleRows samples every row of logits with s. A row whose logits are
// not finite (sampler.NonFiniteError) gets token 0 and its error in
// rowErr (the first one kept), and the rows after it are sampled again, so
// one request's overflow ends that request alone. Any other error is the
// whole call's.
func sampleRows(s *sampler.Sampler, logits []float32, reqs []*sampler.Request, out []int32, rowErr []error) error {
	V := len(logits) / max(len(reqs), 1)
	for start := 0; start < len(reqs); {
		err := s.Sample(logits[start*V:], reqs[start:], out[start:len(reqs)])
		if err == nil {
			return nil
		}
		var nf *sampler.NonFiniteError
		if !errors.As(err, &nf) {
			return err
		}
		r := start + nf.Row
		out[r] = 0
		if rowErr[r] == nil {
			rowErr[r] = err
		}
		start = r + 1
	}
	return nil
}

// truncate drops e.running[k:] (already finished or moved).
func (e *Engine) truncate(k int) {
	for i := k; i < len(e.running); i++ {
		e.running[i] = nil
	}
	e.running = e.running[:k]
}

// cut fills a chunk of s cut at now and queues it for the codec stage.
func (e *Engine) cut(s *Stream, ch Chunk, now time.Duration) {
	c := new(Chunk)
	*c = ch
	c.Stream = s
	c.Codes = s.codes[ch.First-ch.LeftContext : ch.First+ch.Frames]
	c.ReadyAt = now
	e.chunks = append(e.chunks, c)
}

// finish ends s: frees its KV and queues its final chunk.
func (e *Engine) finish(s *Stream, reason EndReason, err error) {
	if s.reason != EndNone {
		return
	}
	s.reason, s.err = reason, err
	s.admit()
	if s.seq != nil {
		s.seq.Close()
		s.seq = nil
	}
	e.kvUsed -= s.reserved
	s.reserved = 0
	s.trailing = nil
	if s.stopCtx != nil {
		s.stopCtx()
	}
	e.cut(s, s.chunks.finish(len(s.codes)), e.now())
}

// flush hands the chunks cut this step to the codec stage, in order; a full
// queue blocks here, and so does the first audio of streams none of which
// is playing yet (first_audio.go).
func (e *Engine) flush() {
	first := e.firstAudioStreams()
	for i, c := range e.chunks {
		e.hop.put(c)
		e.chunks[i] = nil
	}
	e.chunks = e.chunks[:0]
	e.hop.awaitFirstAudio(first)
	clear(first)
	e.firstWaits = first[:0]
}
