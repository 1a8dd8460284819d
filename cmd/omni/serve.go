package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/omni-tts/omni/host"
	"github.com/omni-tts/omni/serve"
	"github.com/omni-tts/omni/serve/engine"
	"github.com/omni-tts/omni/serve/servetest"
)

// serveCmd is "omni serve": the OpenAI-compatible speech server.
type serveCmd struct {
	engineFlags
	longServeFlags
	cloneServeFlags

	Listen         string        `default:"127.0.0.1:8000" help:"Address to listen on (${default})."`
	ModelName      string        `name:"model-name" default:"omni" help:"Model id clients send in \"model\" (${default})."`
	ModelAlias     []string      `name:"model-alias" help:"More accepted model ids (e.g. tts-1 for clients hard-wired to OpenAI's names)."`
	DefaultFormat  string        `name:"default-format" default:"mp3" enum:"wav,pcm,mp3,flac" help:"response_format when a request names none: ${enum} (${default}, as OpenAI)."`
	MaxBody        int64         `name:"max-body" default:"1048576" help:"Largest request body in bytes (${default})."`
	MaxInput       int           `name:"max-input" default:"4096" help:"Longest input or instructions in characters; longer is a 413 (${default})."`
	MaxWaiting     int           `name:"max-waiting" default:"16" help:"Requests that may wait for admission at once; one more is a 429 (${default})."`
	MaxConnections int           `name:"max-connections" default:"256" help:"Concurrent TCP connections (${default})."`
	MaxPerClient   int           `name:"max-connections-per-client" help:"Concurrent TCP connections from one IP address; past it a connection is answered 429 and closed (default: a quarter of --max-connections; behind a proxy, raise it to --max-connections)."`
	HeaderTimeout  time.Duration `name:"read-header-timeout" default:"5s" help:"Time to read a request's headers (${default}); a client trickling them is dropped."`
	ReadTimeout    time.Duration `name:"read-timeout" default:"30s" help:"Time to read a request (${default}); a body not received in time is a 408. Lifted once the body is read."`
	WriteTimeout   time.Duration `name:"write-timeout" default:"30s" help:"Longest a single write may block on a client that stopped reading (${default}); streams themselves may last any time."`
	IdleTimeout    time.Duration `name:"idle-timeout" default:"120s" help:"Idle keep-alive connections close after (${default})."`
	RetryAfter     time.Duration `name:"retry-after" default:"1s" help:"Retry-After of a 429 when the engine gives no hint (${default})."`
	Grace          time.Duration `default:"30s" help:"On SIGTERM/SIGINT: how long streams in flight may run before they are cancelled (${default})."`
	Instance       string        `env:"OMNI_INSTANCE" help:"Name this replica in an X-Omni-Instance header on every response (e.g. the pod name behind a load balancer); empty sends none."`

	Fake          bool          `help:"Serve a 440 Hz test tone from a fake synthesizer instead of the model (try clients, the page and loadtest without an engine)."`
	FakeFrameTime time.Duration `name:"fake-frame-time" default:"20ms" help:"--fake: wall time per 80 ms frame (${default})."`
	FakeCapacity  int           `name:"fake-capacity" default:"4" help:"--fake: streams that may run at once (${default})."`
}

