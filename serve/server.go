package serve

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

//go:embed static
var staticFS embed.FS

// Server is the HTTP speech server over one Synthesizer. Create it with New,
// serve it with Serve (or mount Handler), and stop it with Drain.
type Server struct {
	syn     Synthesizer
	info    ModelInfo
	cfg     Config
	metrics *Metrics
	handler http.Handler
	cloning // voices_http.go

	draining atomic.Bool
	waiting  atomic.Int64 // callers inside Synthesizer.Start
	running  atomic.Int64 // streams admitted and not yet closed

	// inflight counts speech requests past the draining check; Drain waits
	// for it to reach zero.
	mu       sync.Mutex
	inflight int
	idle     chan struct{} // closed when inflight drops to 0 while draining
	// wsClients counts WebSocket sessions per remote address (ws.go).
	wsClients map[string]int

	// hardCtx is cancelled when the drain grace runs out: the streams still
	// running are cancelled.
	hardCtx    context.Context
	hardCancel context.CancelFunc

	srvMu sync.Mutex
	srvs  []*http.Server
	shut  bool // Drain has shut the servers down; Serve returns at once
}

// New checks cfg and the synthesizer's model info and returns a server.
func New(syn Synthesizer, cfg Config) (*Server, error) {
	if syn == nil {
		return nil, errors.New("serve: nil Synthesizer")
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	info := syn.Info()
	if info.Name == "" {
		return nil, errors.New("serve: model info has no Name")
	}
	if info.SampleRate != SampleRate {
		return nil, fmt.Errorf("serve: model %s sample rate %d, serve speaks %d only", info.Name, info.SampleRate, SampleRate)
	}
	s := &Server{syn: syn, info: info, cfg: cfg}
	s.metrics = newMetrics(syn, cfg.Version,
		func() float64 { return float64(s.running.Load()) },
		func() float64 { return float64(s.waiting.Load()) })
	if err := s.initCloning(); err != nil {
		return nil, err
	}
	s.hardCtx, s.hardCancel = context.WithCancel(context.Background())
	s.handler = s.routes()
	return s, nil
}

// Metrics returns the server's metrics, for an adapter's step-attribution
// hook (Metrics.AddStepSeconds) or extra families.
func (s *Server) Metrics() *Metrics { return s.metrics }

// Handler returns the server's routes.
func (s *Server) Handler() http.Handler { return s.handler }

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	handle := func(pattern, name string, h http.HandlerFunc) {
		mux.Handle(pattern, promhttp.InstrumentHandlerCounter(
			s.metrics.httpRequests.MustCurryWith(map[string]string{"handler": name}), h))
	}
	handle("POST /v1/audio/speech", "speech", s.handleSpeech)
	handle("GET /v1/audio/speech/stream", "speech_stream", s.handleSpeechStream) // ws.go
	handle("POST /v1/audio/speech/batch", "speech_batch", s.handleSpeechBatch)   // batch.go
	handle("GET /v1/audio/voices", "voices", s.handleVoices)
	handle("POST /v1/audio/voices", "voice_add", s.handleVoiceAdd) // voices_http.go
	handle("DELETE /v1/audio/voices/{name}", "voice_delete", s.handleVoiceDelete)
	handle("GET /v1/models", "models", s.handleModels)
	handle("GET /v1/models/{id}", "model", s.handleModel)
	handle("GET /healthz", "healthz", s.handleHealth)
	handle("GET /readyz", "readyz", s.handleReady)
	// The API paths answer other methods 405 naming the one they take.
	for path, allow := range map[string]string{
		"/v1/audio/speech": "POST", "/v1/audio/speech/batch": "POST", "/v1/audio/voices": "GET, POST", "/v1/audio/voices/{name}": "DELETE",
		"/v1/models": "GET", "/v1/models/{id}": "GET",
	} {
		handle(path, "method_not_allowed", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Allow", allow)
			writeError(w, http.StatusMethodNotAllowed, "invalid_request_error", "", "method_not_allowed",
				fmt.Sprintf("%s %s: method not allowed (use %s)", r.Method, r.URL.Path, allow))
		})
	}
	mux.Handle("GET /metrics", promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{}))
	static, _ := fs.Sub(staticFS, "static")
	mux.Handle("GET /{$}", http.FileServerFS(static))
	mux.Handle("GET /clone.js", http.FileServerFS(static)) // the playground's clone tab
	mux.HandleFunc("/v1/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "invalid_request_error", "", "not_found", "no route "+r.Method+" "+r.URL.Path)
	})
	if s.cfg.Instance == "" {
		return mux
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(headerInstance, s.cfg.Instance)
		mux.ServeHTTP(w, r)
	})
}

