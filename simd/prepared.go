package simd

import (
	"fmt"
	"runtime"
	"unsafe"

	"github.com/omni-tts/omni/wcache"
)

// This file is the backend's side of the prepared-weights cache (package
// wcache): while recording, every weight object the backend prepares
// (matrices, vectors, tables, rotary tables, the codec's convolutions,
// depthwise convolutions and snake factors) is remembered in creation order,
// and SaveRecording writes each as a wcache.Object; while replaying, the
// same creating calls, made in the same order by the same loading code, are
// answered from a cache file's objects (their data are views of the mapped
// file) instead of being prepared again. KV caches and window KV states are
// per-stream state, never cached.
//
// Each prepared type has two functions, save (write yourself into an
// object under a prefix) and a …FromCache reader (check the sizes and
// rebuild yourself on the object's views); a new matrix type adds the two
// and a case in encodeObject/decodeObject.

// CacheLayout names the layout of the objects this build prepares: what a
// cache file of prepared weights is valid for. It changes whenever a
// packing, a quantization or a prepared table changes (simd/2: bf16
// convolutions hold one layout, pairs or panels, not both; simd/3: int8
// convolutions scaled per output and tap, q8rows; simd/4: int8 matrices'
// block scales in bf16).
var CacheLayout = fmt.Sprintf("simd/4 %s panel%d q8block%d-bf16scale conv-q8rows q4block%d hadamard-int8 align64", runtime.GOARCH, PanelRows, DefaultBlock, Q4Block)

// cacheState is a backend's recording or replay.
type cacheState struct {
	recording bool
	rec       []recorded
	replay    *wcache.File // file being replayed (nil: not replaying)
	next      int          // its next object
	files     []*wcache.File
}

// recorded is one prepared object and the signature of the call that made it.
type recorded struct {
	o   object
	sig string
}

// Record starts remembering every weight object the backend prepares, for
// SaveRecording.
func (b *Backend) Record() { b.wc.recording, b.wc.rec = true, nil }

// StopRecording forgets the recording.
func (b *Backend) StopRecording() { b.wc.recording, b.wc.rec = false, nil }

// made files a prepared object (recording it when recording) and returns
// its handle.
func (b *Backend) made(o object, sig string) int32 {
	if b.wc.recording {
		b.wc.rec = append(b.wc.rec, recorded{o, sig})
	}
	return b.put(o)
}

// SaveRecording writes every recorded object to w, in creation order (a
// table with the rows written since), and stops recording.
func (b *Backend) SaveRecording(w *wcache.Writer) error { return b.TakeRecording().Save(w) }

// Recording is what a backend recorded, taken out of it: the backend can
// go on (and record again) while another goroutine saves it. The objects
// must not change meanwhile (after a load nothing writes to weights).
type Recording struct{ rec []recorded }

// TakeRecording stops recording and returns what was recorded.
func (b *Backend) TakeRecording() *Recording {
	r := &Recording{rec: b.wc.rec}
	b.StopRecording()
	return r
}

// Save writes every recorded object to w, in creation order (a table with
// the rows written since its creation).
func (r *Recording) Save(w *wcache.Writer) error {
	rec := r.rec
	for i := range rec {
		wo, err := encodeObject(&rec[i].o, rec[i].sig)
		if err != nil {
			return err
		}
		if err := w.Add(wo); err != nil {
			return err
		}
	}
	return nil
}

// Replay makes the backend answer the weight-creating calls from f's
// objects, in order, until EndReplay; each call must ask for the object
// the recorded call made (same kind, sizes, precision, bias presence), or
// it fails. Tables, MatMul and MatMulAdd do nothing while replaying (their
// effect is in the file). f stays mapped until Close: the objects are
// views of it and read-only (WriteTable refuses them).
func (b *Backend) Replay(f *wcache.File) error {
	if b.wc.replay != nil || b.wc.recording {
		return fmt.Errorf("simd: backend: replay while recording or replaying")
	}
	b.wc.replay, b.wc.next = f, 0
	b.wc.files = append(b.wc.files, f)
	return nil
}

// EndReplay stops replaying; it fails if objects of the file were left
// unclaimed (the loading code asked for fewer than were recorded).
func (b *Backend) EndReplay() error {
	f, n := b.wc.replay, b.wc.next
	b.wc.replay = nil
	if f != nil && n != len(f.Objects) {
		return fmt.Errorf("simd: backend: replay claimed %d of the %d objects of %s", n, len(f.Objects), f.Path())
	}
	return nil
}

