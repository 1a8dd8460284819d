package serve

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/websocket"

	"github.com/omni-tts/omni/audio"
	"github.com/omni-tts/omni/text"
)

// Live text over a WebSocket: GET /v1/audio/speech/stream, in vLLM-Omni's
// message shapes. The client sends JSON text messages:
//
//	{"type":"session.config", ...the speech fields..., "split_granularity":"sentence", "stream_audio":true}
//	{"type":"input.text","text":"..."}   (any number, any split)
//	{"type":"input.done"}                 (flush: speak what is buffered; the session stays open)
//	{"type":"session.close"}              (flush, finish speaking, end)
//
// and receives, per sentence, {"type":"audio.start",…}, the audio (binary
// s16le PCM messages, or {"type":"audio.delta","audio":b64} with
// "stream_audio":false), {"type":"audio.done",…}; at the end
// {"type":"session.done","total_sentences":N}; {"type":"error","message":…}
// on a bad message. Each sentence is synthesized as soon as it is complete
// (text.Sentences: its end is certain once more text follows it, or at
// input.done), the next one while the current one is spoken.

// WebSocket session bounds.
const (
	wsMaxMessage   = 64 << 10         // bytes of one client message
	wsIdle         = 2 * time.Minute  // longest wait for a client message
	wsMaxPerClient = 4                // sessions at once from one remote address
	wsMaxQueued    = 256              // sentences waiting to be spoken
	wsSessionMax   = 60 * time.Minute // longest session (as OpenAI's realtime sessions)
)

// wsIn is a client message.
type wsIn struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// wsStart is audio.start.
type wsStart struct {
	Type           string `json:"type"`
	UtteranceIndex int    `json:"utterance_index"`
	SentenceIndex  int    `json:"sentence_index"`
	SentenceText   string `json:"sentence_text"`
	Format         string `json:"format"`
	SampleRate     int    `json:"sample_rate"`
}

// wsDone is audio.done.
type wsDone struct {
	Type           string    `json:"type"`
	UtteranceIndex int       `json:"utterance_index"`
	SentenceIndex  int       `json:"sentence_index"`
	Frames         int       `json:"frames"`
	EndReason      EndReason `json:"end_reason"`
}

// wsDelta is audio.delta (stream_audio false).
type wsDelta struct {
	Type          string `json:"type"`
	SentenceIndex int    `json:"sentence_index"`
	Audio         string `json:"audio"`
}

// wsSentence is one sentence to speak (or, in token mode, one utterance
// already started, its text fed as it arrives).
type wsSentence struct {
	utterance, index int
	text             string
	at               time.Time // when the text completing it arrived
	started          *wsStarted
}

// wsSession is one WebSocket session.
type wsSession struct {
	s      *Server
	ws     *websocket.Conn
	ctx    context.Context
	cancel context.CancelFunc
	tmpl   SpeechRequest
	speed  float64 // session.config's speed (serve/speed.go)
	split  string  // "sentence", "token" or "none"
	binary bool
	live   LiveStream // token mode: the utterance taking text (read goroutine)
	// in, when set, stands for the WebSocket as the source of the client's
	// messages (FuzzWSSession).
	in func() ([]byte, error)

	wmu sync.Mutex // one writer at a time

	qmu    sync.Mutex
	queue  []wsSentence
	closed bool          // no more sentences
	notify chan struct{} // a sentence was queued or the queue closed
	space  chan struct{} // a sentence was taken from the queue
}

// handleSpeechStream is GET /v1/audio/speech/stream.
func (s *Server) handleSpeechStream(w http.ResponseWriter, r *http.Request) {
	if !s.enter() {
		s.metrics.refused.WithLabelValues(refusedDraining).Inc()
		s.writeErr(w, ErrDraining)
		return
	}
	defer s.leave()
	client, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		client = r.RemoteAddr
	}
	if !s.wsAdmit(client) {
		s.writeErr(w, &CapacityError{Reason: fmt.Sprintf("%d WebSocket sessions from %s already", wsMaxPerClient, client), RetryAfter: s.cfg.RetryAfter})
		return
	}
	defer s.wsLeave(client)
	srv := websocket.Server{
		// Any origin: the API is for programs (browsers send Origin, other
		// clients often none); authentication belongs in front of it.
		Handshake: func(*websocket.Config, *http.Request) error { return nil },
		Handler: func(ws *websocket.Conn) {
			defer ws.Close() // a close frame, then the connection
			ws.MaxPayloadBytes = wsMaxMessage
			ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), wsSessionMax)
			defer cancel()
			stop := context.AfterFunc(s.hardCtx, cancel)
			defer stop()
			sess := newWSSession(ctx, cancel, s, ws)
			s.metrics.long.wsSessions.Inc()
			defer s.metrics.long.wsSessions.Dec()
			sess.run()
		},
	}
	srv.ServeHTTP(w, r)
}

