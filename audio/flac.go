package audio

import (
	"io"
	"math/bits"
)

// flacBlock is the FLAC block size: one codec frame of omni's (80 ms at
// 24 kHz), so every frame the engine makes leaves as one FLAC frame at once.
const flacBlock = 1920

// flacEncoder writes a streamable FLAC (RFC 9639) of 16-bit mono:
// STREAMINFO with the total length and MD5 marked unknown, then one frame
// per 1920 samples. Each subframe takes the best of the fixed predictors
// of order 0–4 and codes its residual with one Rice partition.
type flacEncoder struct {
	rate  int
	hold  []int32 // samples of the block being filled
	frame uint64  // frame number
	bw    bitWriter
	res   []int32
}

func newFLACEncoder(rate int) *flacEncoder {
	return &flacEncoder{rate: rate, hold: make([]int32, 0, flacBlock), res: make([]int32, flacBlock)}
}

// Begin implements Encoder: the "fLaC" marker and STREAMINFO.
func (e *flacEncoder) Begin(w io.Writer) error {
	b := &e.bw
	b.reset()
	b.bytes([]byte("fLaC"))
	b.put(1, 1)   // last metadata block
	b.put(0, 7)   // STREAMINFO
	b.put(34, 24) // length
	b.put(flacBlock, 16)
	b.put(flacBlock, 16)
	b.put(0, 24) // min frame size unknown
	b.put(0, 24) // max frame size unknown
	b.put(uint64(e.rate), 20)
	b.put(0, 3)  // channels - 1
	b.put(15, 5) // bits per sample - 1
	b.put(0, 36) // total samples unknown (streamed)
	for range 16 {
		b.put(0, 8) // MD5 unknown
	}
	_, err := w.Write(b.buf)
	return err
}

// Encode implements Encoder.
func (e *flacEncoder) Encode(w io.Writer, pcm []float32) error {
	for _, x := range pcm {
		e.hold = append(e.hold, int32(PCM16(x)))
		if len(e.hold) == flacBlock {
			if err := e.writeFrame(w, e.hold); err != nil {
				return err
			}
			e.hold = e.hold[:0]
		}
	}
	return nil
}

// Finish implements Encoder: the last, shorter block.
func (e *flacEncoder) Finish(w io.Writer) error {
	if len(e.hold) == 0 {
		return nil
	}
	err := e.writeFrame(w, e.hold)
	e.hold = e.hold[:0]
	return err
}

// rateCode is a frame header's sample-rate code: 24 kHz has its own
// (0x7), other rates refer to STREAMINFO (0x0).
func rateCode(rate int) uint64 {
	if rate == 24000 {
		return 0x7
	}
	return 0
}

// writeFrame codes one block as a FLAC frame.
func (e *flacEncoder) writeFrame(w io.Writer, s []int32) error {
	b := &e.bw
	b.reset()
	// Frame header.
	b.put(0x3FFE, 14) // sync
	b.put(0, 1)       // reserved
	b.put(0, 1)       // fixed block size
	b.put(0x7, 4)     // block size: 16-bit (size-1) after the frame number
	b.put(rateCode(e.rate), 4)
	b.put(0, 4)   // mono
	b.put(0x4, 3) // 16 bits per sample
	b.put(0, 1)   // reserved
	b.utf8(e.frame)
	b.put(uint64(len(s)-1), 16)
	b.put(uint64(crc8(b.buf)), 8)
	e.frame++

	// One fixed-predictor subframe.
	order := bestFixedOrder(s)
	b.put(0, 1)
	b.put(uint64(0x08|order), 6) // 001xxx: fixed, order xxx
	b.put(0, 1)                  // no wasted bits
	for i := range order {
		b.putSigned(int64(s[i]), 16)
	}
	res := e.res[:len(s)-order]
	fixedResidual(s, order, res)
	k := riceParam(res)
	b.put(0, 2) // Rice, 4-bit parameters
	b.put(0, 4) // partition order 0
	b.put(uint64(k), 4)
	for _, r := range res {
		u := uint64(uint32(r<<1) ^ uint32(r>>31)) // zigzag
		q := u >> k
		b.unary(q)
		b.put(u&(1<<k-1), k)
	}
	b.align()
	crc := crc16(b.buf)
	b.put(uint64(crc), 16)
	_, err := w.Write(b.buf)
	return err
}