// replaying reports whether creating calls are answered from a file.
func (b *Backend) replaying() bool { return b.wc.replay != nil }

// replayNext decodes the next object of the file if it was made by a
// call with signature sig, and files it.
func (b *Backend) replayNext(sig string) (int32, error) {
	f := b.wc.replay
	if b.wc.next >= len(f.Objects) {
		return -1, fmt.Errorf("simd: backend: replay of %s: call %q beyond its %d objects", f.Path(), sig, len(f.Objects))
	}
	i := b.wc.next
	wo := f.Objects[i]
	if got, _ := wo.Str("sig"); got != sig {
		return -1, fmt.Errorf("simd: backend: replay of %s: object %d was made by %q, this call is %q", f.Path(), i, got, sig)
	}
	o, err := decodeObject(wo)
	if err != nil {
		return -1, fmt.Errorf("simd: backend: replay of %s: object %d (%s): %w", f.Path(), i, sig, err)
	}
	o.mapped = true
	b.wc.next++
	return b.put(o), nil
}

// closeFiles releases the files replayed (at Close: no handle is live).
func (b *Backend) closeFiles() {
	for _, f := range b.wc.files {
		f.Close()
	}
	b.wc = cacheState{}
}

// Call signatures: what a creating call asked for, stored with its object.
func sigMatrix(rows, cols int, bias bool, prec string) string {
	return fmt.Sprintf("matrix %dx%d %s bias=%t", rows, cols, prec, bias)
}
func sigVector(n int) string         { return fmt.Sprintf("vector %d", n) }
func sigTable(rows, cols int) string { return fmt.Sprintf("table %dx%d", rows, cols) }
func sigRope(headDim, maxPos int, theta float32) string {
	return fmt.Sprintf("rope %d %d %g", headDim, maxPos, theta)
}
func sigConv(kind string, a, b, kernel, d int, bias bool, prec string) string {
	return fmt.Sprintf("%s %d %d %d %d %s bias=%t", kind, a, b, kernel, d, prec, bias)
}
func sigDepthwise(ch, kernel int, bias bool) string {
	return fmt.Sprintf("depthwise %d %d bias=%t", ch, kernel, bias)
}
func sigSnake(ch int) string { return fmt.Sprintf("snake %d", ch) }

// encodeObject writes a prepared object as a wcache object.
func encodeObject(o *object, sig string) (*wcache.Object, error) {
	w := wcache.NewObject(o.kind.String())
	w.PutStr("sig", sig)
	w.PutInt("rows", o.rows)
	w.PutInt("cols", o.cols)
	switch o.kind {
	case kindMatrix:
		if o.perTensor {
			w.PutInt("pertensor", 1)
		}
		if o.bias != nil {
			w.PutF32("bias", o.bias)
		}
		switch {
		case o.q8 != nil:
			o.q8.save(w, "q8.")
		case o.q4 != nil:
			o.q4.save(w, "q4.")
		case o.f32 != nil:
			w.PutInt("f32.rows", o.f32.rows)
			w.PutInt("f32.cols", o.f32.cols)
			w.PutF32("f32.data", o.f32.w)
		default:
			return nil, fmt.Errorf("simd: backend: BUG: matrix without weights")
		}
	case kindVector, kindTable:
		w.PutF32("data", o.data)
	case kindRope:
		w.PutInt("maxpos", o.maxPos)
		o.rope.save(w, "rope.")
	case kindConv, kindConvT:
		o.conv.save(w, "conv.")
	case kindDepthwise:
		w.PutInt("ch", o.dw.ch)
		w.PutInt("kernel", o.dw.kernel)
		w.PutF32("w", o.dw.w)
		if o.dw.bias != nil {
			w.PutF32("bias", o.dw.bias)
		}
	case kindSnake:
		w.PutF32("a", o.snake.a)
		w.PutF32("inv", o.snake.inv)
	default:
		return nil, fmt.Errorf("simd: backend: %s objects are not cached", o.kind)
	}
	return w, nil
}

