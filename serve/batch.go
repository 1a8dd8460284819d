package serve

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"
)

// Batch bounds: vLLM-Omni's 1–32 items; the items' inputs together at most
// maxBatchInputFactor × MaxInputChars characters; at most
// maxBatchParallel items of one batch admitted or speaking at once (the
// rest wait their turn inside the batch, not in the server's waiting
// queue, so one batch cannot fill that queue); the encoded audio of all
// items at most maxBatchAudioBytes (the answer is held in memory until the
// last item ends: an item that would pass it is stopped with an error).
const (
	maxBatchItems       = 32
	maxBatchInputFactor = 4
	maxBatchParallel    = 4
	maxBatchAudioBytes  = 64 << 20
)

// batchResult is one item's answer in vLLM-Omni's shape (index, status
// "success" or "error", base64 audio_data and its media_type, or error),
// with omni's frames and end_reason of a success.
type batchResult struct {
	Index     int       `json:"index"`
	Status    string    `json:"status"`
	AudioData string    `json:"audio_data,omitempty"`
	MediaType string    `json:"media_type,omitempty"`
	Error     string    `json:"error,omitempty"`
	Frames    int       `json:"frames,omitempty"`
	EndReason EndReason `json:"end_reason,omitempty"`
}

// batchResponse is the answer to POST /v1/audio/speech/batch: the results
// in the items' order.
type batchResponse struct {
	ID        string        `json:"id"`
	Results   []batchResult `json:"results"`
	Total     int           `json:"total"`
	Succeeded int           `json:"succeeded"`
	Failed    int           `json:"failed"`
}

// handleSpeechBatch is POST /v1/audio/speech/batch: {"items": [{speech
// fields}, …], shared speech fields…}. Each item is the top level's fields
// overridden by its own and is checked as a /v1/audio/speech body; the
// valid ones run as concurrent streams of the synthesizer, each encoded
// whole in its response_format (default wav). A bad or failed item is an
// error result; the batch itself is refused only when it is malformed or
// out of bounds.
func (s *Server) handleSpeechBatch(w http.ResponseWriter, r *http.Request) {
	received := time.Now()
	body, ok := s.admitBody(w, r)
	if !ok {
		return
	}
	defer s.leave()
	items, err := s.decodeBatch(body)
	if err != nil {
		s.writeErr(w, err)
		return
	}

	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	stop := context.AfterFunc(s.hardCtx, cancel)
	defer stop()

	results := make([]batchResult, len(items))
	sem := make(chan struct{}, maxBatchParallel)
	var audioBytes atomic.Int64 // encoded audio of all items so far
	var wg sync.WaitGroup
	for i, it := range items {
		results[i].Index = i
		if it.err != nil {
			results[i].fail(s, it.err)
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				results[i].fail(s, ctx.Err())
				return
			}
			defer func() { <-sem }()
			s.batchItem(ctx, r, i, it.p, received, &audioBytes, &results[i])
		}()
	}
	wg.Wait()
	if r.Context().Err() != nil {
		return // nobody to answer
	}
	resp := batchResponse{ID: "speechbatch-" + randomID(), Results: results, Total: len(results)}
	for _, res := range results {
		if res.Status == "success" {
			resp.Succeeded++
		} else {
			resp.Failed++
		}
	}
	writeJSON(w, http.StatusOK, resp)
}

// batchItem is one decoded item, or why it cannot run.
type batchItem struct {
	p   speechParams
	err error
}