// headerInstance names the replica that answered (Config.Instance).
const headerInstance = "X-Omni-Instance"

// handleHealth is the liveness probe: 200 while the engine serves, 503
// once it has stopped for good (Synthesizer.Health), so an orchestrator
// restarts the replica.
func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	if err := s.syn.Health(); err != nil {
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "engine stopped", "error": err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

func (s *Server) handleReady(w http.ResponseWriter, r *http.Request) {
	if err := s.syn.Health(); err != nil {
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "engine stopped", "error": err.Error()})
		return
	}
	if s.draining.Load() {
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "draining"})
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ready", "model": s.info.Name})
}

// modelCard is one /v1/models entry: OpenAI's fields plus what the
// playground needs to fill its pickers.
type modelCard struct {
	ID           string   `json:"id"`
	Object       string   `json:"object"`
	Created      int64    `json:"created"`
	OwnedBy      string   `json:"owned_by"`
	ModelType    string   `json:"model_type,omitempty"`
	Languages    []string `json:"languages"`
	Instructions bool     `json:"instructions"`
	SampleRate   int      `json:"sample_rate"`
	MaxNewTokens int      `json:"max_new_tokens,omitempty"`
	MaxInput     int      `json:"max_input_chars"`
}

func (s *Server) card() modelCard {
	langs := append([]string{"Auto"}, s.info.Languages...)
	return modelCard{ID: s.info.Name, Object: "model", OwnedBy: "omni", ModelType: s.info.ModelType,
		Languages: langs, Instructions: s.info.Instructions, SampleRate: s.info.SampleRate,
		MaxNewTokens: s.info.MaxNewTokens, MaxInput: s.cfg.MaxInputChars}
}

func (s *Server) handleModels(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": []modelCard{s.card()}})
}

func (s *Server) handleModel(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if !modelKnown(id, s.limits()) {
		writeError(w, http.StatusNotFound, "invalid_request_error", "model", "model_not_found", fmt.Sprintf("model %q is not served here", id))
		return
	}
	writeJSON(w, http.StatusOK, s.card())
}

func (s *Server) limits() requestLimits {
	return requestLimits{Info: s.info, ModelAliases: s.cfg.ModelAliases,
		DefaultFormat: s.cfg.DefaultFormat, MaxInputChars: s.cfg.MaxInputChars,
		MaxClipBytes: s.cfg.Cloning.MaxClipBytes, RefAudioURLs: s.cfg.Cloning.RefAudioURLs}
}

// Serve accepts connections on ln (at most Config.MaxConnections at once,
// and Config.MaxConnectionsPerClient from one IP address) until Drain; it
// returns http.ErrServerClosed after a drain, at once (closing ln) when
// called after Drain has shut the servers down.
func (s *Server) Serve(ln net.Listener) error {
	hs := &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: s.cfg.ReadHeaderTimeout,
		ReadTimeout:       s.cfg.ReadTimeout,
		IdleTimeout:       s.cfg.IdleTimeout,
		// No WriteTimeout: it would cut long streams. Each write sets its
		// own deadline instead (Config.WriteTimeout).
		MaxHeaderBytes: 64 << 10,
	}
	s.srvMu.Lock()
	if s.shut {
		// Drain ran before Serve registered: nothing may be served now.
		s.srvMu.Unlock()
		ln.Close()
		return http.ErrServerClosed
	}
	s.srvs = append(s.srvs, hs)
	s.srvMu.Unlock()
	return hs.Serve(newLimitListener(ln, s.cfg.MaxConnections, s.cfg.MaxConnectionsPerClient))
}

// Draining reports whether Drain has been called.
func (s *Server) Draining() bool { return s.draining.Load() }