// decodeObject rebuilds a prepared object on w's views, checking every size.
func decodeObject(w *wcache.Object) (object, error) {
	var o object
	var err error
	if o.rows, err = w.Int("rows"); err != nil {
		return o, err
	}
	if o.cols, err = w.Int("cols"); err != nil {
		return o, err
	}
	if o.rows < 0 || o.cols < 0 || o.rows > 1<<30 || o.cols > 1<<30 {
		return o, fmt.Errorf("%s of %d×%d: sizes out of range", w.Kind, o.rows, o.cols)
	}
	optF32 := func(name string, n int) ([]float32, error) {
		if !w.Has(name) {
			return nil, nil
		}
		return f32Len(w, name, n)
	}
	switch w.Kind {
	case kindMatrix.String():
		o.kind = kindMatrix
		o.perTensor = w.Ints["pertensor"] == 1
		if o.bias, err = optF32("bias", o.rows); err != nil {
			return o, err
		}
		r, c := 0, 0
		if w.Has("q8.data") {
			if o.q8, err = q8FromCache(w, "q8."); err != nil {
				return o, err
			}
			r, c = o.q8.rows, o.q8.cols
		} else if w.Has("q4.data") {
			if o.q4, err = q4FromCache(w, "q4."); err != nil {
				return o, err
			}
			r, c = o.q4.rows, o.q4.cols
		} else {
			d, err := dims(w, "f32.", "rows", "cols")
			if err != nil {
				return o, err
			}
			o.f32 = &f32Weights{rows: d[0], cols: d[1]}
			if o.f32.w, err = f32Len(w, "f32.data", d[0]*d[1]); err != nil {
				return o, err
			}
			r, c = d[0], d[1]
		}
		if r != o.rows || c != o.cols {
			return o, fmt.Errorf("matrix %dx%d holds weights %dx%d", o.rows, o.cols, r, c)
		}
	case kindVector.String(), kindTable.String():
		o.kind = kindVector
		n := o.cols
		if w.Kind == kindTable.String() {
			o.kind, n = kindTable, o.rows*o.cols
		}
		if o.data, err = f32Len(w, "data", n); err != nil {
			return o, err
		}
	case kindRope.String():
		o.kind = kindRope
		if o.maxPos, err = w.Int("maxpos"); err != nil {
			return o, err
		}
		if o.rope, err = ropeFromCache(w, "rope."); err != nil {
			return o, err
		}
		if o.rope.headDim != o.cols || o.rope.maxPos != o.maxPos {
			return o, fmt.Errorf("rope %d×%d holds tables %d×%d", o.cols, o.maxPos, o.rope.headDim, o.rope.maxPos)
		}
	case kindConv.String(), kindConvT.String():
		o.kind = kindConv
		if w.Kind == kindConvT.String() {
			o.kind = kindConvT
		}
		if o.conv, err = convFromCache(w, "conv.", o.kind == kindConvT); err != nil {
			return o, err
		}
		if o.conv.out != o.rows || o.conv.in != o.cols {
			return o, fmt.Errorf("%s %d×%d holds a conv %d×%d", w.Kind, o.rows, o.cols, o.conv.out, o.conv.in)
		}
	case kindDepthwise.String():
		o.kind = kindDepthwise
		d := &depthwiseWeights{}
		if d.ch, err = w.Int("ch"); err != nil {
			return o, err
		}
		if d.kernel, err = w.Int("kernel"); err != nil {
			return o, err
		}
		if d.ch != o.cols || d.kernel != o.rows || d.ch < 1 || d.kernel < 1 {
			return o, fmt.Errorf("depthwise %d×%d holds %d×%d", o.cols, o.rows, d.ch, d.kernel)
		}
		if d.w, err = f32Len(w, "w", d.ch*d.kernel); err != nil {
			return o, err
		}
		if d.bias, err = optF32("bias", d.ch); err != nil {
			return o, err
		}
		o.dw = d
	case kindSnake.String():
		o.kind = kindSnake
		s := &snakeParams{}
		if s.a, err = f32Len(w, "a", o.cols); err != nil {
			return o, err
		}
		if s.inv, err = f32Len(w, "inv", o.cols); err != nil {
			return o, err
		}
		o.snake = s
	default:
		return o, fmt.Errorf("object kind %q unknown", w.Kind)
	}
	return o, nil
}

// f32Len returns a named float32 blob of exactly n values.
func f32Len(w *wcache.Object, name string, n int) ([]float32, error) {
	v, err := w.F32s(name)
	if err != nil {
		return nil, err
	}
	if len(v) != n {
		return nil, fmt.Errorf("blob %s has %d values, want %d", name, len(v), n)
	}
	return v, nil
}