// Run implements the "omni serve" command: it serves until SIGTERM or
// SIGINT, then drains (readiness false, new requests 503, streams in flight
// finish within --grace) and exits 0.
func (c *serveCmd) Run(g *Globals, ctx context.Context) error {
	if err := c.checkFlags(); err != nil {
		return err
	}
	if err := c.checkCloneFlags(c.Fake); err != nil {
		return err
	}
	syn, closeEngine, err := c.synthesizer(ctx, g)
	if err != nil {
		return err
	}
	defer closeEngine()
	voices, closeVoices, err := c.voices(syn)
	if err != nil {
		return err
	}
	defer closeVoices()
	log := slog.New(slog.NewTextHandler(g.Stderr, nil))
	srv, err := serve.New(syn, serve.Config{
		ModelAliases: c.ModelAlias, DefaultFormat: c.DefaultFormat, MaxBodyBytes: c.MaxBody,
		MaxInputChars: c.MaxInput, MaxWaiting: c.MaxWaiting, MaxConnections: c.MaxConnections,
		MaxConnectionsPerClient: c.MaxPerClient, ReadHeaderTimeout: c.HeaderTimeout,
		ReadTimeout: c.ReadTimeout, WriteTimeout: c.WriteTimeout, IdleTimeout: c.IdleTimeout,
		RetryAfter: c.RetryAfter, Version: buildVersion(), Instance: c.Instance, Logger: log,
		Cloning: c.cloneConfig(voices),
	})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", c.Listen)
	if err != nil {
		return fmt.Errorf("serve: listen %s: %w", c.Listen, err)
	}
	sigCtx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	info := syn.Info()
	log.Info("omni serve listening", "addr", "http://"+ln.Addr().String(), "model", info.Name, "voices", len(info.Voices), "fake", c.Fake, "instance", c.Instance)

	select {
	case err := <-served:
		return fmt.Errorf("serve: %w", err)
	case <-sigCtx.Done():
	}
	log.Info("draining", "grace", c.Grace)
	if err := srv.Drain(c.Grace); err != nil {
		log.Warn("drain", "err", err)
	}
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	log.Info("drained; exiting")
	return errSignalHandled // a drain is serve's normal end: exit 0
}

// synthesizer returns the fake under --fake, else the engine's, with the
// function that stops and closes it (after the server has drained).
func (c *serveCmd) synthesizer(ctx context.Context, g *Globals) (serve.Synthesizer, func(), error) {
	if c.Fake {
		info := servetest.DefaultInfo()
		if c.FakeBase {
			info = servetest.BaseInfo()
		}
		info.Name = c.ModelName
		return &servetest.Fake{Model: info, FrameTime: c.FakeFrameTime, Capacity: c.FakeCapacity}, func() {}, nil
	}
	if err := c.check(); err != nil {
		return nil, nil, err
	}
	o, err := c.longOptions(c.ModelName)
	if err != nil {
		return nil, nil, err
	}
	return newEngineSynthesizer(ctx, g, &c.engineFlags, o)
}

// voices returns the voice store of a Base model (the fake's under
// --fake --fake-base), nil for any other, and its close.
func (c *serveCmd) voices(syn serve.Synthesizer) (serve.Voices, func(), error) {
	if syn.Info().ModelType != "Base" {
		return nil, func() {}, nil
	}
	if c.Fake {
		return &servetest.Voices{}, func() {}, nil
	}
	return c.openVoices(c.Model)
}

// newEngineSynthesizer opens the engine the flags name (with its codec
// stage), runs it, and returns the serve.Synthesizer over it, served under
// o.Name, with the function that stops and closes the engine.
func newEngineSynthesizer(ctx context.Context, g *Globals, f *engineFlags, o engine.Options) (serve.Synthesizer, func(), error) {
	f.audio = true
	logf := func(format string, a ...any) { fmt.Fprintf(g.Stderr, "serve: "+format+"\n", a...) }
	oe, err := f.openEngine(ctx, g, 0, host.Native, logf)
	if err != nil {
		return nil, nil, err
	}
	o.KVBudgetBytes, o.MaxNewTokens = oe.kvBudget, f.MaxNewTokens
	syn, err := engine.New(oe.Engine, o)
	if err != nil {
		oe.Close()
		return nil, nil, err
	}
	runCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	ran := make(chan struct{})
	go func() {
		defer close(ran)
		err := oe.Run(runCtx)
		if runCtx.Err() != nil {
			return // stopped on purpose, after the drain
		}
		// The loop ended while serving: /healthz fails and every request
		// is answered 503 from now on, so the replica is restarted.
		logf("engine loop stopped: %v; answering 503 until restarted", err)
		syn.Stopped(err)
	}()
	return syn, func() {
		stop()
		<-ran
		oe.Close()
	}, nil
}

// buildVersion is the module version of the binary, or "dev".
func buildVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}
