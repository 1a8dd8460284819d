package sampler

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// mtN is the MT19937 state size in 32-bit words.
const mtN = 624

// Generator is a per-request random stream that reproduces PyTorch's CPU
// generator bit for bit: MT19937 seeded like torch.Generator().manual_seed
// (only the seed's low 32 bits matter), and Exponential draws exactly as
// torch's CPU exponential_ (two words per element, 53-bit uniform u,
// float32(-log1p(-u))).
//
// A Generator is not safe for concurrent use; each request owns its own.
type Generator struct {
	mt    [mtN / 2]uint64 // word i is bits 32·(i&1).. of mt[i/2] (two lanes per uint64)
	idx   int             // next word; mtN means "twist before the next word"
	zeros bool            // the current block holds a raw zero word (a draw may give u == 0)
}

// NewGenerator returns a generator seeded like torch.Generator().manual_seed(seed).
func NewGenerator(seed int64) *Generator {
	g := &Generator{}
	g.Seed(seed)
	return g
}

// Seed resets g as manual_seed(seed) does: MT19937 init_genrand with the low
// 32 bits of seed (seeds 1 and 2³²+1 give the same stream).
func (g *Generator) Seed(seed int64) {
	s := uint32(uint64(seed))
	g.setWord(0, s)
	for i := 1; i < mtN; i++ {
		s = 1812433253*(s^(s>>30)) + uint32(i)
		g.setWord(i, s)
	}
	g.idx = mtN
}

// word returns raw state word i.
func (g *Generator) word(i int) uint32 { return uint32(g.mt[i>>1] >> (uint(i&1) * 32)) }

// setWord sets raw state word i.
func (g *Generator) setWord(i int, w uint32) {
	sh := uint(i&1) * 32
	g.mt[i>>1] = g.mt[i>>1]&^(0xffffffff<<sh) | uint64(w)<<sh
}

// twist regenerates the 624-word state block, two words per uint64 lane
// pair (SWAR): pair j holds words 2j (low) and 2j+1 (high), and word k's new
// value is mt[k+397] ^ (y >> 1) ^ (y odd ? 0x9908b0df : 0) with
// y = mt[k]&0x80000000 | mt[k+1]&0x7fffffff, where indices wrap at 624 and
// words already regenerated are used, as MT19937 specifies. It reports
// whether any new raw word is zero (the only way a draw can give u == 0).
func (g *Generator) twist() (anyZero bool) {
	const (
		half = mtN / 2 // 312 pairs
		off  = 397 / 2 // word k+397 starts in pair j+198 (high lane)
	)
	mt := &g.mt
	var z uint64 // a zero lane of a new word sets its top bit here
	// Each pair's words k+1 and k+398 are the next pair's k and k+397:
	// they are carried over, so an iteration loads two pairs, not four.
	// Pairs 0..112: words k+397, k+398 are old words 2j+397, 2j+398.
	cur, mm := mt[0], mt[off]
	for j := 0; j < half-off-1; j++ {
		nxt, mm2 := mt[j+1], mt[j+off+1]
		w := twistPair(cur, cur>>32|nxt<<32, mm>>32|mm2<<32)
		mt[j] = w
		z |= (w - ones) &^ w & upper
		cur, mm = nxt, mm2
	}
	// Pair 113: words 623 (old) and 0 (new).
	j := half - off - 1
	w := twistPair(mt[j], mt[j]>>32|mt[j+1]<<32, mt[half-1]>>32|mt[0]<<32)
	mt[j] = w
	z |= (w - ones) &^ w & upper
	// Pairs 114..310: words 2j−227, 2j−226, both new.
	cur, mm = mt[half-off], mt[0]
	for j := half - off; j < half-1; j++ {
		nxt, mm2 := mt[j+1], mt[j-(half-off)+1]
		w := twistPair(cur, cur>>32|nxt<<32, mm>>32|mm2<<32)
		mt[j] = w
		z |= (w - ones) &^ w & upper
		cur, mm = nxt, mm2
	}
	// Pair 311: the next of word 623 is the new word 0.
	j = half - 1
	w = twistPair(mt[j], mt[j]>>32|mt[0]<<32, mt[j-(half-off)]>>32|mt[j-(half-off)+1]<<32)
	mt[j] = w
	z |= (w - ones) &^ w & upper
	g.idx = 0
	g.zeros = z != 0
	return g.zeros
}

// Lane constants of the two-word twist.
const (
	upper = 0x80000000_80000000
	lower = 0x7fffffff_7fffffff
	ones  = 0x00000001_00000001
	mat   = 0x9908b0df_9908b0df
)

// twistPair is the MT19937 recurrence on two lanes: cur holds words k, k+1,
// nxt words k+1, k+2, mm words k+397, k+398.
func twistPair(cur, nxt, mm uint64) uint64 {
	y := cur&upper | nxt&lower
	return mm ^ (y>>1)&lower ^ (y&ones)*0xffffffff&mat
}

// temper is MT19937's output transform of a raw state word.
func temper(y uint32) uint32 {
	y ^= y >> 11
	y ^= y << 7 & 0x9d2c5680
	y ^= y << 15 & 0xefc60000
	y ^= y >> 18
	return y
}

// Uint32 returns the next 32-bit MT19937 output (torch's random()).
func (g *Generator) Uint32() uint32 {
	if g.idx >= mtN {
		g.twist()
	}
	w := g.word(g.idx)
	g.idx++
	return temper(w)
}