// aligned64 reports whether a slice's data starts at a multiple of 64
// bytes (the kernels' packed weights are made so).
func aligned64[T any](v []T) bool {
	return uintptr(unsafe.Pointer(unsafe.SliceData(v)))&63 == 0
}

// dims reads positive integer fields prefix+name.
func dims(w *wcache.Object, prefix string, names ...string) ([]int, error) {
	out := make([]int, len(names))
	for i, n := range names {
		v, err := w.Int(prefix + n)
		if err != nil {
			return nil, err
		}
		if v < 1 || v > 1<<30 {
			return nil, fmt.Errorf("%s%s = %d out of range", prefix, n, v)
		}
		out[i] = v
	}
	return out, nil
}

// save writes the quantized panels under prefix.
func (w *Q8Matrix) save(o *wcache.Object, prefix string) {
	o.PutInt(prefix+"rows", w.rows)
	o.PutInt(prefix+"cols", w.cols)
	o.PutInt(prefix+"block", w.block)
	o.PutBytes(prefix+"data", w.data)
}

// q8FromCache rebuilds a Q8Matrix on the object's view.
func q8FromCache(o *wcache.Object, prefix string) (*Q8Matrix, error) {
	d, err := dims(o, prefix, "rows", "cols", "block")
	if err != nil {
		return nil, err
	}
	if err := checkBlock(d[2]); err != nil {
		return nil, err
	}
	m := &Q8Matrix{rows: d[0], cols: d[1], block: d[2]}
	m.nb = (m.cols + m.block - 1) / m.block
	m.panels = (m.rows + PanelRows - 1) / PanelRows
	m.panelBytes = m.nb * q8BlockBytes(m.block)
	if m.data, err = o.Bytes(prefix + "data"); err != nil {
		return nil, err
	}
	if len(m.data) != m.panels*m.panelBytes || !aligned64(m.data) {
		return nil, fmt.Errorf("int8 panels of %d×%d: %d bytes (want %d), 64-byte aligned %t", m.rows, m.cols, len(m.data), m.panels*m.panelBytes, aligned64(m.data))
	}
	return m, nil
}

// save writes the 4-bit matrix (its dims, codebook and packed bytes) under
// prefix.
func (w *Q4Matrix) save(o *wcache.Object, prefix string) {
	o.PutInt(prefix+"rows", w.rows)
	o.PutInt(prefix+"cols", w.cols)
	lv := make([]byte, len(w.levels))
	for i, v := range w.levels {
		lv[i] = byte(v)
	}
	o.PutBytes(prefix+"levels", lv)
	o.PutBytes(prefix+"data", w.data)
}

// q4FromCache rebuilds a Q4Matrix on the object's view (NewQ4MatrixFrom
// checks the sizes and the codebook).
func q4FromCache(o *wcache.Object, prefix string) (*Q4Matrix, error) {
	d, err := dims(o, prefix, "rows", "cols")
	if err != nil {
		return nil, err
	}
	lv, err := o.Bytes(prefix + "levels")
	if err != nil {
		return nil, err
	}
	var levels Q4Levels
	if len(lv) != len(levels) {
		return nil, fmt.Errorf("4-bit codebook of %d levels, want %d", len(lv), len(levels))
	}
	for i, b := range lv {
		levels[i] = int8(b)
	}
	data, err := o.Bytes(prefix + "data")
	if err != nil {
		return nil, err
	}
	return NewQ4MatrixFrom(d[0], d[1], levels, data)
}

// save writes the fp32 panels under prefix.
func (w *F32Matrix) save(o *wcache.Object, prefix string) {
	o.PutInt(prefix+"rows", w.rows)
	o.PutInt(prefix+"cols", w.cols)
	o.PutF32(prefix+"data", w.data)
}

// f32FromCache rebuilds an F32Matrix on the object's view.
func f32FromCache(o *wcache.Object, prefix string) (*F32Matrix, error) {
	d, err := dims(o, prefix, "rows", "cols")
	if err != nil {
		return nil, err
	}
	m := &F32Matrix{rows: d[0], cols: d[1], panels: (d[0] + PanelRows - 1) / PanelRows}
	if m.data, err = f32Len(o, prefix+"data", m.panels*PanelRows*m.cols); err != nil {
		return nil, err
	}
	if !aligned64(m.data) {
		return nil, fmt.Errorf("fp32 panels of %d×%d not 64-byte aligned", m.rows, m.cols)
	}
	return m, nil
}

