package haproxy

import (
	"errors"
	"fmt"
	"net"
	"strings"
	"time"
)

// Balance algorithms Render accepts.
const (
	// LeastConn sends a request to the replica serving the fewest; the one
	// to use for streams whose lengths differ.
	LeastConn = "leastconn"
	// RoundRobin sends requests to the replicas in turn, whatever they hold;
	// here for the comparison only.
	RoundRobin = "roundrobin"
)

// Server is one omni serve replica.
type Server struct {
	// Name is HAProxy's name for it (letters, digits, '-', '_', '.').
	Name string
	// Addr is its host:port.
	Addr string
}

// Config describes the proxy. The zero value of a duration takes the default
// in its comment.
type Config struct {
	// Listen is the host:port clients connect to.
	Listen string
	// Balance is LeastConn (default) or RoundRobin.
	Balance string
	// Servers are the replicas.
	Servers []Server
	// CheckInterval is the time between two GET /readyz of a replica
	// (default 2 s). One failed check takes a replica out; two good ones
	// bring it back.
	CheckInterval time.Duration
	// StreamIdle is the longest the proxy lets a stream sit with no byte
	// moving either way (default 10 min). It is an inactivity timeout, not a
	// total: a stream writes every chunk, but a request may wait for
	// admission on its replica before the first byte.
	StreamIdle time.Duration
	// LogStdout logs every request (with the replica that served it) and
	// every health change to standard output.
	LogStdout bool
}

// Validate reports the first impossible field.
func (c Config) Validate() error {
	if _, _, err := net.SplitHostPort(c.Listen); err != nil {
		return fmt.Errorf("haproxy: listen address %q: %w", c.Listen, err)
	}
	switch c.Balance {
	case "", LeastConn, RoundRobin:
	default:
		return fmt.Errorf("haproxy: balance %q: want %s or %s", c.Balance, LeastConn, RoundRobin)
	}
	if len(c.Servers) == 0 {
		return errors.New("haproxy: no servers")
	}
	seen := map[string]bool{}
	for _, s := range c.Servers {
		if s.Name == "" || strings.IndexFunc(s.Name, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_.", r))
		}) >= 0 {
			return fmt.Errorf("haproxy: server name %q: want letters, digits, '-', '_' or '.'", s.Name)
		}
		if seen[s.Name] {
			return fmt.Errorf("haproxy: server name %q used twice", s.Name)
		}
		seen[s.Name] = true
		if _, _, err := net.SplitHostPort(s.Addr); err != nil {
			return fmt.Errorf("haproxy: server %s address %q: %w", s.Name, s.Addr, err)
		}
	}
	if c.CheckInterval < 0 || c.StreamIdle < 0 {
		return fmt.Errorf("haproxy: negative duration (check interval %v, stream idle %v)", c.CheckInterval, c.StreamIdle)
	}
	return nil
}

// Render returns the haproxy.cfg text for c.
func (c Config) Render() (string, error) {
	if err := c.Validate(); err != nil {
		return "", err
	}
	if c.Balance == "" {
		c.Balance = LeastConn
	}
	if c.CheckInterval == 0 {
		c.CheckInterval = 2 * time.Second
	}
	if c.StreamIdle == 0 {
		c.StreamIdle = 10 * time.Minute
	}
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	p("# omni serve replicas behind HAProxy (deploy/haproxy renders this file).")
	p("global")
	p("    # maxconn unset: HAProxy sizes it from the file descriptor limit.")
	if c.LogStdout {
		p("    log stdout format raw local0")
	}
	p("")
	p("defaults")
	p("    mode http")
	if c.LogStdout {
		p("    log global")
		p("    option httplog")
	}
	p("    # Forward each audio chunk at once: without this HAProxy sends with")
	p("    # MSG_MORE and the kernel may hold a chunk up to 200 ms (time to first")
	p("    # audio +100..210 ms measured on the fake, docs/DEPLOY.md).")
	p("    option http-no-delay")
	p("    timeout connect 2s")
	p("    timeout http-request 10s")
	p("    timeout http-keep-alive 30s")
	p("    # Inactivity timeouts, not totals: a stream writes every chunk, and a")
	p("    # request may wait for admission on its replica before its first byte.")
	p("    timeout client %s", ms(c.StreamIdle))
	p("    timeout server %s", ms(c.StreamIdle))
	p("    timeout check %s", ms(max(c.CheckInterval, time.Second)))
	p("    # A draining replica answers 503 before it synthesizes anything, and a")
	p("    # stopped one refuses the connection: send the request to another one.")
	p("    retries 2")
	p("    option redispatch 1")
	p("    retry-on conn-failure empty-response 503")
	p("")
	p("frontend omni")
	p("    bind %s", c.Listen)
	p("    default_backend omni")
	p("")
	p("backend omni")
	p("    balance %s", c.Balance)
	p("    option httpchk GET /readyz")
	p("    http-check expect status 200")
	p("    default-server inter %s fastinter %s downinter %s fall 1 rise 2",
		ms(c.CheckInterval), ms(c.CheckInterval), ms(c.CheckInterval))
	for _, s := range c.Servers {
		p("    server %s %s check", s.Name, s.Addr)
	}
	return b.String(), nil
}

// ms writes d as HAProxy reads a duration: whole minutes, seconds or
// milliseconds, the largest unit that is exact.
func ms(d time.Duration) string {
	switch n := d.Milliseconds(); {
	case n > 0 && n%60000 == 0:
		return fmt.Sprintf("%dm", n/60000)
	case n > 0 && n%1000 == 0:
		return fmt.Sprintf("%ds", n/1000)
	default:
		return fmt.Sprintf("%dms", n)
	}
}