// expFromWords is one torch CPU exponential_ element from the words w1, w2:
// u = (((w1<<32)|w2) & (2⁵³−1))·2⁻⁵³, q = float32(−log1p(−u)) in float64.
func expFromWords(w1, w2 uint32) float32 {
	r := (uint64(w1)<<32 | uint64(w2)) & (1<<53 - 1)
	u := float64(r) * (1.0 / (1 << 53))
	return float32(-math.Log1p(-u))
}

// Exponential fills dst with Exp(1) values exactly as
// torch.empty(len(dst)).exponential_(generator=g) does on the CPU, advancing
// the stream by 2·len(dst) words.
func (g *Generator) Exponential(dst []float32) {
	for i := range dst {
		w1 := g.Uint32()
		w2 := g.Uint32()
		dst[i] = expFromWords(w1, w2)
	}
}

// exponentialAt advances the stream exactly as Exponential over n elements
// would, but computes only the elements at the ascending indices at (all < n),
// writing element at[j] to out[j]. Words of other elements are generated by
// the twist but never tempered or transformed. It returns the first element
// not in at whose u is exactly 0 (its q would be 0), or -1.
func (g *Generator) exponentialAt(n int, at []int32, out []float32) int {
	firstZero := -1
	next := 0 // position in at
	e := 0    // current element
	if g.zeros && g.idx < mtN {
		firstZero = g.zeroScan(0, n, at)
	}
	for e < n {
		if g.idx >= mtN {
			if g.twist() && firstZero < 0 {
				firstZero = g.zeroScan(e, n, at[next:])
			}
		}
		// Elements whose two words both lie in the current block.
		avail := (mtN - g.idx) / 2
		end := e + avail
		if end > n {
			end = n
		}
		for next < len(at) && int(at[next]) < end {
			w := g.idx + 2*(int(at[next])-e)
			var w1, w2 uint32
			if w&1 == 0 {
				p := g.mt[w>>1]
				w1, w2 = uint32(p), uint32(p>>32)
			} else {
				w1, w2 = g.word(w), g.word(w+1)
			}
			out[next] = expFromWords(temper(w1), temper(w2))
			next++
		}
		g.idx += 2 * (end - e)
		e = end
		if e < n && g.idx == mtN-1 {
			// One element straddles the block boundary.
			w1 := temper(g.word(g.idx))
			g.idx++
			zero := g.twist()
			w2 := temper(g.word(0))
			g.idx = 1
			if next < len(at) && int(at[next]) == e {
				out[next] = expFromWords(w1, w2)
				next++
			} else if firstZero < 0 && expFromWords(w1, w2) == 0 {
				firstZero = e
			}
			e++
			if zero && firstZero < 0 {
				g.idx = 1
				firstZero = g.zeroScan(e, n, at[next:])
			}
		}
	}
	return firstZero
}

// zeroScan looks, in the block just twisted (starting at g.idx), for the first
// element from e on (below n, not in at) whose u is 0. It does not move g.idx.
func (g *Generator) zeroScan(e, n int, at []int32) int {
	j := 0
	for w := g.idx; w+1 < mtN && e < n; w, e = w+2, e+1 {
		for j < len(at) && int(at[j]) < e {
			j++
		}
		if j < len(at) && int(at[j]) == e {
			continue
		}
		if g.word(w+1) == 0 && temper(g.word(w))&(1<<21-1) == 0 {
			return e
		}
	}
	return -1
}

// skipExponential advances the stream as Exponential over n elements would,
// without computing any value. It returns the first element whose u is 0, or -1.
func (g *Generator) skipExponential(n int) int {
	return g.exponentialAt(n, nil, nil)
}

// stateSize is the length of a marshalled Generator.
const stateSize = 4 + 4*mtN + 4

// stateMagic opens a marshalled Generator ("MT19").
const stateMagic = 0x3931544d

// MarshalBinary saves the generator's state (624 words and the position), so
// a request moved to another engine continues its stream. It implements
// encoding.BinaryMarshaler.
func (g *Generator) MarshalBinary() ([]byte, error) {
	b := make([]byte, stateSize)
	binary.LittleEndian.PutUint32(b, stateMagic)
	for i := 0; i < mtN; i++ {
		binary.LittleEndian.PutUint32(b[4+4*i:], g.word(i))
	}
	binary.LittleEndian.PutUint32(b[4+4*mtN:], uint32(g.idx))
	return b, nil
}

// ErrState is wrapped by the error for a malformed saved generator state.
var ErrState = errors.New("sampler: malformed generator state")

// UnmarshalBinary restores a state saved by MarshalBinary. It implements
// encoding.BinaryUnmarshaler.
func (g *Generator) UnmarshalBinary(b []byte) error {
	if len(b) != stateSize {
		return fmt.Errorf("%w: %d bytes, want %d", ErrState, len(b), stateSize)
	}
	if binary.LittleEndian.Uint32(b) != stateMagic {
		return fmt.Errorf("%w: bad magic", ErrState)
	}
	idx := binary.LittleEndian.Uint32(b[4+4*mtN:])
	if idx > mtN {
		return fmt.Errorf("%w: position %d outside [0, %d]", ErrState, idx, mtN)
	}
	g.zeros = false
	for i := 0; i < mtN; i++ {
		w := binary.LittleEndian.Uint32(b[4+4*i:])
		g.setWord(i, w)
		g.zeros = g.zeros || w == 0
	}
	g.idx = int(idx)
	return nil
}

// Advance moves the stream forward exactly as Exponential over n elements
// would, without computing the values.
func (g *Generator) Advance(n int) { g.skipExponential(n) }
