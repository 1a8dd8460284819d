// Package loadtest opens many speech streams against an omni server (or any
// server speaking POST /v1/audio/speech with pcm) and reports what a client
// sees: time to first audio, real-time factor, 429s, and whether every
// admitted stream delivered all its audio. It backs "omni loadtest".
package loadtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Config describes one load test.
type Config struct {
	// URL is the server's base URL (http://host:port).
	URL string
	// Concurrency is the most streams open at once; Requests is the total.
	Concurrency, Requests int
	// Rate is streams opened per second (0: as fast as Concurrency allows).
	Rate float64
	// Input, Voice and Model go into every request.
	Input, Voice, Model string
	// Mix holds more inputs: when set, each stream's text is drawn
	// uniformly (with Seed) from Input and Mix, so streams differ in length.
	Mix []string
	// SlowFraction of the streams read at SlowBytesPerSecond (pcm at 24 kHz
	// is 48000 B/s, so less than that is slower than real time).
	SlowFraction       float64
	SlowBytesPerSecond int
	// DisconnectFraction of the streams hang up after DisconnectAfterBytes.
	DisconnectFraction   float64
	DisconnectAfterBytes int
	// Seed picks which streams are slow or disconnect.
	Seed uint64
	// Timeout bounds each stream (default 10 min).
	Timeout time.Duration
}

// Validate reports the first impossible field.
func (c Config) Validate() error {
	switch {
	case c.URL == "":
		return errors.New("loadtest: --url is empty")
	case c.Concurrency < 1:
		return fmt.Errorf("loadtest: concurrency %d < 1", c.Concurrency)
	case c.Requests < 1:
		return fmt.Errorf("loadtest: requests %d < 1", c.Requests)
	case c.Rate < 0:
		return fmt.Errorf("loadtest: rate %g < 0", c.Rate)
	case c.SlowFraction < 0 || c.SlowFraction > 1:
		return fmt.Errorf("loadtest: slow fraction %g outside [0, 1]", c.SlowFraction)
	case c.DisconnectFraction < 0 || c.DisconnectFraction > 1:
		return fmt.Errorf("loadtest: disconnect fraction %g outside [0, 1]", c.DisconnectFraction)
	case c.SlowFraction > 0 && c.SlowBytesPerSecond < 1:
		return fmt.Errorf("loadtest: slow readers need a positive bytes/s, got %d", c.SlowBytesPerSecond)
	case c.Input == "":
		return errors.New("loadtest: input is empty")
	case slices.Contains(c.Mix, ""):
		return errors.New("loadtest: an input of the mix is empty")
	}
	return nil
}

// Kind is how a stream's reader behaves.
type Kind string

// Reader kinds.
const (
	Normal     Kind = "normal"
	Slow       Kind = "slow"
	Disconnect Kind = "disconnect"
)

// Stream is what one request saw.
type Stream struct {
	Kind   Kind
	Input  int // index of the text: 0 is Config.Input, i is Config.Mix[i-1]
	Status int // HTTP status (0: no response)
	// Instance is the replica that answered (its X-Omni-Instance header;
	// empty if the server sends none).
	Instance string
	// Start is when the request was sent, from the start of the run.
	Start time.Duration
	// TTFA is from sending the request to the first audio byte; Duration to
	// the last byte.
	TTFA, Duration time.Duration
	// Bytes received; Frames and EndReason from the server's trailers.
	Bytes     int64
	Frames    int
	EndReason string
	// Err is what went wrong on the client side, if anything.
	Err string
}

// Expected is the pcm byte count the server's frame count promises:
// frames × 1920 samples × 2 bytes.
func (s Stream) Expected() int64 { return int64(s.Frames) * 1920 * 2 }

// Complete says the stream ended cleanly with every promised byte.
func (s Stream) Complete() bool {
	return s.Status == 200 && s.Err == "" && s.EndReason != "" && s.EndReason != "error" && s.Bytes == s.Expected()
}

// Report is the outcome of a load test.
type Report struct {
	Config  Config
	Wall    time.Duration
	Streams []Stream
}