// fixedResidual writes the residual of the fixed predictor of the given
// order (RFC 9639 §9.2.5): the order-th difference of s, from s[order] on.
func fixedResidual(s []int32, order int, out []int32) {
	for i := order; i < len(s); i++ {
		var p int32
		switch order {
		case 1:
			p = s[i-1]
		case 2:
			p = 2*s[i-1] - s[i-2]
		case 3:
			p = 3*s[i-1] - 3*s[i-2] + s[i-3]
		case 4:
			p = 4*s[i-1] - 6*s[i-2] + 4*s[i-3] - s[i-4]
		}
		out[i-order] = s[i] - p
	}
}

// bestFixedOrder picks the fixed order (0–4, at most len(s)-1) whose
// residual has the smallest sum of magnitudes.
func bestFixedOrder(s []int32) int {
	best, bestSum := 0, uint64(1<<63)
	for o := 0; o <= 4 && o < len(s); o++ {
		var sum uint64
		for i := o; i < len(s); i++ {
			var p int32
			switch o {
			case 1:
				p = s[i-1]
			case 2:
				p = 2*s[i-1] - s[i-2]
			case 3:
				p = 3*s[i-1] - 3*s[i-2] + s[i-3]
			case 4:
				p = 4*s[i-1] - 6*s[i-2] + 4*s[i-3] - s[i-4]
			}
			r := int64(s[i] - p)
			if r < 0 {
				r = -r
			}
			sum += uint64(r)
		}
		if sum < bestSum {
			best, bestSum = o, sum
		}
	}
	return best
}

// riceParam picks the Rice parameter for a residual: about log2 of the mean
// zigzagged value, in [0, 14].
func riceParam(res []int32) uint {
	if len(res) == 0 {
		return 0
	}
	var sum uint64
	for _, r := range res {
		sum += uint64(uint32(r<<1) ^ uint32(r>>31))
	}
	mean := sum / uint64(len(res))
	if mean == 0 {
		return 0
	}
	return uint(min(bits.Len64(mean)-1, 14))
}

// bitWriter packs big-endian bit fields into bytes.
type bitWriter struct {
	buf   []byte
	acc   uint64
	nbits uint
}

func (b *bitWriter) reset() { b.buf, b.acc, b.nbits = b.buf[:0], 0, 0 }

// put appends the n low bits of v (n ≤ 56).
func (b *bitWriter) put(v uint64, n uint) {
	if n == 0 {
		return
	}
	b.acc = b.acc<<n | v&(1<<n-1)
	b.nbits += n
	for b.nbits >= 8 {
		b.nbits -= 8
		b.buf = append(b.buf, byte(b.acc>>b.nbits))
	}
}

func (b *bitWriter) putSigned(v int64, n uint) { b.put(uint64(v), n) }

// unary appends q zero bits and a one.
func (b *bitWriter) unary(q uint64) {
	for q >= 32 {
		b.put(0, 32)
		q -= 32
	}
	b.put(1, uint(q)+1)
}

func (b *bitWriter) bytes(p []byte) {
	for _, c := range p {
		b.put(uint64(c), 8)
	}
}

// align pads with zero bits to a byte boundary.
func (b *bitWriter) align() {
	if b.nbits > 0 {
		b.put(0, 8-b.nbits)
	}
}

// utf8 appends v in FLAC's extended UTF-8 coding of frame numbers.
func (b *bitWriter) utf8(v uint64) {
	if v < 0x80 {
		b.put(v, 8)
		return
	}
	n := 2 // total bytes
	for v >= 1<<(5*n+1) {
		n++
	}
	lead := uint64(0xFF<<(8-n)) & 0xFF
	b.put(lead|v>>(6*(n-1)), 8)
	for i := n - 2; i >= 0; i-- {
		b.put(0x80|(v>>(6*i))&0x3F, 8)
	}
}

// crc8 is FLAC's header CRC: polynomial x^8+x^2+x+1 (0x07), initial 0.
func crc8(p []byte) uint8 {
	var c uint8
	for _, x := range p {
		c ^= x
		for range 8 {
			if c&0x80 != 0 {
				c = c<<1 ^ 0x07
			} else {
				c <<= 1
			}
		}
	}
	return c
}

// crc16 is FLAC's frame CRC: polynomial x^16+x^15+x^2+1 (0x8005), initial 0.
func crc16(p []byte) uint16 {
	var c uint16
	for _, x := range p {
		c ^= uint16(x) << 8
		for range 8 {
			if c&0x8000 != 0 {
				c = c<<1 ^ 0x8005
			} else {
				c <<= 1
			}
		}
	}
	return c
}
