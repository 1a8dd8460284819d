package core

import (
	"crypto/sha256"
	"encoding/binary"

	"github.com/omni-tts/omni/codec"
)

// DefaultPrimedStates is the number of primed decoder states the codec
// stage keeps (Config.PrimedStates): each is one codec stream's state
// (about 5 MB at the real geometry).
const DefaultPrimedStates = 4

// primedKey identifies a primed decoder state: the digest of the frames
// it decoded (the reference codes actually primed, which with
// Config.ClonePrefixFrames may be the last K of them).
type primedKey [sha256.Size]byte

// primedState is a decoder state left by priming a reference, kept so the
// next stream with the same reference copies it instead of decoding the
// frames again (codec.Stream.CopyFrom gives the very state).
type primedState struct {
	key primedKey
	dec *codec.Stream
}

// primedCache holds the most recently used primed states, at most max of
// them, on the codec goroutine only (no lock). It is used where the codec
// backend can copy stream states (the native one); elsewhere every stream
// primes.
type primedCache struct {
	max     int
	entries []primedState // most recently used last
}

// keyOf returns the key of reference frames codes (frame-major, 16 a frame).
func keyOf(codes []int32) primedKey {
	b := make([]byte, 0, 4*len(codes))
	for _, c := range codes {
		b = binary.LittleEndian.AppendUint32(b, uint32(c))
	}
	return sha256.Sum256(b)
}

// usable reports whether the cache can hold states of m at all.
func (c *primedCache) usable(m *codec.Model) bool { return c.max > 0 && m.CanCopyStreams() }

// take copies the cached state of key into dec and reports whether there
// was one.
func (c *primedCache) take(key primedKey, dec *codec.Stream) (bool, error) {
	for i, e := range c.entries {
		if e.key != key {
			continue
		}
		if err := dec.CopyFrom(e.dec); err != nil {
			return false, err
		}
		copy(c.entries[i:], c.entries[i+1:])
		c.entries[len(c.entries)-1] = e
		return true, nil
	}
	return false, nil
}

// keep stores a copy of dec's state (just primed with key's frames) on m,
// evicting the least recently used state beyond max.
func (c *primedCache) keep(m *codec.Model, key primedKey, dec *codec.Stream) error {
	if !c.usable(m) {
		return nil
	}
	var snap *codec.Stream
	if len(c.entries) >= c.max {
		snap = c.entries[0].dec // reuse the evicted state's buffers
		copy(c.entries, c.entries[1:])
		c.entries = c.entries[:len(c.entries)-1]
	} else {
		s, err := m.NewStream()
		if err != nil {
			return err
		}
		snap = s
	}
	if err := snap.CopyFrom(dec); err != nil {
		snap.Close()
		return err
	}
	c.entries = append(c.entries, primedState{key: key, dec: snap})
	return nil
}

// close frees every kept state.
func (c *primedCache) close() {
	for _, e := range c.entries {
		e.dec.Close()
	}
	c.entries = nil
}
