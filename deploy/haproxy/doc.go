// Package haproxy renders the HAProxy configuration that puts several
// `omni serve` replicas behind one address with least-request balancing
// (balance leastconn), health checks on /readyz, timeouts that never cut a
// long stream, and a resend of the 503 a draining replica answers.
//
// Its tests start two replicas and HAProxy on this machine, run the load
// generator through the proxy and drain one replica mid-run
// (docs/DEPLOY.md, "Two replicas behind HAProxy"). They skip when the
// haproxy binary (Debian's haproxy package) is not installed.
package haproxy
