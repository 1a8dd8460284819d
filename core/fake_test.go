package core

import (
	"fmt"
	"sync"
	"time"

	"github.com/omni-tts/omni/stats"
)

// newFakeClock returns a stats.ManualClock the tests move by hand (or a
// fakeModel's onStep moves once per talker decode: a fake step time).
func newFakeClock() *stats.ManualClock {
	return stats.NewManualClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
}

// tinyIDs are special ids for the fake model: text vocabulary 64, talker
// vocabulary 40 with a 16-entry codebook, EOS 18.
func tinyIDs() SpecialIDs {
	return SpecialIDs{
		ImStart: 60, Assistant: 61, Newline: 62, TTSPad: 50, TTSBos: 51, TTSEos: 52,
		CodecPad: 16, CodecBos: 17, CodecEos: 18, CodecThink: 19, CodecNoThink: 20,
		CodecThinkBos: 21, CodecThinkEos: 22,
		TextVocab: 64, CodecVocab: 40, CodebookSize: 16,
		Languages: map[string]int32{"english": 23},
		Speakers:  map[string]int32{"x": 30},
	}
}

// fakeModel is a deterministic stand-in for the talker and code predictor.
// A sequence's state is a running hash of every row it was fed; its logits
// are a fixed function of that state, so a row's output depends only on its
// own history (as the real model's). EOS gets a high logit once the
// sequence has decoded eosAfter rows (0 = never).
type fakeModel struct {
	hidden, vocab, cb, batch int
	eosAfter                 int
	eos                      int32
	bpt                      int64

	mu     sync.Mutex
	live   map[*fakeSeq]bool
	freed  int
	onStep func() // called inside Decode (mid-frame hooks)

	batchPrefills [][]int // the rows of every PrefillBatch call
	failBatch     bool    // PrefillBatch fails (before touching a sequence)
	closed        bool
}

type fakeSeq struct {
	m      *fakeModel
	maxLen int
	pos    int
	state  uint64
	closed bool
}

func (s *fakeSeq) Close() error {
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	if s.closed {
		return fmt.Errorf("fake: double close")
	}
	s.closed = true
	delete(s.m.live, s)
	s.m.freed++
	return nil
}

func newFake(batch int) *fakeModel {
	return &fakeModel{hidden: 4, vocab: 40, cb: 16, batch: batch, eos: 18, bpt: 100, live: map[*fakeSeq]bool{}}
}

func (m *fakeModel) Dims() Dims {
	return Dims{Hidden: m.hidden, Vocab: m.vocab, CodebookSize: m.cb, Groups: Codebooks}
}
func (m *fakeModel) MaxBatch() int          { return m.batch }
func (m *fakeModel) KVBytesPerToken() int64 { return m.bpt }
func (m *fakeModel) Close() error           { m.closed = true; return nil }

func (m *fakeModel) liveSeqs() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.live)
}

func (m *fakeModel) NewSequence(maxLen int) (Sequence, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := &fakeSeq{m: m, maxLen: maxLen, state: 1469598103934665603}
	m.live[s] = true
	return s, nil
}

func mix(h uint64, v float32) uint64 {
	h ^= uint64(int64(v * 1000))
	return h * 1099511628211
}

func (m *fakeModel) TextEmbed(out []float32, ids []int32) error {
	for i, id := range ids {
		for j := 0; j < m.hidden; j++ {
			out[i*m.hidden+j] = float32(id%7) + float32(j)
		}
	}
	return nil
}

func (m *fakeModel) CodecEmbed(out []float32, ids []int32) error {
	for i, id := range ids {
		for j := 0; j < m.hidden; j++ {
			out[i*m.hidden+j] = float32(id%5) * float32(j+1)
		}
	}
	return nil
}

func (m *fakeModel) feed(s *fakeSeq, row []float32) error {
	if s.closed {
		return fmt.Errorf("fake: use of a closed sequence")
	}
	if s.pos >= s.maxLen {
		return fmt.Errorf("fake: sequence full")
	}
	for _, v := range row {
		s.state = mix(s.state, v)
	}
	s.pos++
	return nil
}

