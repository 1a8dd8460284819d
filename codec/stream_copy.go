package codec

// KVCopier is the optional backend op Stream.CopyFrom needs: copy window KV
// state src into dst (same geometry). The native backend has it; a backend
// without it (the WASI guest's) cannot copy streams.
type KVCopier interface {
	CopyKV(dst, src int32) error
}

// CanCopyStreams reports whether m's streams can be copied (CopyFrom).
func (m *Model) CanCopyStreams() bool {
	_, ok := m.b.(KVCopier)
	return ok
}

// CopyFrom makes s's state exactly src's (both streams of m): the frames
// s decodes next give the very samples src would. It is how a decoder
// primed once (a voice reference's frames) is reused without decoding them
// again.
func (s *Stream) CopyFrom(src *Stream) error {
	if s.closed || src.closed {
		return errorf(ErrArgs, "copy of a closed stream")
	}
	if s.m != src.m {
		return errorf(ErrArgs, "copy of a stream of another model")
	}
	c, ok := s.m.b.(KVCopier)
	if !ok {
		return errorf(ErrArgs, "the backend cannot copy stream states")
	}
	if err := c.CopyKV(s.kv, src.kv); err != nil {
		return err
	}
	dst, from := s.all(), src.all()
	for i := range dst {
		copy(dst[i], from[i])
	}
	s.pos = src.pos
	return nil
}
