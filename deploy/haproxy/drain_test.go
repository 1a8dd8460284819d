package haproxy_test

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/omni-tts/omni/deploy/haproxy"
	"github.com/omni-tts/omni/serve/loadtest"
)

// longText is 83 words: the fake makes 167 frames of it (3.3 s of work at
// 20 ms a frame, 13.4 s of audio).
var longText = strings.TrimSpace(strings.Repeat("the quick brown fox jumps over the lazy dog and rests a while ", 6) + " in the sun at last")

// TestDrainBehindHAProxy runs two replicas behind HAProxy (leastconn, GET
// /readyz checks), streams through the proxy at a steady rate, and sends
// SIGTERM to replica a mid-run. It checks that a finishes every stream it
// admitted (all complete: bytes = frames × 1920 × 2) and exits cleanly, that
// a admitted nothing sent once its /readyz said 503 and every stream sent a
// second after the signal went to b, that nothing admitted was lost, that every answer is a
// 200, 429 or 503 and no client timed out, and that b's own counters agree
// with what the clients saw.
func TestDrainBehindHAProxy(t *testing.T) {
	haproxyBin := needHAProxy(t)
	if testing.Short() {
		t.Skip("-short: the two-replica drain runs ~20 s")
	}
	bin := buildOmni(t)
	a := startReplica(t, bin, "a")
	b := startReplica(t, bin, "b")
	cfg := haproxy.Config{Listen: freeAddr(t), Balance: haproxy.LeastConn, LogStdout: true,
		CheckInterval: 100 * time.Millisecond,
		Servers:       []haproxy.Server{{Name: "a", Addr: a.addr}, {Name: "b", Addr: b.addr}}}
	startProxy(t, haproxyBin, cfg)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	lcfg := loadtest.Config{
		URL: "http://" + cfg.Listen, Concurrency: 10, Requests: 32, Rate: 2.5,
		Input: longText, Voice: "vivian", Model: "omni",
		SlowFraction: 0.2, SlowBytesPerSecond: 150_000, Seed: 7,
		Timeout: 45 * time.Second, // bounded: a hang is a client error, not a stuck test
	}
	type result struct {
		rep loadtest.Report
		err error
	}
	done := make(chan result, 1)
	t0 := time.Now()
	go func() {
		rep, err := loadtest.Run(ctx, lcfg, nil)
		done <- result{rep, err}
	}()

	// Mid-run: once a has been streaming for a while, with streams in flight.
	var inflightAtSignal float64
	for {
		m, err := a.metrics(ctx)
		if err != nil {
			t.Fatalf("scrape a: %v", err)
		}
		if inflightAtSignal = m["omni_requests_running"]; time.Since(t0) > 3*time.Second && inflightAtSignal >= 2 {
			break
		}
		if time.Since(t0) > 30*time.Second {
			t.Fatalf("replica a never held 2 streams in the first 30 s (metrics: running %v)", inflightAtSignal)
		}
		time.Sleep(50 * time.Millisecond)
	}
	signalAt := time.Since(t0)
	a.signal(t, syscall.SIGTERM)
	// drainAt is when a's /readyz first said 503: every request a receives
	// after it is refused. (Between signalAt and drainAt the signal is on
	// its way, so a may still admit a request sent then.)
	var drainAt time.Duration
	for drainAt == 0 {
		resp, err := http.Get("http://" + a.addr + "/readyz")
		if err != nil {
			t.Fatalf("a's /readyz after SIGTERM: %v", err)
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusServiceUnavailable {
			drainAt = time.Since(t0)
		}
		if time.Since(t0) > signalAt+10*time.Second {
			t.Fatal("a's /readyz did not turn 503 within 10 s of SIGTERM")
		}
		time.Sleep(2 * time.Millisecond)
	}
	if err := a.wait(t, 60*time.Second); err != nil {
		t.Errorf("replica a after SIGTERM: %v, want exit 0", err)
	}
	aExit := time.Since(t0)
	if out := a.out.String(); !strings.Contains(out, "drained; exiting") || strings.Contains(out, "ran out") {
		t.Errorf("replica a did not drain cleanly:\n%s", out)
	}
	res := <-done
	if res.err != nil {
		t.Fatalf("loadtest: %v", res.err)
	}
	rep := res.rep

	settle := signalAt + time.Second
	var drained, onAAfter, afterSignal, afterSettle, afterSettleElsewhere []int
	statuses := map[int]int{}
	for i, st := range rep.Streams {
		statuses[st.Status]++
		switch st.Status {
		case http.StatusOK, http.StatusTooManyRequests, http.StatusServiceUnavailable:
		default:
			t.Errorf("stream %d %+v: status %d, want 200, 429 or 503", i, st, st.Status)
		}
		if st.Err != "" {
			t.Errorf("stream %d %+v: client error %q (a hang or a cut stream)", i, st, st.Err)
		}
		if st.Status == http.StatusOK && !st.Complete() {
			t.Errorf("stream %d %+v: admitted but not complete: %d bytes, %d frames promise %d", i, st, st.Bytes, st.Frames, st.Expected())
		}
		if st.Instance == "a" && st.Status == http.StatusOK {
			if st.Start >= drainAt {
				onAAfter = append(onAAfter, i)
			}
			if st.Start < signalAt && st.Start+st.Duration > signalAt {
				drained = append(drained, i)
			}
		}
		if st.Start > signalAt {
			afterSignal = append(afterSignal, i)
		}
		if st.Start > settle {
			afterSettle = append(afterSettle, i)
			if st.Instance != "b" && st.Status != http.StatusServiceUnavailable {
				afterSettleElsewhere = append(afterSettleElsewhere, i)
			}
		}
	}
	if len(onAAfter) > 0 {
		t.Errorf("replica a admitted streams %v sent after it reported draining at %v", onAAfter, drainAt)
	}
	if len(drained) == 0 {
		t.Errorf("no stream was in flight on a at SIGTERM (%v): the test showed no drain", signalAt)
	}
	if len(afterSettle) == 0 {
		t.Errorf("no stream was sent after %v: the run ended too soon to show new streams going to b", settle)
	}
	if len(afterSettleElsewhere) > 0 {
		t.Errorf("streams %v sent after %v were not answered by b", afterSettleElsewhere, settle)
	}
	sum := rep.Summarize()
	if sum.Lost != 0 || sum.Told != 0 || sum.BytesReceived != sum.BytesExpected {
		t.Errorf("summary %+v: want nothing admitted lost", sum)
	}

	// b's own counters against what the clients saw from b.
	mb, err := b.metrics(ctx)
	if err != nil {
		t.Fatalf("scrape b: %v", err)
	}
	var fromB loadtest.InstanceCount
	for _, c := range rep.ByInstance() {
		if c.Instance == "b" {
			fromB = c
		}
	}
	if got := sumPrefix(mb, "omni_requests_finished_total"); int(got) != fromB.Admitted {
		t.Errorf("b counts %v finished streams, clients saw %d admitted by b", got, fromB.Admitted)
	}
	if got := sumPrefix(mb, "omni_admissions_refused_total"); int(got) != fromB.Refused429+fromB.Refused503 {
		t.Errorf("b counts %v refusals, clients saw %d 429s and %d 503s from b", got, fromB.Refused429, fromB.Refused503)
	}

	var report strings.Builder
	rep.WriteText(&report)
	fmt.Fprintf(&report, "SIGTERM to a at %.2fs with %v streams running on it (its /metrics); its /readyz said 503 at %.3fs; a exited (status 0) at %.2fs\n",
		signalAt.Seconds(), inflightAtSignal, drainAt.Seconds(), aExit.Seconds())
	fmt.Fprintf(&report, "streams in flight on a at SIGTERM, each complete: %d\n", len(drained))
	for _, i := range drained {
		st := rep.Streams[i]
		fmt.Fprintf(&report, "  stream %2d  sent %.2fs  ended %.2fs  %d frames  %d bytes = %d × 1920 × 2\n",
			i, st.Start.Seconds(), (st.Start + st.Duration).Seconds(), st.Frames, st.Bytes, st.Frames)
	}
	fmt.Fprintf(&report, "streams sent after SIGTERM: %d, admitted by a after it said draining: %d; sent after SIGTERM + 1 s: %d, answered by b: %d\n",
		len(afterSignal), len(onAAfter), len(afterSettle), len(afterSettle)-len(afterSettleElsewhere))
	codes := make([]int, 0, len(statuses))
	for c := range statuses {
		codes = append(codes, c)
	}
	sort.Ints(codes)
	fmt.Fprintf(&report, "statuses:")
	for _, c := range codes {
		fmt.Fprintf(&report, " %d×%d", statuses[c], c)
	}
	fmt.Fprintf(&report, "\nb's /metrics: finished %v, refused %v (queue full %v, draining %v)\n",
		sumPrefix(mb, "omni_requests_finished_total"), sumPrefix(mb, "omni_admissions_refused_total"),
		mb[`omni_admissions_refused_total{reason="queue_full"}`], mb[`omni_admissions_refused_total{reason="draining"}`])
	t.Log("\n" + report.String())
}