// newWSSession is s's session over ws, ended by cancel (ctx's).
func newWSSession(ctx context.Context, cancel context.CancelFunc, s *Server, ws *websocket.Conn) *wsSession {
	return &wsSession{s: s, ws: ws, ctx: ctx, cancel: cancel, notify: make(chan struct{}, 1), space: make(chan struct{}, 1)}
}

// wsAdmit counts a session of client unless it has wsMaxPerClient.
func (s *Server) wsAdmit(client string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.wsClients == nil {
		s.wsClients = map[string]int{}
	}
	if s.wsClients[client] >= wsMaxPerClient {
		return false
	}
	s.wsClients[client]++
	return true
}

// wsLeave uncounts a session of client.
func (s *Server) wsLeave(client string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.wsClients[client]--; s.wsClients[client] <= 0 {
		delete(s.wsClients, client)
	}
}

// run reads the client's messages and speaks the sentences they complete,
// until session.close, a bad message, the client leaving or the session's
// time running out. Everything it started is cancelled when it returns.
func (c *wsSession) run() {
	defer c.cancel()
	spoke := make(chan int, 1)
	if err := c.configure(); err != nil {
		c.sendError(err)
		return
	}
	go func() { spoke <- c.speak() }()
	defer c.dropQueued()
	err := c.read()
	c.closeQueue()
	if err != nil {
		if !errors.Is(err, io.EOF) {
			c.sendError(err)
		}
		c.cancel() // the client left or misbehaved: stop speaking
		<-spoke
		return
	}
	n := <-spoke
	c.send(map[string]any{"type": "session.done", "total_sentences": n})
}

// configure reads session.config and checks its speech fields as
// /v1/audio/speech does.
func (c *wsSession) configure() error {
	raw, err := c.receive()
	if err != nil {
		return err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return &FieldError{Field: "message", Msg: "not a JSON object"}
	}
	typ, err := optString(fields, "type")
	if err != nil {
		return err
	}
	if typ != "session.config" {
		return &FieldError{Field: "type", Msg: fmt.Sprintf("%q: the first message must be session.config", typ)}
	}
	c.split, c.binary = "sentence", true
	if v, ok := fields["split_granularity"]; ok {
		if err := json.Unmarshal(v, &c.split); err != nil {
			return &FieldError{Field: "split_granularity", Msg: "not a string"}
		}
	}
	switch c.split {
	case "sentence", "none":
	case "token":
		if _, ok := c.s.syn.(LiveSynthesizer); !ok {
			return &FieldError{Field: "split_granularity", Msg: `"token" is not offered by this synthesizer (sentence or none)`}
		}
	case "clause":
		return &FieldError{Field: "split_granularity", Msg: fmt.Sprintf("%q is not supported by this server yet (sentence, token or none)", c.split)}
	default:
		return &FieldError{Field: "split_granularity", Msg: fmt.Sprintf("unknown %q (sentence, token or none)", c.split)}
	}
	if v, ok := fields["stream_audio"]; ok {
		if err := json.Unmarshal(v, &c.binary); err != nil {
			return &FieldError{Field: "stream_audio", Msg: "not a boolean"}
		}
	}
	for _, f := range []string{"type", "split_granularity", "stream_audio", "stream_format", "stream"} {
		delete(fields, f)
	}
	if _, ok := fields["input"]; ok {
		return &FieldError{Field: "input", Msg: "send the text in input.text messages"}
	}
	fields["input"] = json.RawMessage(`"."`)
	if _, ok := fields["response_format"]; !ok {
		fields["response_format"] = json.RawMessage(`"pcm"`)
	}
	body, _ := json.Marshal(fields)
	p, err := decodeSpeech(body, c.s.limits())
	if err == nil {
		err = c.s.resolveClone(c.ctx, &p) // a Base model's voice (clone_prepare.go)
	}
	if err != nil {
		return err
	}
	if p.Format != FormatPCM {
		return &FieldError{Field: "response_format", Msg: fmt.Sprintf("%q: the stream sends pcm (24 kHz s16le mono)", p.Format)}
	}
	c.tmpl, c.speed = p.Req, p.Speed
	return nil
}

