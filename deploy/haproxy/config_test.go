package haproxy_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/omni-tts/omni/deploy/haproxy"
)

// TestRenderHAProxyAccepts renders both balance modes and has haproxy
// itself check each file (haproxy -c), then checks the lines the routing
// story rests on are there.
func TestRenderHAProxyAccepts(t *testing.T) {
	bin := needHAProxy(t)
	for _, balance := range []string{haproxy.LeastConn, haproxy.RoundRobin} {
		t.Run(balance, func(t *testing.T) {
			text, err := haproxy.Config{Listen: "127.0.0.1:8000", Balance: balance, LogStdout: true,
				CheckInterval: 100 * time.Millisecond,
				Servers:       []haproxy.Server{{Name: "a", Addr: "127.0.0.1:8001"}, {Name: "b", Addr: "127.0.0.1:8002"}}}.Render()
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "haproxy.cfg")
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(bin, "-c", "-f", path).CombinedOutput()
			if err != nil || !strings.Contains(string(out), "Configuration file is valid") {
				t.Fatalf("haproxy -c: %v\n%s\n%s", err, out, text)
			}
			if strings.Contains(string(out), "WARNING") {
				t.Errorf("haproxy -c warns:\n%s\n%s", out, text)
			}
			for _, line := range []string{
				"balance " + balance, "option httpchk GET /readyz", "http-check expect status 200",
				"default-server inter 100ms fastinter 100ms downinter 100ms fall 1 rise 2",
				"timeout server 10m", "option http-no-delay", "retry-on conn-failure empty-response 503",
				"server a 127.0.0.1:8001 check", "server b 127.0.0.1:8002 check", "bind 127.0.0.1:8000",
			} {
				if !strings.Contains(text, "    "+line) {
					t.Errorf("config lacks %q:\n%s", line, text)
				}
			}
		})
	}
}

// TestConfigValidate checks each refusal names the field and value.
func TestConfigValidate(t *testing.T) {
	ok := []haproxy.Server{{Name: "a", Addr: "127.0.0.1:1"}}
	for _, c := range []struct {
		cfg  haproxy.Config
		want string
	}{
		{haproxy.Config{Listen: "8000", Servers: ok}, `listen address "8000"`},
		{haproxy.Config{Listen: ":8000", Balance: "random", Servers: ok}, `balance "random"`},
		{haproxy.Config{Listen: ":8000"}, "no servers"},
		{haproxy.Config{Listen: ":8000", Servers: []haproxy.Server{{Name: "a b", Addr: "h:1"}}}, `server name "a b"`},
		{haproxy.Config{Listen: ":8000", Servers: []haproxy.Server{{Name: "a", Addr: "h:1"}, {Name: "a", Addr: "h:2"}}}, `"a" used twice`},
		{haproxy.Config{Listen: ":8000", Servers: []haproxy.Server{{Name: "a", Addr: "nohost"}}}, `server a address "nohost"`},
		{haproxy.Config{Listen: ":8000", Servers: ok, CheckInterval: -time.Second}, "negative duration"},
	} {
		_, err := c.cfg.Render()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Render(%+v) = %v, want an error with %q", c.cfg, err, c.want)
		}
	}
}

// TestCommittedConfig checks that deploy/haproxy/haproxy.cfg, the file
// docs/DEPLOY.md tells users to start from, is what Render makes of the
// example's Config (so it follows every change here) and that haproxy
// accepts it.
func TestCommittedConfig(t *testing.T) {
	want, err := haproxy.Config{Listen: "127.0.0.1:8000", Balance: haproxy.LeastConn,
		Servers: []haproxy.Server{{Name: "a", Addr: "127.0.0.1:8001"}, {Name: "b", Addr: "127.0.0.1:8002"}}}.Render()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("haproxy.cfg")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("haproxy.cfg differs from Render (regenerate it from ExampleConfig_Render):\n%s", want)
	}
	bin := needHAProxy(t)
	if out, err := exec.Command(bin, "-c", "-f", "haproxy.cfg").CombinedOutput(); err != nil || strings.Contains(string(out), "WARNING") {
		t.Errorf("haproxy -c -f haproxy.cfg: %v\n%s", err, out)
	}
}