// save writes the bf16 panels under prefix.
func (p *bf16Panels) save(o *wcache.Object, prefix string) {
	o.PutInt(prefix+"rows", p.dims.rows)
	o.PutInt(prefix+"cols", p.dims.cols)
	if p.dot != nil { // the VDPBF16PS pair layout (bf16dot.go), alone
		o.PutU16(prefix+"dot", p.dot)
	} else {
		o.PutU16(prefix+"data", p.data)
	}
}

// save writes the int8 conv weights (dims, packed bytes, meta) under
// prefix.
func (c *q8Conv) save(o *wcache.Object, prefix string) {
	o.PutInt(prefix+"out", c.out)
	o.PutInt(prefix+"in", c.in)
	o.PutInt(prefix+"taps", c.taps)
	o.PutBytes(prefix+"w", unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(c.w))), len(c.w)))
	o.PutBytes(prefix+"meta", unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(c.meta))), 4*len(c.meta)))
}

// q8ConvFromCache rebuilds int8 conv weights on the object's views.
func q8ConvFromCache(o *wcache.Object, prefix string) (*q8Conv, error) {
	d, err := dims(o, prefix, "out", "in", "taps")
	if err != nil {
		return nil, err
	}
	c := &q8Conv{out: d[0], in: d[1], taps: d[2], inP: (d[1] + 3) / 4 * 4, panels: (d[0] + PanelRows - 1) / PanelRows}
	w, err := o.Bytes(prefix + "w")
	if err != nil {
		return nil, err
	}
	meta, err := o.Bytes(prefix + "meta")
	if err != nil {
		return nil, err
	}
	if len(w) != c.panels*c.taps*c.inP*PanelRows || len(meta) != 4*c.taps*c.panels*32 || !aligned64(meta) {
		return nil, fmt.Errorf("int8 conv %d×%d in %d taps: %d weight bytes and %d meta bytes (64-byte aligned %t), want %d and %d",
			c.out, c.in, c.taps, len(w), len(meta), aligned64(meta), c.panels*c.taps*c.inP*PanelRows, 4*c.taps*c.panels*32)
	}
	c.w = unsafe.Slice((*int8)(unsafe.Pointer(unsafe.SliceData(w))), len(w))
	c.meta = unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(meta))), len(meta)/4)
	return c, nil
}

// bf16FromCache rebuilds bf16 panels on the object's view.
func bf16FromCache(o *wcache.Object, prefix string) (*bf16Panels, error) {
	d, err := dims(o, prefix, "rows", "cols")
	if err != nil {
		return nil, err
	}
	p := &bf16Panels{dims: F32Matrix{rows: d[0], cols: d[1], panels: (d[0] + PanelRows - 1) / PanelRows}}
	// The pair layout is in the file, alone, exactly when this CPU computes
	// in bf16 (the cold load packs it then), else the panel layout;
	// CacheLayout keeps files of one layout apart, so a difference here is
	// a damaged or foreign file.
	if want := bf16Dot(AVX512VNNI); o.Has(prefix+"dot") != want || o.Has(prefix+"data") == want {
		return nil, fmt.Errorf("bf16 panels of %d×%d: pair layout present %v, panels present %v; this CPU wants pairs %v and panels %v", d[0], d[1], o.Has(prefix+"dot"), o.Has(prefix+"data"), want, !want)
	}
	if !o.Has(prefix + "dot") {
		if p.data, err = o.U16s(prefix + "data"); err != nil {
			return nil, err
		}
		if len(p.data) != p.dims.panels*PanelRows*p.dims.cols {
			return nil, fmt.Errorf("bf16 panels of %d×%d: %d values, want %d", d[0], d[1], len(p.data), p.dims.panels*PanelRows*p.dims.cols)
		}
	} else {
		p.kp = (p.dims.cols + 1) / 2
		if p.dot, err = o.U16s(prefix + "dot"); err != nil {
			return nil, err
		}
		if len(p.dot) != p.dims.panels*PanelRows*2*p.kp {
			return nil, fmt.Errorf("bf16 pair panels of %d×%d: %d values, want %d", d[0], d[1], len(p.dot), p.dims.panels*PanelRows*2*p.kp)
		}
	}
	return p, nil
}