// read takes input.text, input.done and session.close messages, queueing
// each sentence as it completes. It returns nil after session.close.
func (c *wsSession) read() error {
	var buf string
	utterance, index := 0, 0
	queue := func(s string, at time.Time) error {
		segs, err := text.Segments(s, text.SegmentOptions{JoinUnits: -1})
		if err != nil {
			return err
		}
		for _, g := range segs {
			if !c.push(wsSentence{utterance: utterance, index: index, text: g.Text, at: at}) {
				return context.Canceled
			}
			index++
		}
		return nil
	}
	for {
		raw, err := c.receive()
		if err != nil {
			return err
		}
		m, err := decodeWSIn(raw)
		if err != nil {
			return err
		}
		now := time.Now()
		if c.split == "token" {
			var err error
			if buf, err = c.token(m, buf, now, &utterance, &index); err != nil {
				return err
			}
			if m.Type == "session.close" {
				return nil
			}
			continue
		}
		switch m.Type {
		case "input.text":
			buf += m.Text
			if n := utf8.RuneCountInString(buf); n > c.s.cfg.MaxInputChars {
				return &TooLongError{Field: "text", Len: n, Limit: c.s.cfg.MaxInputChars, Unit: "characters buffered"}
			}
			if c.split != "sentence" {
				continue
			}
			// every sentence but the last is complete: more text follows it
			spans := text.Sentences(buf)
			if len(spans) < 2 {
				continue
			}
			last := spans[len(spans)-1]
			if err := queue(buf[:last.Start], now); err != nil {
				return err
			}
			buf = buf[last.Start:]
		case "input.done", "session.close":
			if err := queue(buf, now); err != nil {
				return err
			}
			buf = ""
			utterance++
			if m.Type == "session.close" {
				return nil
			}
		default:
			return &FieldError{Field: "type", Msg: fmt.Sprintf("unknown %q (input.text, input.done or session.close)", m.Type)}
		}
	}
}

// decodeWSIn decodes a client message after session.config: a JSON object
// whose "type" and "text" (when present and not null) are strings, the text
// valid UTF-8 without lone surrogate escapes (encoding/json would turn
// either into U+FFFD; request.go's checkRawText does the same for
// /v1/audio/speech). Other fields are ignored; the type is checked by the
// caller.
func decodeWSIn(raw []byte) (wsIn, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return wsIn{}, &FieldError{Field: "message", Msg: "not a JSON object"}
	}
	var m wsIn
	var err error
	if m.Type, err = optString(fields, "type"); err != nil {
		return wsIn{}, err
	}
	if m.Text, err = optString(fields, "text"); err != nil {
		return wsIn{}, err
	}
	if msg := rawTextProblem(fields["text"]); msg != "" {
		return wsIn{}, &FieldError{Field: "text", Msg: msg}
	}
	return m, nil
}

// token handles a message in token mode: the first whole words start a
// live utterance, every later whole word is fed into it as it arrives,
// input.done feeds the rest and ends its text. It returns the text kept
// back (a word not yet complete).
func (c *wsSession) token(m wsIn, buf string, now time.Time, utterance, index *int) (string, error) {
	switch m.Type {
	case "input.text":
		buf += m.Text
		if n := utf8.RuneCountInString(buf); n > c.s.cfg.MaxInputChars {
			return buf, &TooLongError{Field: "text", Len: n, Limit: c.s.cfg.MaxInputChars, Unit: "characters buffered"}
		}
		cut := wholeText(buf)
		if cut <= 0 {
			return buf, nil
		}
		if err := c.feedLive(buf[:cut], now, utterance, index); err != nil {
			return buf, err
		}
		return buf[cut:], nil
	case "input.done", "session.close":
		if err := c.feedLive(buf, now, utterance, index); err != nil {
			return buf, err
		}
		if c.live != nil {
			c.live.End()
			c.live = nil
			*utterance++
		}
		return "", nil
	}
	return buf, &FieldError{Field: "type", Msg: fmt.Sprintf("unknown %q (input.text, input.done or session.close)", m.Type)}
}

