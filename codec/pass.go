package codec

// DefaultPassFrames is how many stream-frames one pass of the decoder's
// graph takes by default: a DecodeBatch call with more (several streams'
// long chunks) runs in passes of the next frames of every stream. Each
// pass reads the weights once (a few ms per pass), while the activation
// buffers grow with the pass and are reused. Measured in the engine at 4
// streams (RATIONALE.md, "Why does the codec decode in passes of at most 8
// stream-frames?"): whole 16- to 56-frame calls took 31–70 ms per frame
// the first time each size came (the live heap grew by 230 MB of fresh
// pages) and 16–19 ms afterwards; in passes of 8 every call took 16–17.
const DefaultPassFrames = 8

// PassFrames returns the stream-frames one graph pass takes.
func (m *Model) PassFrames() int {
	if m.passFrames > 0 {
		return m.passFrames
	}
	return DefaultPassFrames
}

// SetPassFrames sets the stream-frames one graph pass takes (n ≤ 0 restores
// DefaultPassFrames). Any value gives the same samples.
func (m *Model) SetPassFrames(n int) { m.passFrames = max(0, n) }

// ThreadSetter is the optional backend op behind Model.SetThreads: it
// makes the next kernel calls use n of the backend's threads (n ≤ 0: all)
// and returns the number set. The native backend has it; a backend
// without it runs every call on its own fixed threads.
type ThreadSetter interface {
	SetThreads(n int) int
}

// SetThreads makes the next passes use n of the backend's threads (n ≤ 0:
// all of them) and returns the number set, or 0 when the backend has no
// ThreadSetter. The samples do not depend on it.
func (m *Model) SetThreads(n int) int {
	if t, ok := m.b.(ThreadSetter); ok {
		return t.SetThreads(n)
	}
	return 0
}

// SetPassHook sets a function called before every graph pass of every
// decode call (nil: none), on the decoding goroutine: a caller that
// shares the machine can change the threads of the next pass
// (SetThreads) as the load beside it changes within a long call.
func (m *Model) SetPassHook(f func()) { m.passHook = f }