func (m *fakeModel) head(s *fakeSeq, decoded int, hidden, logits []float32) {
	for j := range hidden {
		hidden[j] = float32((s.state>>(8*j))&0xff) / 64
	}
	for v := range logits {
		logits[v] = float32((s.state>>(v%56))&0xf) / 4
	}
	logits[m.eos] = -100
	if m.eosAfter > 0 && decoded >= m.eosAfter {
		logits[m.eos] = 100
	}
}

func (m *fakeModel) Prefill(seq Sequence, embeds, hidden, logits []float32) error {
	s := seq.(*fakeSeq)
	for r := 0; r < len(embeds)/m.hidden; r++ {
		if err := m.feed(s, embeds[r*m.hidden:(r+1)*m.hidden]); err != nil {
			return err
		}
	}
	s.pos = 0 // count decoded rows from here
	s.maxLen -= len(embeds) / m.hidden
	m.head(s, 0, hidden, logits)
	return nil
}

// PrefillBatch implements BatchPrefiller as len(seqs) Prefill calls, after
// checking every argument, and records the call.
func (m *fakeModel) PrefillBatch(seqs []Sequence, rows []int, embeds, hidden, logits []float32) error {
	if m.failBatch {
		return fmt.Errorf("fake: batched prefill refused")
	}
	total := 0
	for _, n := range rows {
		total += n
	}
	if len(seqs) > m.batch || len(rows) != len(seqs) || len(embeds) != total*m.hidden ||
		len(hidden) != len(seqs)*m.hidden || len(logits) != len(seqs)*m.vocab {
		return fmt.Errorf("fake: prefill batch of %d sequences, %d row counts, %d embeds, %d hidden, %d logits", len(seqs), len(rows), len(embeds), len(hidden), len(logits))
	}
	m.batchPrefills = append(m.batchPrefills, append([]int(nil), rows...))
	off := 0
	for i, q := range seqs {
		x := embeds[off*m.hidden : (off+rows[i])*m.hidden]
		off += rows[i]
		if err := m.Prefill(q, x, hidden[i*m.hidden:(i+1)*m.hidden], logits[i*m.vocab:(i+1)*m.vocab]); err != nil {
			return err
		}
	}
	return nil
}

func (m *fakeModel) Decode(seqs []Sequence, embeds, hidden, logits []float32) error {
	if len(seqs) > m.batch {
		return fmt.Errorf("fake: batch %d > %d", len(seqs), m.batch)
	}
	for i, q := range seqs {
		s := q.(*fakeSeq)
		if err := m.feed(s, embeds[i*m.hidden:(i+1)*m.hidden]); err != nil {
			return err
		}
		m.head(s, s.pos, hidden[i*m.hidden:(i+1)*m.hidden], logits[i*m.vocab:(i+1)*m.vocab])
	}
	if m.onStep != nil {
		m.onStep()
	}
	return nil
}

func (m *fakeModel) PredictFrame(hidden []float32, c0, codes []int32, pick func(int, []float32, []int32)) error {
	B := len(c0)
	logits := make([]float32, B*m.cb)
	out := make([]int32, B)
	for r := 0; r < B; r++ {
		codes[r*Codebooks] = c0[r]
	}
	for g := 1; g < Codebooks; g++ {
		for r := 0; r < B; r++ {
			h := uint64(c0[r])*31 + uint64(codes[r*Codebooks+g-1])*7 + uint64(hidden[r*m.hidden]*64)
			for v := 0; v < m.cb; v++ {
				logits[r*m.cb+v] = float32((h*uint64(v+3))%11) / 3
			}
		}
		pick(g, logits, out)
		for r := 0; r < B; r++ {
			codes[r*Codebooks+g] = out[r]
		}
	}
	return nil
}

func (m *fakeModel) FrameEmbed(out []float32, codes []int32) error {
	for r := 0; r < len(codes)/Codebooks; r++ {
		for j := 0; j < m.hidden; j++ {
			var s float32
			for g := 0; g < Codebooks; g++ {
				s += float32(codes[r*Codebooks+g]%3) * float32(j+g)
			}
			out[r*m.hidden+j] = s
		}
	}
	return nil
}