// wholeText returns how much of buf token mode can feed now (0: none):
// whole words, up to the last space after a non-space (the space stays
// with the next word, as the tokenizer's pre-split keeps it), or, where it
// ends later, up to the last CJK or full-width punctuation mark (。，！？、
// …), which stays with what follows it the same way: Chinese and Japanese
// text, which has no spaces, is fed clause by clause instead of only at
// input.done. (Text fed in pieces can tokenize a little differently from
// the whole; the words are the same.)
func wholeText(buf string) int {
	cut := strings.LastIndexFunc(strings.TrimRightFunc(buf, unicode.IsSpace), unicode.IsSpace)
	for i := len(buf); i > 0 && i > cut; {
		r, n := utf8.DecodeLastRuneInString(buf[:i])
		i -= n
		if cjkPunct(r) {
			if i > cut {
				return i
			}
			break
		}
	}
	return cut
}

// cjkPunct reports whether r is a CJK or full-width punctuation mark.
func cjkPunct(r rune) bool {
	return unicode.IsPunct(r) && ((r >= 0x3000 && r <= 0x303f) || (r >= 0xff00 && r <= 0xff65))
}

// feedLive starts the live utterance with text, or feeds text into it.
func (c *wsSession) feedLive(text string, now time.Time, utterance, index *int) error {
	if strings.TrimSpace(text) == "" {
		return nil
	}
	if c.live != nil {
		return c.live.Feed(text)
	}
	req := c.tmpl
	req.Input, req.Received = strings.TrimLeftFunc(text, unicode.IsSpace), now
	syn := c.s.syn.(LiveSynthesizer)
	st, err := c.s.admitWith(c.ctx, req, func(ctx context.Context, req SpeechRequest) (AudioStream, error) {
		live, err := syn.StartLive(ctx, req)
		if err != nil {
			return nil, err
		}
		return live, nil
	})
	s := wsSentence{utterance: *utterance, index: *index, text: req.Input, at: now}
	s.started = &wsStarted{s: s, ready: make(chan struct{}), st: st, err: err}
	close(s.started.ready) // admitted (or refused) already
	if err == nil {
		c.live = st.(LiveStream)
	}
	*index++
	if !c.push(s) {
		return context.Canceled
	}
	return nil
}

// receive reads one client message within the idle bound.
func (c *wsSession) receive() ([]byte, error) {
	if c.in != nil {
		return c.in()
	}
	_ = c.ws.SetReadDeadline(time.Now().Add(wsIdle))
	var raw []byte
	if err := websocket.Message.Receive(c.ws, &raw); err != nil {
		if errors.Is(err, websocket.ErrFrameTooLarge) {
			return nil, &TooLongError{Field: "message", Len: wsMaxMessage + 1, Limit: wsMaxMessage, Unit: "bytes"}
		}
		return nil, io.EOF // gone, idle or unreadable: end the session
	}
	return raw, nil
}

// push queues a sentence, waiting while the queue is full until pop
// takes one (space) or the session ends; false when the session is over.
// Only the read goroutine pushes, so one buffered signal wakes it.
func (c *wsSession) push(s wsSentence) bool {
	for {
		c.qmu.Lock()
		if len(c.queue) < wsMaxQueued {
			c.queue = append(c.queue, s)
			c.qmu.Unlock()
			c.wake()
			return true
		}
		c.qmu.Unlock()
		select {
		case <-c.ctx.Done():
			return false
		case <-c.space:
		}
	}
}

// pop takes the next sentence, waiting for one unless wait is false; ok is
// false when there is none (the queue closed, or empty without wait).
func (c *wsSession) pop(wait bool) (wsSentence, bool) {
	for {
		c.qmu.Lock()
		if len(c.queue) > 0 {
			s := c.queue[0]
			c.queue = c.queue[1:]
			c.qmu.Unlock()
			signal(c.space)
			return s, true
		}
		closed := c.closed
		c.qmu.Unlock()
		if closed || !wait {
			return wsSentence{}, false
		}
		select {
		case <-c.notify:
		case <-c.ctx.Done():
			return wsSentence{}, false
		}
	}
}

// dropQueued closes the utterances started and never spoken (token mode)
// once the session is over, freeing their KV and decoder state.
func (c *wsSession) dropQueued() {
	c.qmu.Lock()
	q := c.queue
	c.queue = nil
	c.qmu.Unlock()
	for _, s := range q {
		if s.started != nil && s.started.st != nil {
			s.started.st.Close()
		}
	}
}

// closeQueue marks the end of the sentences.
func (c *wsSession) closeQueue() {
	c.qmu.Lock()
	c.closed = true
	c.qmu.Unlock()
	c.wake()
}

