package serve

import (
	"io"
	"net/http"
)

// admitBody is the common preamble of the speech and batch handlers: it
// enters the server (refusing while draining), checks the synthesizer's
// health, refuses a declared body over MaxBodyBytes before reading a byte of
// it (the connection closes), and reads the body within that bound. On
// success the caller holds the server's entry and must call s.leave; on
// failure the error response is written, the entry released, and ok false.
func (s *Server) admitBody(w http.ResponseWriter, r *http.Request) (body []byte, ok bool) {
	if !s.enter() {
		s.metrics.refused.WithLabelValues(refusedDraining).Inc()
		s.writeErr(w, ErrDraining)
		return nil, false
	}
	if err := s.syn.Health(); err != nil {
		s.leave()
		s.writeErr(w, err)
		return nil, false
	}
	if r.ContentLength > s.cfg.MaxBodyBytes {
		s.leave()
		w.Header().Set("Connection", "close")
		s.writeErr(w, &http.MaxBytesError{Limit: s.cfg.MaxBodyBytes})
		return nil, false
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes))
	if err != nil {
		s.leave()
		s.writeErr(w, bodyError(err))
		return nil, false
	}
	return body, true
}