// save writes the rotary tables under prefix.
func (r *Rope) save(o *wcache.Object, prefix string) {
	o.PutInt(prefix+"headdim", r.headDim)
	o.PutInt(prefix+"maxpos", r.maxPos)
	o.PutF32(prefix+"cos", r.cos)
	o.PutF32(prefix+"sin", r.sin)
}

// ropeFromCache rebuilds rotary tables on the object's views.
func ropeFromCache(o *wcache.Object, prefix string) (*Rope, error) {
	d, err := dims(o, prefix, "headdim", "maxpos")
	if err != nil {
		return nil, err
	}
	if d[0]%2 != 0 {
		return nil, fmt.Errorf("rope head_dim %d odd", d[0])
	}
	r := &Rope{headDim: d[0], half: d[0] / 2, maxPos: d[1]}
	if r.cos, err = f32Len(o, prefix+"cos", r.maxPos*r.half); err != nil {
		return nil, err
	}
	if r.sin, err = f32Len(o, prefix+"sin", r.maxPos*r.half); err != nil {
		return nil, err
	}
	return r, nil
}

// save writes a packed convolution under prefix.
func (c *convWeights) save(o *wcache.Object, prefix string) {
	o.PutInt(prefix+"out", c.out)
	o.PutInt(prefix+"in", c.in)
	o.PutInt(prefix+"kernel", c.kernel)
	o.PutInt(prefix+"dilation", c.dilation)
	o.PutInt(prefix+"stride", c.stride)
	o.PutStr(prefix+"precision", c.precision)
	if c.bias != nil {
		o.PutF32(prefix+"bias", c.bias)
	}
	switch {
	case c.f32 != nil:
		c.f32.save(o, prefix+"f32.")
	case c.bf != nil:
		c.bf.save(o, prefix+"bf16.")
	case c.q8c != nil:
		c.q8c.save(o, prefix+"q8c.")
	}
}

// convFromCache rebuilds a packed convolution on the object's views.
func convFromCache(o *wcache.Object, prefix string, transposed bool) (*convWeights, error) {
	d, err := dims(o, prefix, "out", "in", "kernel")
	if err != nil {
		return nil, err
	}
	c := &convWeights{out: d[0], in: d[1], kernel: d[2]}
	if c.dilation, err = o.Int(prefix + "dilation"); err != nil {
		return nil, err
	}
	if c.stride, err = o.Int(prefix + "stride"); err != nil {
		return nil, err
	}
	if c.precision, err = o.Str(prefix + "precision"); err != nil {
		return nil, err
	}
	rows, cols := c.out, c.kernel*c.in // Conv1d: W' is out × kernel·in
	if transposed {
		rows, cols = c.kernel*c.out, c.in
	}
	var r, k int
	switch c.precision {
	case "fp32":
		if c.f32, err = f32FromCache(o, prefix+"f32."); err == nil {
			r, k = c.f32.rows, c.f32.cols
		}
	case "bf16":
		if c.bf, err = bf16FromCache(o, prefix+"bf16."); err == nil {
			r, k = c.bf.dims.rows, c.bf.dims.cols
		}
	case "int8":
		if c.q8c, err = q8ConvFromCache(o, prefix+"q8c."); err == nil {
			r, k = c.q8c.out, c.q8c.taps*c.q8c.in
			// a conv's taps are its kernel's, each of in inputs; a
			// transposed conv's W' is one tap of in inputs
			taps, in := c.kernel, c.in
			if transposed {
				taps = 1
			}
			if c.q8c.taps != taps || c.q8c.in != in {
				err = fmt.Errorf("int8 conv %d×%d×%d holds %d taps of %d inputs, want %d of %d", c.out, c.in, c.kernel, c.q8c.taps, c.q8c.in, taps, in)
			}
		}
	default:
		err = fmt.Errorf("conv precision %q unknown", c.precision)
	}
	if err != nil {
		return nil, err
	}
	if r != rows || k != cols {
		return nil, fmt.Errorf("conv %d×%d×%d holds weights %d×%d, want %d×%d", c.out, c.in, c.kernel, r, k, rows, cols)
	}
	if o.Has(prefix + "bias") {
		if c.bias, err = f32Len(o, prefix+"bias", c.out); err != nil {
			return nil, err
		}
	}
	return c, nil
}