// Run performs the load test with client (nil: a client with no timeout and
// enough idle connections).
func Run(ctx context.Context, cfg Config, client *http.Client) (Report, error) {
	if err := cfg.Validate(); err != nil {
		return Report{}, err
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 10 * time.Minute
	}
	if client == nil {
		client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: cfg.Concurrency, DisableCompression: true}}
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x6f6d6e69))
	kinds := make([]Kind, cfg.Requests)
	inputs := make([]int, cfg.Requests)
	for i := range kinds {
		switch r := rng.Float64(); {
		case r < cfg.DisconnectFraction:
			kinds[i] = Disconnect
		case r < cfg.DisconnectFraction+cfg.SlowFraction:
			kinds[i] = Slow
		default:
			kinds[i] = Normal
		}
		if len(cfg.Mix) > 0 {
			inputs[i] = rng.IntN(len(cfg.Mix) + 1)
		}
	}
	bodies := make([][]byte, 1+len(cfg.Mix))
	for i, in := range append([]string{cfg.Input}, cfg.Mix...) {
		bodies[i], _ = json.Marshal(map[string]any{"model": cfg.Model, "input": in, "voice": cfg.Voice,
			"response_format": "pcm", "stream_format": "audio"})
	}

	rep := Report{Config: cfg, Streams: make([]Stream, cfg.Requests)}
	start := time.Now()
	sem := make(chan struct{}, cfg.Concurrency)
	var wg sync.WaitGroup
	var tick <-chan time.Time
	if cfg.Rate > 0 {
		tk := time.NewTicker(time.Duration(float64(time.Second) / cfg.Rate))
		defer tk.Stop()
		tick = tk.C
	}
	for i := range cfg.Requests {
		if tick != nil && i > 0 {
			select {
			case <-tick:
			case <-ctx.Done():
				return rep, ctx.Err()
			}
		}
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			return rep, ctx.Err()
		}
		wg.Add(1)
		go func(i int) {
			defer func() { <-sem; wg.Done() }()
			st := one(ctx, client, cfg, bodies[inputs[i]], kinds[i], start)
			st.Input = inputs[i]
			rep.Streams[i] = st
		}(i)
	}
	wg.Wait()
	rep.Wall = time.Since(start)
	return rep, nil
}

// one runs a single stream.
func one(ctx context.Context, client *http.Client, cfg Config, body []byte, kind Kind, start time.Time) Stream {
	s := Stream{Kind: kind}
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(cfg.URL, "/")+"/v1/audio/speech", strings.NewReader(string(body)))
	if err != nil {
		s.Err = err.Error()
		return s
	}
	req.Header.Set("Content-Type", "application/json")
	t0 := time.Now()
	s.Start = t0.Sub(start)
	resp, err := client.Do(req)
	if err != nil {
		s.Err = err.Error()
		return s
	}
	defer resp.Body.Close()
	s.Status = resp.StatusCode
	s.Instance = resp.Header.Get("X-Omni-Instance")
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		return s
	}
	buf := make([]byte, 16<<10)
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			if s.Bytes == 0 {
				s.TTFA = time.Since(t0)
			}
			s.Bytes += int64(n)
			s.Duration = time.Since(t0)
			if kind == Disconnect && s.Bytes >= int64(cfg.DisconnectAfterBytes) {
				return s // hang up: Close without reading the rest
			}
			if kind == Slow {
				time.Sleep(time.Duration(float64(n) / float64(cfg.SlowBytesPerSecond) * float64(time.Second)))
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			s.Err = err.Error()
			break
		}
	}
	s.EndReason = resp.Trailer.Get("X-Omni-End-Reason")
	s.Frames, _ = strconv.Atoi(resp.Trailer.Get("X-Omni-Frames"))
	return s
}

// Summary is the aggregate a Report prints.
type Summary struct {
	Requests, Admitted, Refused429, Other, Disconnected int
	// Complete admitted streams delivered frames×1920 samples; Told ended
	// with an error the server reported; Lost are the rest (should be 0).
	Complete, Told, Lost         int
	TTFAp50, TTFAp99             time.Duration
	RTFp50, RTFp99               float64
	BytesReceived, BytesExpected int64
	StreamsPerSecond             float64
}

