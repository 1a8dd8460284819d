package speaker

import (
	"fmt"
	"math"
)

// scratch holds every activation buffer of a forward pass, grown to the
// longest input seen so a warm call allocates nothing.
type scratch struct {
	frames  int
	mel     []float32   // [T][128]
	pad     []float32   // reflect-padded conv input, the widest layer
	outs    [][]float32 // the output of the TDNN and of each block, [T][C_i]
	h1, h2  []float32   // inside a block, [T][C]
	res     []float32   // Res2Net concat, [T][C]
	part    []float32   // one Res2Net split's output, [T][C/s]
	cat     []float32   // MFA input, [T][max(ΣC, C_L)]; then the pooling logits
	mfa     []float32   // [T][C_L]
	att     []float32   // [T][A]
	vec     []float32   // SE and pooling vectors
	seMid   []float32   // [SE]
	seScale []float32   // [C]
	ms      []float32   // mean ‖ std, [2·C_L]
	pooled  []float32   // weighted mean ‖ std, [2·C_L]
	fold    []float32   // ASP constant per attention channel, [A]
	acc     [][]float64 // per-channel float64 sums, 4 × the widest
}

func grow(b []float32, n int) []float32 {
	if cap(b) < n {
		return make([]float32, n)
	}
	return b[:n]
}

// ensure sizes the scratch for T frames.
func (e *Encoder) ensure(T int) {
	s := &e.s
	if T <= s.frames {
		return
	}
	c := e.cfg
	L := len(c.Channels) - 1
	widest, padRows := 0, 0
	for i := range c.Channels {
		tot := (c.Kernels[i] - 1) * c.Dilations[i]
		padRows = max(padRows, tot)
	}
	widest = max(c.MelDim, c.Channels[0])
	cat := 0
	for i := 1; i < L; i++ {
		cat += c.Channels[i]
		widest = max(widest, c.Channels[i])
	}
	widest = max(widest, cat)
	s.mel = grow(s.mel, T*c.MelDim)
	s.pad = grow(s.pad, (T+padRows)*widest)
	s.outs = make([][]float32, L)
	for i := 0; i < L; i++ {
		s.outs[i] = grow(nil, T*c.Channels[i])
	}
	ci := c.Channels[min(1, L-1)]
	s.h1 = grow(s.h1, T*ci)
	s.h2 = grow(s.h2, T*ci)
	s.res = grow(s.res, T*ci)
	s.part = grow(s.part, T*(ci/c.Res2NetScale))
	s.cat = grow(s.cat, T*max(cat, c.Channels[L]))
	cl := c.Channels[L]
	s.mfa = grow(s.mfa, T*cl)
	s.att = grow(s.att, T*c.AttentionChannels)
	s.seMid = grow(s.seMid, c.SEChannels)
	s.seScale = grow(s.seScale, ci)
	s.vec = grow(s.vec, ci)
	s.ms = grow(s.ms, 2*cl)
	s.pooled = grow(s.pooled, 2*cl)
	s.fold = grow(s.fold, c.AttentionChannels)
	s.acc = [][]float64{make([]float64, max(cl, ci)), make([]float64, max(cl, ci)), make([]float64, max(cl, ci)), make([]float64, max(cl, ci))}
	s.frames = T
}

// Embed computes the speaker embedding of samples (mono, 24 kHz, at least
// Config.MinSamples of them, all finite) into dst (Dim values).
func (e *Encoder) Embed(dst, samples []float32) error {
	if e.closed {
		return fmt.Errorf("speaker: embed on a closed encoder")
	}
	if n := e.cfg.MinSamples(); len(samples) < n {
		return fmt.Errorf("speaker: reference audio of %d samples is too short: the speaker encoder needs at least %d samples (%d mel frames) at 24 kHz", len(samples), n, e.cfg.MinFrames())
	}
	for i, v := range samples {
		if v-v != 0 { // NaN or ±Inf
			return fmt.Errorf("speaker: reference sample %d is %v", i, v)
		}
	}
	T := MelFrames(len(samples))
	e.ensure(T)
	mel, _, err := e.mel.Compute(e.s.mel, samples)
	if err != nil {
		return err
	}
	return e.EmbedMel(dst, mel, T)
}

// EmbedMel computes the embedding from a log-mel spectrogram, time-major
// [T][128], as the encoder's network receives it.
func (e *Encoder) EmbedMel(dst, mel []float32, T int) error {
	if e.closed {
		return fmt.Errorf("speaker: embed on a closed encoder")
	}
	c := e.cfg
	if len(dst) != c.EncDim {
		return fmt.Errorf("speaker: embedding buffer of %d values, want %d", len(dst), c.EncDim)
	}
	if T < c.MinFrames() {
		return fmt.Errorf("speaker: %d mel frames, the speaker encoder needs at least %d", T, c.MinFrames())
	}
	if len(mel) != T*c.MelDim {
		return fmt.Errorf("speaker: mel of %d values, want %d frames × %d", len(mel), T, c.MelDim)
	}
	e.ensure(T)
	s := &e.s
	L := len(c.Channels) - 1
	if err := e.sameConv(s.outs[0], mel, T, e.tdnn0); err != nil {
		return err
	}
	relu(s.outs[0][:T*e.tdnn0.out])
	for i := range e.blocks {
		if err := e.block(&e.blocks[i], s.outs[i+1], s.outs[i], T); err != nil {
			return err
		}
	}
	// MFA on the concat of the blocks' outputs
	cat, off := 0, 0
	for i := 1; i < L; i++ {
		cat += c.Channels[i]
	}
	for i := 1; i < L; i++ {
		w := c.Channels[i]
		for t := 0; t < T; t++ {
			copy(s.cat[t*cat+off:t*cat+off+w], s.outs[i][t*w:(t+1)*w])
		}
		off += w
	}
	if err := e.sameConv(s.mfa, s.cat[:T*cat], T, e.mfa); err != nil {
		return err
	}
	cl := c.Channels[L]
	x := s.mfa[:T*cl]
	relu(x)
	if err := e.pool(x, T); err != nil {
		return err
	}
	if err := e.b.Conv(dst, s.pooled, 1, 1, e.fc.h); err != nil {
		return fmt.Errorf("speaker: fc: %w", err)
	}
	return nil
}

