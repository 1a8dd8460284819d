package serve_test

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/omni-tts/omni/host"
	"github.com/omni-tts/omni/serve"
	"github.com/omni-tts/omni/serve/engine"
)

// engineServer serves synth:tiny's engine (with its codec) through the
// engine adapter for the client tests (browser, Node SDK); the engine runs
// until the test ends. serve itself links no engine: only its tests do.
func engineServer(t *testing.T) (*httptest.Server, host.Engine) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	e, err := host.Open(ctx, host.Options{Model: "synth:tiny", MaxBatch: 2, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	syn, err := engine.New(e, engine.Options{Name: "omni", MaxNewTokens: 2048})
	if err != nil {
		t.Fatal(err)
	}
	ran := make(chan struct{})
	go func() { defer close(ran); syn.Stopped(e.Run(ctx)) }()
	srv, err := serve.New(syn, serve.Config{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(func() {
		ts.Close()
		cancel()
		<-ran
		e.Close()
	})
	return ts, e
}
