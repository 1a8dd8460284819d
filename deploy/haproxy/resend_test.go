package haproxy_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/omni-tts/omni/deploy/haproxy"
)

// TestDrainingRefusalResent covers the window before a health check sees a
// drain: HAProxy still sends requests to the draining replica, which answers
// 503 at once, and the proxy resends them to the other (retry-on 503). Both
// replicas hold a long stream so that a stays up while it drains; the checks
// are 30 s apart so the proxy never notices; roundrobin picks a in turn
// whatever it holds, for at least every other request. The clients must see only 200s from b, and a must count the
// refusals it made.
func TestDrainingRefusalResent(t *testing.T) {
	haproxyBin := needHAProxy(t)
	if testing.Short() {
		t.Skip("-short: starts two replicas and HAProxy")
	}
	bin := buildOmni(t)
	a := startReplica(t, bin, "a")
	b := startReplica(t, bin, "b")
	cfg := haproxy.Config{Listen: freeAddr(t), Balance: haproxy.RoundRobin, LogStdout: true,
		CheckInterval: 30 * time.Second,
		Servers:       []haproxy.Server{{Name: "a", Addr: a.addr}, {Name: "b", Addr: b.addr}}}
	startProxy(t, haproxyBin, cfg)
	client := &http.Client{Timeout: 30 * time.Second}
	post := func(input string) (*http.Response, error) {
		return client.Post("http://"+cfg.Listen+"/v1/audio/speech", "application/json",
			strings.NewReader(`{"model":"omni","voice":"vivian","response_format":"pcm","input":"`+input+`"}`))
	}

	// One long stream on each replica, read to the end in the background.
	held := map[string]bool{}
	ends := make(chan error, 2)
	for range 2 {
		resp, err := post(longText)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("long stream: %v %v", resp, err)
		}
		held[resp.Header.Get("X-Omni-Instance")] = true
		go func() {
			_, err := io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			ends <- err
		}()
	}
	if !held["a"] || !held["b"] {
		t.Fatalf("long streams went to %v, want one on each replica", held)
	}

	a.signal(t, syscall.SIGTERM)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for { // wait until a says it drains
		resp, err := http.Get("http://" + a.addr + "/readyz")
		if err != nil {
			t.Fatalf("a before its stream ended: %v", err)
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusServiceUnavailable {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	const n = 6
	for i := range n {
		resp, err := post("hi there")
		if err != nil {
			t.Fatalf("short request %d: %v", i, err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || resp.Header.Get("X-Omni-Instance") != "b" {
			t.Errorf("short request %d: status %d from %q, want 200 from b", i, resp.StatusCode, resp.Header.Get("X-Omni-Instance"))
		}
	}
	m, err := a.metrics(ctx)
	if err != nil {
		t.Fatalf("scrape a while it drains: %v", err)
	}
	refused := m[`omni_admissions_refused_total{reason="draining"}`]
	if refused < n/2 {
		t.Errorf("a refused %v requests as draining, want at least %d of the %d roundrobin sent it", refused, n/2, n)
	}
	for range 2 {
		if err := <-ends; err != nil {
			t.Errorf("long stream cut: %v", err)
		}
	}
	if err := a.wait(t, 30*time.Second); err != nil {
		t.Errorf("replica a after SIGTERM: %v, want exit 0", err)
	}
	t.Logf("a refused %v of %d short requests as draining; HAProxy resent each to b, and the clients saw %d × 200 from b", refused, n, n)
}