// sameConv runs cv over T rows of x with PyTorch's padding="same" in
// reflect mode: total (k−1)·d rows, ⌊total/2⌋ before and the rest after,
// reflected about the first and last rows.
func (e *Encoder) sameConv(y, x []float32, T int, cv conv) error {
	total := (cv.kernel - 1) * cv.dilate
	if total == 0 {
		if err := e.b.Conv(y[:T*cv.out], x[:T*cv.in], T, 1, cv.h); err != nil {
			return fmt.Errorf("speaker: conv: %w", err)
		}
		return nil
	}
	left := total / 2
	w := cv.in
	pad := e.s.pad[:(T+total)*w]
	for r := 0; r < T+total; r++ {
		j := r - left
		if j < 0 {
			j = -j
		} else if j >= T {
			j = 2*(T-1) - j
		}
		copy(pad[r*w:(r+1)*w], x[j*w:(j+1)*w])
	}
	if err := e.b.Conv(y[:T*cv.out], pad, T, 1, cv.h); err != nil {
		return fmt.Errorf("speaker: conv: %w", err)
	}
	return nil
}

// block runs one SE-Res2Net block: y = SE(tdnn2(Res2Net(tdnn1(x)))) + x.
func (e *Encoder) block(bl *block, y, x []float32, T int) error {
	s := &e.s
	C := bl.tdnn1.out
	h1, res, h2 := s.h1[:T*C], s.res[:T*C], s.h2[:T*C]
	if err := e.b.Conv(h1, x[:T*bl.tdnn1.in], T, 1, bl.tdnn1.h); err != nil {
		return fmt.Errorf("speaker: tdnn1: %w", err)
	}
	relu(h1)
	scale := len(bl.res) + 1
	w := C / scale
	for t := 0; t < T; t++ { // split 0 passes through
		copy(res[t*C:t*C+w], h1[t*C:t*C+w])
	}
	part := s.part[:T*w]
	for j := 1; j < scale; j++ {
		cv := bl.res[j-1]
		total := (cv.kernel - 1) * cv.dilate
		left := total / 2
		pad := s.pad[:(T+total)*w]
		for r := 0; r < T+total; r++ {
			t := r - left
			if t < 0 {
				t = -t
			} else if t >= T {
				t = 2*(T-1) - t
			}
			dst := pad[r*w : (r+1)*w]
			copy(dst, h1[t*C+j*w:t*C+(j+1)*w])
			if j >= 2 { // split j adds the previous split's output
				prev := part[t*w : (t+1)*w]
				for i := range dst {
					dst[i] += prev[i]
				}
			}
		}
		if err := e.b.Conv(part, pad, T, 1, cv.h); err != nil {
			return fmt.Errorf("speaker: res2net: %w", err)
		}
		relu(part)
		for t := 0; t < T; t++ {
			copy(res[t*C+j*w:t*C+(j+1)*w], part[t*w:(t+1)*w])
		}
	}
	if err := e.b.Conv(h2, res, T, 1, bl.tdnn2.h); err != nil {
		return fmt.Errorf("speaker: tdnn2: %w", err)
	}
	relu(h2)
	// squeeze-excitation: the mean over time through two pointwise convs
	mean := s.vec[:C]
	meanRows(mean, h2, T, C, s.acc[0])
	mid := s.seMid[:bl.se1.out]
	if err := e.b.Conv(mid, mean, 1, 1, bl.se1.h); err != nil {
		return fmt.Errorf("speaker: se conv1: %w", err)
	}
	relu(mid)
	sc := s.seScale[:C]
	if err := e.b.Conv(sc, mid, 1, 1, bl.se2.h); err != nil {
		return fmt.Errorf("speaker: se conv2: %w", err)
	}
	for i, v := range sc {
		sc[i] = float32(1 / (1 + math.Exp(-float64(v))))
	}
	for t := 0; t < T; t++ {
		row, in, out := h2[t*C:(t+1)*C], x[t*C:(t+1)*C], y[t*C:(t+1)*C]
		for i := range row {
			out[i] = row[i]*sc[i] + in[i]
		}
	}
	return nil
}

// meanRows writes the mean over T rows of each of C columns, summed in
// float64 in acc (C values).
func meanRows(dst, x []float32, T, C int, acc []float64) {
	acc = acc[:C]
	clear(acc)
	for t := 0; t < T; t++ {
		for i, v := range x[t*C : (t+1)*C] {
			acc[i] += float64(v)
		}
	}
	for i := range dst {
		dst[i] = float32(acc[i] / float64(T))
	}
}

// relu sets the negative values of x to zero, branch-free (a sign mask
// clears them: a data-dependent branch here mispredicted on every other
// value, 6% of an embedding). −0 becomes +0.
func relu(x []float32) {
	for i, v := range x {
		b := math.Float32bits(v)
		x[i] = math.Float32frombits(b &^ uint32(int32(b)>>31))
	}
}
