package serve

import (
	"runtime"
	"runtime/debug"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// Metrics are the server's Prometheus families, registered on the server's
// own registry (no global state). docs/SERVE.md lists them with their
// vLLM-Omni counterparts.
type Metrics struct {
	reg *prometheus.Registry

	refused           *prometheus.CounterVec // reason
	finished          *prometheus.CounterVec // reason
	ttfa, rtf, e2e    prometheus.Histogram
	queue             prometheus.Histogram
	audioSeconds      prometheus.Counter
	audioFrames       prometheus.Counter
	stalls            prometheus.Counter
	underrunSeconds   prometheus.Counter
	inputTokens       prometheus.Counter
	outputTokens      prometheus.Counter
	stepSeconds       *prometheus.CounterVec // phase
	httpRequests      *prometheus.CounterVec // handler, code
	clientDisconnects prometheus.Counter
	long              longMetrics // segments.go
}

// loadCollector reads the synthesizer's KV figures at scrape time.
type loadCollector struct {
	syn                   Synthesizer
	inUse, budget, usage  *prometheus.Desc
	engRunning, engWaitin *prometheus.Desc
}

func (c *loadCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.inUse
	ch <- c.budget
	ch <- c.usage
	ch <- c.engRunning
	ch <- c.engWaitin
}

func (c *loadCollector) Collect(ch chan<- prometheus.Metric) {
	l := c.syn.Load()
	ch <- prometheus.MustNewConstMetric(c.inUse, prometheus.GaugeValue, float64(l.KVBytesInUse))
	ch <- prometheus.MustNewConstMetric(c.budget, prometheus.GaugeValue, float64(l.KVBytesBudget))
	u := 0.0
	if l.KVBytesBudget > 0 {
		u = float64(l.KVBytesInUse) / float64(l.KVBytesBudget)
	}
	ch <- prometheus.MustNewConstMetric(c.usage, prometheus.GaugeValue, u)
	ch <- prometheus.MustNewConstMetric(c.engRunning, prometheus.GaugeValue, float64(l.Running))
	ch <- prometheus.MustNewConstMetric(c.engWaitin, prometheus.GaugeValue, float64(l.Waiting))
}

// ttfaBuckets cover 10 ms … 20 s; rtfBuckets put resolution around the
// real-time line at 1.
var (
	ttfaBuckets = []float64{0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 3, 5, 10, 20}
	rtfBuckets  = []float64{0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.25, 1.5, 2, 3, 5}
	e2eBuckets  = []float64{0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60, 120, 300}
)

// newMetrics registers the families; running and waiting read the server's
// own counts at scrape time.
func newMetrics(syn Synthesizer, version string, running, waiting func() float64) *Metrics {
	reg := prometheus.NewRegistry()
	m := &Metrics{
		reg: reg,
		refused: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "omni_admissions_refused_total",
			Help: "Speech requests refused before admission, by reason (queue_full, capacity, draining)."}, []string{"reason"}),
		finished: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "omni_requests_finished_total",
			Help: "Admitted speech requests that ended, by reason (eos, max_tokens, cancelled, error)."}, []string{"reason"}),
		ttfa: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "omni_time_to_first_audio_seconds",
			Help: "From request received to the first audio bytes written.", Buckets: ttfaBuckets}),
		rtf: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "omni_request_rtf",
			Help: "Real-time factor per completed request: wall time from request to last audio / audio seconds (lower is better, < 1 is real time).", Buckets: rtfBuckets}),
		e2e: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "omni_request_duration_seconds",
			Help: "From request received to the end of the response.", Buckets: e2eBuckets}),
		queue: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "omni_request_queue_seconds",
			Help: "Time a request waited for admission: from submission to the engine's admission (a slot and its whole KV).", Buckets: ttfaBuckets}),
		audioSeconds: prometheus.NewCounter(prometheus.CounterOpts{Name: "omni_audio_seconds_total",
			Help: "Seconds of audio written to clients."}),
		audioFrames: prometheus.NewCounter(prometheus.CounterOpts{Name: "omni_audio_frames_total",
			Help: "Codec frames (80 ms each) written to clients."}),
		stalls: prometheus.NewCounter(prometheus.CounterOpts{Name: "omni_audio_stalls_total",
			Help: "Times a stream's next chunk arrived after a real-time player would have run out of audio."}),
		underrunSeconds: prometheus.NewCounter(prometheus.CounterOpts{Name: "omni_audio_underrun_seconds_total",
			Help: "Total time real-time players would have waited for audio (summed over stalls)."}),
		inputTokens: prometheus.NewCounter(prometheus.CounterOpts{Name: "omni_input_tokens_total",
			Help: "Prompt text tokens of finished requests."}),
		outputTokens: prometheus.NewCounter(prometheus.CounterOpts{Name: "omni_output_tokens_total",
			Help: "Talker tokens (codec frames) generated for finished requests."}),
		stepSeconds: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "omni_step_seconds_total",
			Help: "Engine time by step phase, as the engine attributes it."}, []string{"phase"}),
		httpRequests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "omni_http_requests_total",
			Help: "HTTP requests answered, by handler and status code."}, []string{"handler", "code"}),
		clientDisconnects: prometheus.NewCounter(prometheus.CounterOpts{Name: "omni_client_disconnects_total",
			Help: "Streams cancelled because the client went away."}),
	}
	buildInfo := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "omni_build_info",
		Help: "Always 1; labels carry the build."}, []string{"version", "revision", "goversion"})
	buildInfo.WithLabelValues(version, vcsRevision(), runtime.Version()).Set(1)
	lc := &loadCollector{
		syn:        syn,
		inUse:      prometheus.NewDesc("omni_kv_cache_bytes", "KV cache bytes reserved by running streams.", nil, nil),
		budget:     prometheus.NewDesc("omni_kv_cache_budget_bytes", "The most KV cache bytes the engine will reserve.", nil, nil),
		usage:      prometheus.NewDesc("omni_kv_cache_usage_ratio", "omni_kv_cache_bytes / omni_kv_cache_budget_bytes (0 when no budget is known).", nil, nil),
		engRunning: prometheus.NewDesc("omni_engine_requests_running", "Streams the engine reports running (its own count).", nil, nil),
		engWaitin:  prometheus.NewDesc("omni_engine_requests_waiting", "Requests the engine reports queued (its own count).", nil, nil),
	}
	runningG := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "omni_requests_running",
		Help: "Speech requests admitted and streaming (holding KV)."}, running)
	waitingG := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "omni_requests_waiting",
		Help: "Speech requests waiting for admission in the engine's queue (bounded by --max-waiting)."}, waiting)
	reg.MustRegister(runningG, waitingG, m.refused, m.finished, m.ttfa, m.rtf, m.e2e, m.queue,
		m.audioSeconds, m.audioFrames, m.stalls, m.underrunSeconds, m.inputTokens, m.outputTokens,
		m.stepSeconds, m.httpRequests, m.clientDisconnects, buildInfo, lc,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	for _, r := range []string{refusedQueueFull, refusedCapacity, refusedDraining} {
		m.refused.WithLabelValues(r)
	}
	m.long = newLongMetrics(reg)
	return m
}

// Reasons counted by omni_admissions_refused_total.
const (
	refusedQueueFull = "queue_full"
	refusedCapacity  = "capacity"
	refusedDraining  = "draining"
)

// AddStepSeconds adds engine time to omni_step_seconds_total{phase}. It is
// the hook for an engine adapter that attributes time outside a request's
// Result (for instance per batched step); safe for concurrent use.
func (m *Metrics) AddStepSeconds(phase string, seconds float64) {
	if seconds > 0 {
		m.stepSeconds.WithLabelValues(phase).Add(seconds)
	}
}

// Registry is the registry /metrics serves, for adapters that add their own
// families.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

func vcsRevision() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				return s.Value
			}
		}
	}
	return "unknown"
}