// decodeBatch checks the batch's shape and bounds and decodes each item
// (the top level's fields under the item's own) as /v1/audio/speech does.
func (s *Server) decodeBatch(body []byte) ([]batchItem, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil || top == nil {
		msg := "body is not a JSON object"
		if err != nil {
			msg += ": " + err.Error()
		}
		return nil, &FieldError{Field: "body", Msg: msg}
	}
	rawItems, ok := top["items"]
	if !ok {
		return nil, &FieldError{Field: "items", Msg: "required (1 to 32 speech requests)"}
	}
	var list []json.RawMessage
	if err := json.Unmarshal(rawItems, &list); err != nil {
		return nil, &FieldError{Field: "items", Msg: "must be an array of objects"}
	}
	if len(list) < 1 || len(list) > maxBatchItems {
		return nil, &FieldError{Field: "items", Msg: fmt.Sprintf("%d items: a batch takes 1 to %d", len(list), maxBatchItems)}
	}
	delete(top, "items")
	for _, f := range []string{"stream", "stream_format"} {
		if _, ok := top[f]; ok {
			return nil, &FieldError{Field: f, Msg: "a batch answers whole files (use /v1/audio/speech to stream)"}
		}
	}
	lim := s.limits()
	lim.DefaultFormat = FormatWAV // vLLM-Omni's batch default
	total, limit := 0, maxBatchInputFactor*lim.MaxInputChars
	items := make([]batchItem, len(list))
	for i, raw := range list {
		var own map[string]json.RawMessage
		if err := json.Unmarshal(raw, &own); err != nil || own == nil {
			items[i].err = &FieldError{Field: fmt.Sprintf("items[%d]", i), Msg: "must be a JSON object"}
			continue
		}
		if _, ok := own["stream"]; ok {
			items[i].err = &FieldError{Field: fmt.Sprintf("items[%d].stream", i), Msg: "a batch answers whole files"}
			continue
		}
		if _, ok := own["stream_format"]; ok {
			items[i].err = &FieldError{Field: fmt.Sprintf("items[%d].stream_format", i), Msg: "a batch answers whole files"}
			continue
		}
		merged := make(map[string]json.RawMessage, len(top)+len(own))
		for k, v := range top {
			merged[k] = v
		}
		for k, v := range own {
			merged[k] = v
		}
		// the item's input, its own or the shared top-level one
		var in string
		if json.Unmarshal(merged["input"], &in) == nil {
			total += utf8.RuneCountInString(in)
		}
		delete(merged, "request_id") // vLLM-Omni's item id: the index names an item here
		b, _ := json.Marshal(merged)
		p, err := decodeSpeech(b, lim)
		if err != nil {
			items[i].err = itemError(i, err)
			continue
		}
		items[i].p = p
	}
	if limit > 0 && total > limit {
		return nil, &TooLongError{Field: "items", Len: total, Limit: limit, Unit: "characters of input in all"}
	}
	return items, nil
}

// itemError names the item in a field error.
func itemError(i int, err error) error {
	if fe, ok := err.(*FieldError); ok {
		return &FieldError{Field: fmt.Sprintf("items[%d].%s", i, fe.Field), Msg: fe.Msg}
	}
	if te, ok := err.(*TooLongError); ok {
		return &TooLongError{Field: fmt.Sprintf("items[%d].%s", i, te.Field), Len: te.Len, Limit: te.Limit, Unit: te.Unit}
	}
	return fmt.Errorf("items[%d]: %w", i, err)
}

// errBatchAudio stops an item whose audio would pass the batch's bound.
var errBatchAudio = &FieldError{Field: "items", Msg: fmt.Sprintf("the batch's audio passed %d MiB in all: send fewer or shorter items", maxBatchAudioBytes>>20)}

// batchItem admits item i (its voice reference resolved as a single
// request's is: clone_prepare.go), reads its whole stream (stretched to its
// speed) and encodes it into res, counting its bytes in total.
func (s *Server) batchItem(ctx context.Context, r *http.Request, i int, p speechParams, received time.Time, total *atomic.Int64, res *batchResult) {
	p.Req.Received = received
	if err := s.resolveClone(ctx, &p); err != nil {
		res.fail(s, itemError(i, err))
		return
	}
	st, err := s.admit(ctx, p.Req)
	if err != nil {
		res.fail(s, err)
		return
	}
	if st, err = withSpeed(st, p.Speed); err != nil {
		st.Close()
		res.fail(s, err)
		return
	}
	s.running.Add(1)
	defer s.running.Add(-1)
	acc := &streamState{received: received}
	enc, err := newEncoder(p.Format)
	if err != nil {
		s.finish(acc, st, EndError, r)
		res.fail(s, err)
		return
	}
	var buf bytes.Buffer
	err = enc.Begin(&buf)
	counted := 0
	for err == nil {
		var c Chunk
		if c, err = st.Next(ctx); err == nil {
			acc.chunk(time.Now(), len(c.PCM), c.Frames)
			err = enc.Encode(&buf, c.PCM)
		}
		if total.Add(int64(buf.Len()-counted)) > maxBatchAudioBytes && err == nil {
			err = errBatchAudio
		}
		counted = buf.Len()
	}
	if err != io.EOF {
		reason := EndError
		if ctx.Err() != nil {
			reason = EndCancelled
		}
		s.finish(acc, st, reason, r)
		res.fail(s, err)
		return
	}
	if err := enc.Finish(&buf); err != nil {
		s.finish(acc, st, EndError, r)
		res.fail(s, err)
		return
	}
	sr := st.Result()
	if sr.Reason == "" {
		sr.Reason = EndEOS
	}
	s.finish(acc, st, sr.Reason, r)
	res.Status, res.MediaType = "success", contentType(p.Format)
	res.AudioData = base64.StdEncoding.EncodeToString(buf.Bytes())
	res.Frames, res.EndReason = sr.Frames, sr.Reason
}

// fail makes res an error result with err's message as a request would
// get it (a stream cut by the drain grace says so).
func (res *batchResult) fail(s *Server, err error) {
	if s.hardCtx.Err() != nil {
		err = ErrDraining
	}
	_, body, _ := s.errorStatus(err)
	res.Status, res.Error = "error", body.Error.Message
}

// randomID is 12 random bytes in hex.
func randomID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
