package serve

import (
	"container/list"
	"context"
	"errors"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// voiceCache holds prepared voices in memory, least recently used first
// out once their bytes pass the bound, keyed by "voice:NAME" (a library
// voice) or "clip:SHA256" (a request's ref_audio with its ref_text and
// mode). Concurrent misses of one key share one preparation.
type voiceCache struct {
	limit int64
	m     *voiceMetrics

	mu       sync.Mutex
	lru      *list.List // of *cacheEntry, most recent first
	items    map[string]*list.Element
	bytes    int64
	inflight map[string]*voiceCall
}

type cacheEntry struct {
	key string
	v   *PreparedVoice
}

// voiceCall is one preparation in flight; done closes when v or err is set.
type voiceCall struct {
	done chan struct{}
	v    *PreparedVoice
	err  error
	// stale is set when the key was removed while the call ran: its result
	// is returned to its callers but not kept.
	stale bool
}

func newVoiceCache(limit int64, m *voiceMetrics) *voiceCache {
	return &voiceCache{limit: limit, m: m, lru: list.New(), items: map[string]*list.Element{}, inflight: map[string]*voiceCall{}}
}

// get returns the voice under key, calling prepare on a miss (once for all
// the callers that miss key at the same time) and caching its result. A
// caller whose ctx ends stops waiting; a preparation that ended with its
// leader's ctx is retried by the callers still waiting.
func (c *voiceCache) get(ctx context.Context, key string, prepare func() (*PreparedVoice, error)) (*PreparedVoice, error) {
	for {
		c.mu.Lock()
		if el, ok := c.items[key]; ok {
			c.lru.MoveToFront(el)
			v := el.Value.(*cacheEntry).v
			c.mu.Unlock()
			c.m.hits.Inc()
			return v, nil
		}
		if call, ok := c.inflight[key]; ok {
			c.mu.Unlock()
			select {
			case <-call.done:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			if call.err != nil && isCtxErr(call.err) && ctx.Err() == nil {
				continue // the leader went away: try again
			}
			if call.err == nil {
				c.m.hits.Inc() // shared the leader's preparation
			}
			return call.v, call.err
		}
		call := &voiceCall{done: make(chan struct{})}
		c.inflight[key] = call
		c.mu.Unlock()
		c.m.misses.Inc()

		call.v, call.err = prepare()
		c.mu.Lock()
		delete(c.inflight, key)
		if call.err == nil && !call.stale {
			c.putLocked(key, call.v)
		}
		c.mu.Unlock()
		close(call.done)
		return call.v, call.err
	}
}

func isCtxErr(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// put caches v under key (a voice just uploaded).
func (c *voiceCache) put(key string, v *PreparedVoice) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.putLocked(key, v)
}

func (c *voiceCache) putLocked(key string, v *PreparedVoice) {
	if el, ok := c.items[key]; ok {
		c.bytes -= el.Value.(*cacheEntry).v.Bytes
		c.lru.Remove(el)
		delete(c.items, key)
	}
	if v.Bytes > c.limit {
		c.m.bytes.Set(float64(c.bytes))
		c.m.entries.Set(float64(c.lru.Len()))
		return // larger than the whole cache: served, not kept
	}
	c.items[key] = c.lru.PushFront(&cacheEntry{key: key, v: v})
	c.bytes += v.Bytes
	for c.bytes > c.limit {
		old := c.lru.Back()
		e := old.Value.(*cacheEntry)
		c.lru.Remove(old)
		delete(c.items, e.key)
		c.bytes -= e.v.Bytes
		c.m.evictions.Inc()
	}
	c.m.bytes.Set(float64(c.bytes))
	c.m.entries.Set(float64(c.lru.Len()))
}

// remove drops key (a deleted library voice), and keeps a preparation of
// it in flight from being cached.
func (c *voiceCache) remove(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if call, ok := c.inflight[key]; ok {
		call.stale = true
	}
	if el, ok := c.items[key]; ok {
		c.bytes -= el.Value.(*cacheEntry).v.Bytes
		c.lru.Remove(el)
		delete(c.items, key)
		c.m.bytes.Set(float64(c.bytes))
		c.m.entries.Set(float64(c.lru.Len()))
	}
}

// voiceMetrics are the cloning families of /metrics.
type voiceMetrics struct {
	encodes       prometheus.Counter
	encodeErrors  prometheus.Counter
	encodeSeconds prometheus.Histogram
	loads         prometheus.Counter
	hits, misses  prometheus.Counter
	evictions     prometheus.Counter
	bytes         prometheus.Gauge
	entries       prometheus.Gauge
}

// encodeBuckets cover 10 ms … 30 s of encoding.
var encodeBuckets = []float64{0.01, 0.025, 0.05, 0.1, 0.15, 0.25, 0.5, 1, 2, 5, 10, 30}

func newVoiceMetrics(reg *prometheus.Registry) *voiceMetrics {
	m := &voiceMetrics{
		encodes: prometheus.NewCounter(prometheus.CounterOpts{Name: "omni_voice_encodes_total",
			Help: "Reference clips encoded (speaker embedding, and codes in in-context mode): cache misses of ref_audio and uploads."}),
		encodeErrors: prometheus.NewCounter(prometheus.CounterOpts{Name: "omni_voice_encode_errors_total",
			Help: "Reference clip encodings that failed."}),
		encodeSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "omni_voice_encode_seconds",
			Help: "Wall time of one reference encoding (excluding the wait for an encoding slot).", Buckets: encodeBuckets}),
		loads: prometheus.NewCounter(prometheus.CounterOpts{Name: "omni_voice_library_loads_total",
			Help: "Library voices read from the voice library (cache misses of voice names)."}),
		hits: prometheus.NewCounter(prometheus.CounterOpts{Name: "omni_voice_cache_hits_total",
			Help: "Speech requests whose voice (library name or ref_audio) was already prepared in memory."}),
		misses: prometheus.NewCounter(prometheus.CounterOpts{Name: "omni_voice_cache_misses_total",
			Help: "Speech requests whose voice had to be encoded or read from the library."}),
		evictions: prometheus.NewCounter(prometheus.CounterOpts{Name: "omni_voice_cache_evictions_total",
			Help: "Prepared voices dropped from memory to stay within --voice-cache-bytes."}),
		bytes: prometheus.NewGauge(prometheus.GaugeOpts{Name: "omni_voice_cache_bytes",
			Help: "Bytes of prepared voices held in memory."}),
		entries: prometheus.NewGauge(prometheus.GaugeOpts{Name: "omni_voice_cache_entries",
			Help: "Prepared voices held in memory."}),
	}
	reg.MustRegister(m.encodes, m.encodeErrors, m.encodeSeconds, m.loads, m.hits, m.misses, m.evictions, m.bytes, m.entries)
	return m
}
