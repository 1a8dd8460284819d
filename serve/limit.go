package serve

import (
	"net"
	"sync"
	"time"
)

// limitListener accepts at most n connections at once (Accept blocks while
// n are open; the kernel's backlog holds the rest) and at most perClient
// from one IP address: a connection past that is answered 429 and closed
// without taking a slot, so one client trickling headers (slowloris)
// cannot hold every slot and starve /healthz.
type limitListener struct {
	net.Listener
	sem       chan struct{}
	perClient int

	mu      sync.Mutex
	clients map[string]int // open connections per remote IP
}

func newLimitListener(l net.Listener, n, perClient int) net.Listener {
	return &limitListener{Listener: l, sem: make(chan struct{}, n), perClient: perClient, clients: map[string]int{}}
}

// tooManyConnections is the whole answer to a connection over the
// per-client cap.
const tooManyConnections = "HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\nRetry-After: 1\r\nConnection: close\r\nContent-Length: 132\r\n\r\n" +
	`{"error":{"message":"too many connections from this address","type":"rate_limit_error","param":null,"code":"too_many_connections"}}` + "\n"

// Accept implements net.Listener.
func (l *limitListener) Accept() (net.Conn, error) {
	for {
		l.sem <- struct{}{}
		c, err := l.Listener.Accept()
		if err != nil {
			<-l.sem
			return nil, err
		}
		ip := remoteIP(c)
		l.mu.Lock()
		if l.perClient > 0 && l.clients[ip] >= l.perClient {
			l.mu.Unlock()
			<-l.sem
			go refuse(c)
			continue
		}
		l.clients[ip]++
		l.mu.Unlock()
		return &limitConn{Conn: c, release: func() {
			l.mu.Lock()
			if l.clients[ip]--; l.clients[ip] <= 0 {
				delete(l.clients, ip)
			}
			l.mu.Unlock()
			<-l.sem
		}}, nil
	}
}

// refuse answers a connection over its client's cap and closes it; a
// client that does not read is given a second.
func refuse(c net.Conn) {
	_ = c.SetWriteDeadline(time.Now().Add(time.Second))
	_, _ = c.Write([]byte(tooManyConnections))
	c.Close()
}

// remoteIP is the connection's remote IP address (its whole address when it
// has no port).
func remoteIP(c net.Conn) string {
	a := c.RemoteAddr().String()
	if h, _, err := net.SplitHostPort(a); err == nil {
		return h
	}
	return a
}

type limitConn struct {
	net.Conn
	once    sync.Once
	release func()
}

// Close implements net.Conn, freeing the connection's slot once.
func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
