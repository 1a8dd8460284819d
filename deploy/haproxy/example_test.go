package haproxy_test

import (
	"fmt"

	"github.com/omni-tts/omni/deploy/haproxy"
)

// ExampleConfig_Render prints the configuration docs/DEPLOY.md shows (and
// deploy/haproxy/haproxy.cfg holds): two replicas on this machine.
func ExampleConfig_Render() {
	text, err := haproxy.Config{
		Listen:  "127.0.0.1:8000",
		Balance: haproxy.LeastConn,
		Servers: []haproxy.Server{{Name: "a", Addr: "127.0.0.1:8001"}, {Name: "b", Addr: "127.0.0.1:8002"}},
	}.Render()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(text)
	// Output:
	// # omni serve replicas behind HAProxy (deploy/haproxy renders this file).
	// global
	//     # maxconn unset: HAProxy sizes it from the file descriptor limit.
	//
	// defaults
	//     mode http
	//     # Forward each audio chunk at once: without this HAProxy sends with
	//     # MSG_MORE and the kernel may hold a chunk up to 200 ms (time to first
	//     # audio +100..210 ms measured on the fake, docs/DEPLOY.md).
	//     option http-no-delay
	//     timeout connect 2s
	//     timeout http-request 10s
	//     timeout http-keep-alive 30s
	//     # Inactivity timeouts, not totals: a stream writes every chunk, and a
	//     # request may wait for admission on its replica before its first byte.
	//     timeout client 10m
	//     timeout server 10m
	//     timeout check 2s
	//     # A draining replica answers 503 before it synthesizes anything, and a
	//     # stopped one refuses the connection: send the request to another one.
	//     retries 2
	//     option redispatch 1
	//     retry-on conn-failure empty-response 503
	//
	// frontend omni
	//     bind 127.0.0.1:8000
	//     default_backend omni
	//
	// backend omni
	//     balance leastconn
	//     option httpchk GET /readyz
	//     http-check expect status 200
	//     default-server inter 2s fastinter 2s downinter 2s fall 1 rise 2
	//     server a 127.0.0.1:8001 check
	//     server b 127.0.0.1:8002 check
}
