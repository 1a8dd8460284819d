package haproxy_test

import (
	"context"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/omni-tts/omni/deploy/haproxy"
	"github.com/omni-tts/omni/serve/loadtest"
)

// shortText makes 7 frames of the fake (0.14 s of work); longText 167
// (3.3 s). A quarter of the streams in BenchmarkBalance are long.
const shortText = "hi there friend"

// BenchmarkBalance compares leastconn with roundrobin for streams of very
// different lengths: two replicas (replicaArgs: 4 streams each at once, 2
// more may wait, the rest are 429s) behind HAProxy, 6 clients streaming back
// to back, a quarter of the streams 24× longer than the rest. Both replicas'
// /metrics are sampled every 25 ms. It reports, per run:
//
//	held-gap       mean |held(a) − held(b)|, held = running + waiting
//	peak-held      the most streams one replica held at once
//	waiting-%      share of samples in which some request waited on a replica
//	queue-s        seconds requests spent waiting for admission (both replicas' omni_request_queue_seconds_sum)
//	429s           refusals
//	ttfa-p99-ms    the clients' 99th-percentile time to first audio
//
// Run it alone (it takes ~25 s; no timing is asserted):
//
//	go test -run '^$' -bench Balance -benchtime 1x ./deploy/haproxy/
func BenchmarkBalance(b *testing.B) {
	haproxyBin := needHAProxy(b)
	bin := buildOmni(b)
	for _, balance := range []string{haproxy.LeastConn, haproxy.RoundRobin} {
		b.Run(balance, func(b *testing.B) {
			ra := startReplica(b, bin, "a")
			rb := startReplica(b, bin, "b")
			cfg := haproxy.Config{Listen: freeAddr(b), Balance: balance, CheckInterval: time.Second,
				Servers: []haproxy.Server{{Name: "a", Addr: ra.addr}, {Name: "b", Addr: rb.addr}}}
			startProxy(b, haproxyBin, cfg)
			b.ResetTimer()
			for range b.N {
				ctx, cancel := context.WithCancel(context.Background())
				samples := make(chan sample, 4096)
				var wg sync.WaitGroup
				wg.Add(1)
				go func() {
					defer wg.Done()
					defer close(samples)
					tick := time.NewTicker(25 * time.Millisecond)
					defer tick.Stop()
					for {
						select {
						case <-ctx.Done():
							return
						case <-tick.C:
						}
						ma, errA := ra.metrics(ctx)
						mb, errB := rb.metrics(ctx)
						if errA != nil || errB != nil {
							continue // the last scrape may be cut by cancel
						}
						samples <- sample{
							held:   [2]float64{ma["omni_requests_running"] + ma["omni_requests_waiting"], mb["omni_requests_running"] + mb["omni_requests_waiting"]},
							waited: ma["omni_requests_waiting"]+mb["omni_requests_waiting"] > 0,
						}
					}
				}()
				rep, err := loadtest.Run(ctx, loadtest.Config{
					URL: "http://" + cfg.Listen, Concurrency: 6, Requests: 60,
					Input: shortText, Mix: []string{shortText, shortText, longText}, Voice: "vivian", Model: "omni",
					Seed: 11, Timeout: time.Minute,
				}, nil)
				cancel()
				if err != nil {
					b.Fatal(err)
				}
				var gap, n, waited float64
				var peak [2]float64
				for s := range samples {
					if s.waited {
						waited++
					}
					gap += math.Abs(s.held[0] - s.held[1])
					peak[0], peak[1] = max(peak[0], s.held[0]), max(peak[1], s.held[1])
					n++
				}
				wg.Wait()
				bg := context.Background()
				ma, errA := ra.metrics(bg)
				mb, errB := rb.metrics(bg)
				if errA != nil || errB != nil {
					b.Fatalf("scrape: %v %v", errA, errB)
				}
				sum := rep.Summarize()
				queue := ma["omni_request_queue_seconds_sum"] + mb["omni_request_queue_seconds_sum"]
				b.ReportMetric(gap/n, "held-gap")
				b.ReportMetric(max(peak[0], peak[1]), "peak-held")
				b.ReportMetric(100*waited/n, "waiting-%")
				b.ReportMetric(queue, "queue-s")
				b.ReportMetric(float64(sum.Refused429), "429s")
				b.ReportMetric(float64(sum.TTFAp99.Milliseconds()), "ttfa-p99-ms")
				by := rep.ByInstance()
				b.Logf("%s: %d streams (%d long) in %.1fs; %d samples; peak held a %v b %v; mean |a−b| %.2f; waiting in %.0f%% of samples; queue %.2fs; 429s %d; TTFA p50 %v p99 %v; per replica %+v",
					balance, len(rep.Streams), countLong(rep), rep.Wall.Seconds(), int(n), peak[0], peak[1], gap/n, 100*waited/n, queue,
					sum.Refused429, sum.TTFAp50.Round(time.Millisecond), sum.TTFAp99.Round(time.Millisecond), by)
			}
		})
	}
}

// sample is one scrape of both replicas: the streams each held (running +
// waiting) and whether a request waited on either.
type sample struct {
	held   [2]float64
	waited bool
}

// countLong counts the streams given longText (Mix index 3, Input index 3).
func countLong(rep loadtest.Report) int {
	n := 0
	for _, st := range rep.Streams {
		if st.Input == 3 {
			n++
		}
	}
	return n
}
