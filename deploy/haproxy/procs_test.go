package haproxy_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/omni-tts/omni/deploy/haproxy"
)

// replicaArgs is the omni command line of every replica, before --listen
// and --instance: the fake synthesizer at 4× real time (a frame of 80 ms
// every 20 ms), 4 streams at once and 2 waiting, so a replica is cheap and
// deterministic on a shared machine. $OMNI_HAPROXY_REPLICA replaces it
// (e.g. "serve --model synth:tiny --max-waiting 2" to run the engine).
var replicaArgs = "serve --fake --fake-frame-time 20ms --fake-capacity 4 --max-waiting 2"

// replicaCommand is replicaArgs or its override, split into arguments.
func replicaCommand() []string {
	if s := os.Getenv("OMNI_HAPROXY_REPLICA"); s != "" {
		return strings.Fields(s)
	}
	return strings.Fields(replicaArgs)
}

// needHAProxy returns the haproxy binary (on $PATH, or Debian's
// /usr/sbin/haproxy, which a user's $PATH may lack). Without one it skips
// the test, or fails it when $OMNI_REQUIRE_HAPROXY is set (CI installs
// haproxy and sets it, so the test cannot be skipped there unnoticed).
func needHAProxy(tb testing.TB) string {
	tb.Helper()
	if path, err := exec.LookPath("haproxy"); err == nil {
		return path
	}
	if _, err := os.Stat("/usr/sbin/haproxy"); err == nil {
		return "/usr/sbin/haproxy"
	}
	if os.Getenv("OMNI_REQUIRE_HAPROXY") != "" {
		tb.Fatal("haproxy is not installed and OMNI_REQUIRE_HAPROXY is set (apt-get install haproxy)")
	}
	tb.Skip("haproxy is not installed (apt-get install haproxy); skipping the HAProxy tests")
	return ""
}

// buildOmni builds the omni binary into a temporary directory with the go
// command that runs the test (go test puts its GOROOT/bin first on $PATH).
func buildOmni(tb testing.TB) string {
	tb.Helper()
	bin := filepath.Join(tb.TempDir(), "omni")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/omni-tts/omni/cmd/omni").CombinedOutput()
	if err != nil {
		tb.Fatalf("go build omni: %v\n%s", err, out)
	}
	return bin
}

// freeAddr returns a loopback address with a port free at the time of the
// call.
func freeAddr(tb testing.TB) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("find a free port: %v", err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// lockedBuffer collects a child's output.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// proc is a child process the test started.
type proc struct {
	name string
	cmd  *exec.Cmd
	out  *lockedBuffer
	done chan struct{}
	err  error // valid after done
}

// start runs name with args, output collected; Cleanup kills it if it is
// still running.
func start(tb testing.TB, name string, bin string, args ...string) *proc {
	tb.Helper()
	p := &proc{name: name, cmd: exec.Command(bin, args...), out: &lockedBuffer{}, done: make(chan struct{})}
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	if err := p.cmd.Start(); err != nil {
		tb.Fatalf("start %s: %v", name, err)
	}
	go func() { p.err = p.cmd.Wait(); close(p.done) }()
	tb.Cleanup(func() {
		select {
		case <-p.done:
		default:
			p.cmd.Process.Kill()
			<-p.done
		}
		if tb.Failed() {
			tb.Logf("output of %s:\n%s", name, p.out.String())
		}
	})
	return p
}

// signal sends sig to the process.
func (p *proc) signal(tb testing.TB, sig os.Signal) {
	tb.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		tb.Fatalf("signal %s: %v", p.name, err)
	}
}

// wait waits up to d for the process to exit and returns its error.
func (p *proc) wait(tb testing.TB, d time.Duration) error {
	tb.Helper()
	select {
	case <-p.done:
		return p.err
	case <-time.After(d):
		tb.Fatalf("%s did not exit within %v", p.name, d)
		return nil
	}
}

// replica is one omni serve child.
type replica struct {
	*proc
	addr string
}

// startReplica starts omni serve as instance name and waits for /readyz.
func startReplica(tb testing.TB, bin, name string) *replica {
	tb.Helper()
	addr := freeAddr(tb)
	args := append(replicaCommand(), "--listen", addr, "--instance", name)
	r := &replica{proc: start(tb, "replica "+name, bin, args...), addr: addr}
	client := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := client.Get("http://" + addr + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return r
			}
		}
		select {
		case <-r.done:
			tb.Fatalf("replica %s exited before it was ready: %v\n%s", name, r.err, r.out.String())
		default:
		}
		if time.Now().After(deadline) {
			tb.Fatalf("replica %s not ready within 60 s (last: %v)", name, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// metrics scrapes the replica's /metrics into series → value, a series
// being the name with its labels as printed (omni_requests_running,
// omni_requests_finished_total{reason="eos"}).
func (r *replica) metrics(ctx context.Context) (map[string]float64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+r.addr+"/metrics", nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	m := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			continue
		}
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			return nil, fmt.Errorf("metrics of %s: line %q: %w", r.name, line, err)
		}
		m[line[:i]] = v
	}
	return m, sc.Err()
}

// sumPrefix adds the series whose name starts with prefix.
func sumPrefix(m map[string]float64, prefix string) float64 {
	var s float64
	for k, v := range m {
		if strings.HasPrefix(k, prefix) {
			s += v
		}
	}
	return s
}

// startProxy writes cfg and runs haproxy in the foreground on it, then waits
// until answers through it come from every replica.
func startProxy(tb testing.TB, haproxyBin string, cfg haproxy.Config) *proc {
	tb.Helper()
	text, err := cfg.Render()
	if err != nil {
		tb.Fatal(err)
	}
	path := filepath.Join(tb.TempDir(), "haproxy.cfg")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		tb.Fatal(err)
	}
	p := start(tb, "haproxy", haproxyBin, "-db", "-f", path)
	tb.Cleanup(func() {
		if tb.Failed() {
			tb.Logf("haproxy.cfg:\n%s", text)
		}
	})
	want := map[string]bool{}
	for _, s := range cfg.Servers {
		want[s.Name] = true
	}
	client := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(20 * time.Second)
	for len(want) > 0 {
		resp, err := client.Get("http://" + cfg.Listen + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				delete(want, resp.Header.Get("X-Omni-Instance"))
			}
		}
		select {
		case <-p.done:
			tb.Fatalf("haproxy exited: %v\n%s", p.err, p.out.String())
		default:
		}
		if time.Now().After(deadline) {
			tb.Fatalf("haproxy at %s: no answer from %v within 20 s (last: %v)", cfg.Listen, want, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return p
}