// wake tells pop a sentence was queued or the queue closed.
func (c *wsSession) wake() { signal(c.notify) }

// signal sends on ch, of capacity 1, unless a signal is pending already:
// the waiter, woken, looks at the queue again.
func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// speak synthesizes the queued sentences in order, the next one started
// as soon as the current one's first audio is out (its admission awaited
// meanwhile, apart from the current one's audio), and returns how many it
// spoke.
func (c *wsSession) speak() int {
	n := 0
	var next *wsStarted
	defer func() {
		if next != nil {
			next.close()
		}
	}()
	for {
		cur := next
		next = nil
		if cur == nil {
			s, ok := c.pop(true)
			if !ok {
				return n
			}
			if cur = s.started; cur == nil {
				cur = c.start(s)
			}
		}
		<-cur.ready
		if cur.err != nil {
			c.sendError(cur.err)
			continue
		}
		n++
		if !c.speakOne(cur, func() {
			if s, ok := c.pop(false); ok {
				if next = s.started; next == nil {
					next = c.start(s)
				}
			}
		}) {
			return n
		}
	}
}

// wsStarted is a sentence handed to the synthesizer: st or err are set
// once ready is closed (Start returns at admission).
type wsStarted struct {
	s     wsSentence
	ready chan struct{}
	st    AudioStream
	err   error
}

// start hands s to the synthesizer without waiting for its admission.
func (c *wsSession) start(s wsSentence) *wsStarted {
	req := c.tmpl
	req.Input, req.Received = s.text, time.Now()
	w := &wsStarted{s: s, ready: make(chan struct{})}
	go func() {
		defer close(w.ready)
		w.st, w.err = c.s.admit(c.ctx, req)
	}()
	return w
}

// close frees a started sentence never spoken, once its admission ended
// (the session's cancellation ends a wait).
func (w *wsStarted) close() {
	<-w.ready
	if w.st != nil {
		w.st.Close()
	}
}

// speakOne sends one sentence's audio between its audio.start and
// audio.done; first runs after its first audio. It reports whether the
// session goes on.
func (c *wsSession) speakOne(w *wsStarted, first func()) bool {
	st, err := withSpeed(w.st, c.speed)
	defer st.Close()
	if err != nil {
		c.sendError(err)
		return false
	}
	c.s.running.Add(1)
	defer c.s.running.Add(-1)
	if !c.send(wsStart{Type: "audio.start", UtteranceIndex: w.s.utterance, SentenceIndex: w.s.index, SentenceText: w.s.text, Format: FormatPCM, SampleRate: SampleRate}) {
		return false
	}
	frames := 0
	var pcm []byte
	for {
		ch, err := st.Next(c.ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			if c.ctx.Err() != nil {
				return false
			}
			c.sendError(err)
			break
		}
		pcm = audio.AppendS16LE(pcm[:0], ch.PCM)
		var ok bool
		if c.binary {
			ok = c.sendBinary(pcm)
		} else {
			ok = c.send(wsDelta{Type: "audio.delta", SentenceIndex: w.s.index, Audio: base64.StdEncoding.EncodeToString(pcm)})
		}
		if !ok {
			return false
		}
		if frames == 0 {
			c.s.metrics.long.wsTextToAudio.Observe(time.Since(w.s.at).Seconds())
			first()
		}
		frames += ch.Frames
	}
	res := st.Result()
	return c.send(wsDone{Type: "audio.done", UtteranceIndex: w.s.utterance, SentenceIndex: w.s.index, Frames: frames, EndReason: res.Reason})
}

// send writes one JSON message; false when the client is gone.
func (c *wsSession) send(v any) bool {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_ = c.ws.SetWriteDeadline(time.Now().Add(c.s.cfg.WriteTimeout))
	if err := websocket.JSON.Send(c.ws, v); err != nil {
		c.cancel()
		return false
	}
	return true
}

// sendBinary writes one binary message; false when the client is gone.
func (c *wsSession) sendBinary(b []byte) bool {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_ = c.ws.SetWriteDeadline(time.Now().Add(c.s.cfg.WriteTimeout))
	if err := websocket.Message.Send(c.ws, b); err != nil {
		c.cancel()
		return false
	}
	return true
}

// sendError writes an error message.
func (c *wsSession) sendError(err error) {
	_, body, _ := c.s.errorStatus(err)
	c.send(map[string]any{"type": "error", "message": body.Error.Message, "code": body.Error.Code, "param": body.Error.Param})
}
