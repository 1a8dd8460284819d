package host

import (
	"math/rand/v2"

	"github.com/omni-tts/omni/wasm/abi"
)

// A guest handle packs a slot, a generation and a table tag into a positive
// int32:
//
//	bit 31: 0 · bits 24..30: table tag (1..127) · bits 16..23: generation · bits 0..15: slot+1
//
// The tag refuses handles of another table (another engine); the generation
// refuses a handle whose object was freed, even after its slot is reused;
// the owner refuses a handle another guest instance made. Native handles
// never reach the guest.
const (
	slotBits = 16
	genBits  = 8
	maxSlots = 1<<slotBits - 1
)

// owner identifies who made an object: ownerHost for weights the host
// loaded (read-only to guests), or a guest instance number.
type owner uint32

const ownerHost owner = 0

// entry is one slot of the table.
type entry struct {
	native int32
	kind   abi.Kind
	gen    uint8
	live   bool
	owner  owner
	dims   [4]int // per kind as abi documents (abi.Created): matrix rows, cols; conv out, in, kernel, dilation; …
	bytes  int64  // host memory the object holds (for the instance budget)
}

// handleTable maps guest handles to native objects. It is used by one
// goroutine at a time (the one running the engine's guest).
type handleTable struct {
	tag     uint32
	entries []entry
	free    []int32
	live    int
}

// newHandleTable returns an empty table with a random tag, so that handles
// of two engines in one process almost never coincide.
func newHandleTable() *handleTable {
	return &handleTable{tag: 1 + rand.Uint32N(127)}
}

// encode builds the guest handle of slot i.
func (t *handleTable) encode(i int32) int32 {
	return int32(t.tag<<(slotBits+genBits) | uint32(t.entries[i].gen)<<slotBits | uint32(i+1))
}

// add stores a native object and returns its guest handle.
func (t *handleTable) add(native int32, kind abi.Kind, dims [4]int, bytes int64, o owner) (int32, abi.Status) {
	var i int32
	if n := len(t.free); n > 0 {
		i = t.free[n-1]
		t.free = t.free[:n-1]
	} else {
		if len(t.entries) >= maxSlots {
			return -1, abi.StatusNoHandles
		}
		t.entries = append(t.entries, entry{})
		i = int32(len(t.entries) - 1)
	}
	e := &t.entries[i]
	gen := e.gen
	*e = entry{native: native, kind: kind, gen: gen, live: true, owner: o, dims: dims, bytes: bytes}
	t.live++
	return t.encode(i), abi.StatusOK
}

// lookup returns the entry of guest handle h if caller may use it as kind
// (abi.KindNone accepts any kind).
func (t *handleTable) lookup(h int32, kind abi.Kind, caller owner) (*entry, abi.Status) {
	if h <= 0 {
		return nil, abi.StatusBadHandle
	}
	u := uint32(h)
	if u>>(slotBits+genBits) != t.tag {
		return nil, abi.StatusForeignHandle
	}
	slot := int(u&maxSlots) - 1
	if slot < 0 || slot >= len(t.entries) {
		return nil, abi.StatusBadHandle
	}
	e := &t.entries[slot]
	if !e.live || uint32(e.gen) != (u>>slotBits)&(1<<genBits-1) {
		return nil, abi.StatusStaleHandle
	}
	if e.owner != ownerHost && e.owner != caller {
		return nil, abi.StatusForeignHandle
	}
	if kind != abi.KindNone && e.kind != kind {
		return nil, abi.StatusWrongKind
	}
	return e, abi.StatusOK
}

// remove retires guest handle h (already validated by lookup) and returns
// its native handle.
func (t *handleTable) remove(h int32) int32 {
	slot := int32(uint32(h)&maxSlots) - 1
	e := &t.entries[slot]
	native := e.native
	gen := e.gen + 1
	*e = entry{gen: gen}
	t.free = append(t.free, slot)
	t.live--
	return native
}

// release retires every handle owned by o and calls drop with each native
// handle (an instance's objects when it is discarded).
func (t *handleTable) release(o owner, drop func(native int32)) {
	for i := range t.entries {
		e := &t.entries[i]
		if e.live && e.owner == o {
			native := t.remove(t.encode(int32(i)))
			drop(native)
		}
	}
}

// count returns the live handles owned by o.
func (t *handleTable) count(o owner) int {
	n := 0
	for i := range t.entries {
		if t.entries[i].live && t.entries[i].owner == o {
			n++
		}
	}
	return n
}