// Drain stops the server gracefully, as on SIGTERM: /readyz turns 503 and
// new speech requests are answered 503 at once; streams in flight (and
// requests already waiting for admission) run to their end for up to grace.
// Then the rest are cancelled: a stream already answering is aborted (a
// raw body is cut off, never ended cleanly; an SSE stream ends with a
// speech.audio.error event), a request still waiting is answered 503. The
// HTTP servers started by Serve are shut down, and Drain returns; a Serve
// called after that returns at once. It returns an error if streams had to
// be cancelled.
func (s *Server) Drain(grace time.Duration) error {
	s.draining.Store(true)
	s.mu.Lock()
	if s.idle == nil {
		s.idle = make(chan struct{})
		if s.inflight == 0 {
			close(s.idle)
		}
	}
	idle := s.idle
	s.mu.Unlock()

	var err error
	timer := time.NewTimer(grace)
	select {
	case <-idle:
		timer.Stop()
	case <-timer.C:
		s.mu.Lock()
		n := s.inflight
		s.mu.Unlock()
		err = fmt.Errorf("serve: drain grace %v ran out with %d streams in flight; cancelled them", grace, n)
		s.hardCancel()
		<-idle
	}
	s.srvMu.Lock()
	s.shut = true
	srvs := s.srvs
	s.srvMu.Unlock()
	for _, hs := range srvs {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if e := hs.Shutdown(ctx); e != nil && err == nil {
			err = fmt.Errorf("serve: shut down http server: %w", e)
		}
		cancel()
	}
	return err
}

// enter registers a speech request in flight, or reports false when draining.
func (s *Server) enter() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.draining.Load() {
		return false
	}
	s.inflight++
	return true
}

func (s *Server) leave() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inflight--
	if s.inflight == 0 && s.idle != nil {
		select {
		case <-s.idle:
		default:
			close(s.idle)
		}
	}
}

// apiError is OpenAI's error body.
type apiError struct {
	Error apiErrorBody `json:"error"`
}

type apiErrorBody struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    *string `json:"code"`
}

func newAPIError(typ, param, code, msg string) apiError {
	e := apiError{Error: apiErrorBody{Message: msg, Type: typ}}
	if param != "" {
		e.Error.Param = &param
	}
	if code != "" {
		e.Error.Code = &code
	}
	return e
}

func writeError(w http.ResponseWriter, status int, typ, param, code, msg string) {
	writeJSON(w, status, newAPIError(typ, param, code, msg))
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"error":{"message":"encode response","type":"server_error","param":null,"code":null}}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)+1))
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

// errorStatus maps a decode, admission or synthesizer error to its HTTP
// answer: status, OpenAI error type, param, code, and Retry-After seconds.
func (s *Server) errorStatus(err error) (status int, body apiError, retryAfter int) {
	var fe *FieldError
	var ce *CapacityError
	var te *TooLongError
	var me *modelError
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &fe):
		return http.StatusBadRequest, newAPIError("invalid_request_error", fe.Field, "invalid_value", fe.Field+": "+fe.Msg), 0
	case errors.As(err, &me):
		return http.StatusNotFound, newAPIError("invalid_request_error", "model", "model_not_found", fmt.Sprintf("model %q is not served here (GET /v1/models lists it)", me.Model)), 0
	case errors.As(err, &te):
		return http.StatusRequestEntityTooLarge, newAPIError("invalid_request_error", te.Field, "input_too_long",
			fmt.Sprintf("%s: %d %s, limit %d", te.Field, te.Len, te.Unit, te.Limit)), 0
	case errors.As(err, &mbe):
		return http.StatusRequestEntityTooLarge, newAPIError("invalid_request_error", "body", "body_too_large",
			fmt.Sprintf("body: larger than %d bytes", mbe.Limit)), 0
	case errors.As(err, &ce):
		ra := ce.RetryAfter
		if ra <= 0 {
			ra = s.cfg.RetryAfter
		}
		sec := int((ra + time.Second - 1) / time.Second)
		return http.StatusTooManyRequests, newAPIError("rate_limit_error", "", "over_capacity", ce.Reason), max(sec, 1)
	case errors.Is(err, ErrDraining):
		return http.StatusServiceUnavailable, newAPIError("server_error", "", "draining", "the server is draining; retry on another replica"), 0
	case errors.Is(err, ErrUnavailable):
		return http.StatusServiceUnavailable, newAPIError("server_error", "", "engine_unavailable", err.Error()+"; retry on another replica"), 0
	case errors.Is(err, errBodyTimeout):
		return http.StatusRequestTimeout, newAPIError("invalid_request_error", "body", "request_timeout",
			fmt.Sprintf("body: not received within %v", s.cfg.ReadTimeout)), 0
	}
	return http.StatusInternalServerError, newAPIError("server_error", "", "internal_error", err.Error()), 0
}

func (s *Server) writeErr(w http.ResponseWriter, err error) {
	status, body, ra := s.errorStatus(err)
	if ra > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(ra))
	}
	if status >= 500 {
		s.cfg.Logger.Warn("speech request failed", "status", status, "err", err)
	}
	writeJSON(w, status, body)
}