// Summarize aggregates the streams. Disconnecting readers count as admitted
// but are left out of TTFA/RTF/bytes (they hang up on purpose).
func (r Report) Summarize() Summary {
	var s Summary
	var ttfa []time.Duration
	var rtf []float64
	s.Requests = len(r.Streams)
	for _, st := range r.Streams {
		switch {
		case st.Status == http.StatusTooManyRequests:
			s.Refused429++
			continue
		case st.Status != http.StatusOK:
			s.Other++
			continue
		}
		s.Admitted++
		if st.Kind == Disconnect {
			s.Disconnected++
			continue
		}
		if st.Bytes > 0 {
			ttfa = append(ttfa, st.TTFA)
		}
		s.BytesReceived += st.Bytes
		s.BytesExpected += st.Expected()
		switch {
		case st.Complete():
			s.Complete++
			if audio := float64(st.Bytes) / 48000; audio > 0 {
				rtf = append(rtf, st.Duration.Seconds()/audio)
			}
		case st.EndReason == "error" || st.Err != "":
			s.Told++
		default:
			s.Lost++
		}
	}
	slices.Sort(ttfa)
	slices.Sort(rtf)
	if len(ttfa) > 0 {
		s.TTFAp50, s.TTFAp99 = ttfa[pct(len(ttfa), 50)], ttfa[pct(len(ttfa), 99)]
	}
	if len(rtf) > 0 {
		s.RTFp50, s.RTFp99 = rtf[pct(len(rtf), 50)], rtf[pct(len(rtf), 99)]
	}
	if r.Wall > 0 {
		s.StreamsPerSecond = float64(s.Requests) / r.Wall.Seconds()
	}
	return s
}

// pct is the nearest-rank index of the p-th percentile of n sorted values.
func pct(n, p int) int {
	i := (p*n + 99) / 100
	return max(0, min(n-1, i-1))
}

// WriteText prints the summary as a small table.
func (r Report) WriteText(w io.Writer) {
	s := r.Summarize()
	c := r.Config
	fmt.Fprintf(w, "omni loadtest  %s  concurrency %d  requests %d  rate %g/s  slow %.0f%%  disconnect %.0f%%  wall %.2fs\n",
		c.URL, c.Concurrency, c.Requests, c.Rate, 100*c.SlowFraction, 100*c.DisconnectFraction, r.Wall.Seconds())
	fmt.Fprintf(w, "admitted %d  429 %d  other errors %d  disconnected on purpose %d\n", s.Admitted, s.Refused429, s.Other, s.Disconnected)
	fmt.Fprintf(w, "TTFA p50 %v  p99 %v   RTF p50 %.3f  p99 %.3f\n",
		s.TTFAp50.Round(time.Millisecond), s.TTFAp99.Round(time.Millisecond), s.RTFp50, s.RTFp99)
	fmt.Fprintf(w, "complete %d  ended with a reported error %d  lost %d   bytes %d of %d expected\n",
		s.Complete, s.Told, s.Lost, s.BytesReceived, s.BytesExpected)
	for _, in := range r.ByInstance() {
		fmt.Fprintf(w, "instance %s: answered %d  admitted %d  complete %d  429 %d  503 %d\n",
			in.Instance, in.Answered, in.Admitted, in.Complete, in.Refused429, in.Refused503)
	}
}

// InstanceCount is what one replica (X-Omni-Instance) answered.
type InstanceCount struct {
	Instance                                             string
	Answered, Admitted, Complete, Refused429, Refused503 int
}

// ByInstance counts the streams per replica that answered, by name; it is
// empty when no answer named its replica.
func (r Report) ByInstance() []InstanceCount {
	var out []InstanceCount
	for _, st := range r.Streams {
		if st.Instance == "" {
			continue
		}
		i := slices.IndexFunc(out, func(c InstanceCount) bool { return c.Instance == st.Instance })
		if i < 0 {
			out = append(out, InstanceCount{Instance: st.Instance})
			i = len(out) - 1
		}
		c := &out[i]
		c.Answered++
		switch st.Status {
		case http.StatusOK:
			c.Admitted++
			if st.Complete() {
				c.Complete++
			}
		case http.StatusTooManyRequests:
			c.Refused429++
		case http.StatusServiceUnavailable:
			c.Refused503++
		}
	}
	slices.SortFunc(out, func(a, b InstanceCount) int { return strings.Compare(a.Instance, b.Instance) })
	return out
}
