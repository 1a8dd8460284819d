package main

import (
	"context"
	"fmt"
	"time"

	"github.com/omni-tts/omni/serve/loadtest"
)

// loadtestCmd is "omni loadtest": many speech streams against a server.
type loadtestCmd struct {
	URL             string        `default:"http://127.0.0.1:8000" help:"Server base URL (${default})."`
	Concurrency     int           `short:"c" default:"4" help:"Streams open at once (${default})."`
	Requests        int           `short:"n" default:"16" help:"Streams in total (${default})."`
	Rate            float64       `default:"0" help:"Streams opened per second; 0 opens as fast as --concurrency allows (${default})."`
	Input           string        `default:"The quick brown fox jumps over the lazy dog, and then it rests a while in the warm afternoon sun." help:"Text of every request."`
	Mix             []string      `sep:"none" help:"More texts (repeatable): each stream draws its text uniformly from --input and these, so streams differ in length."`
	Voice           string        `default:"vivian" help:"Voice of every request (${default})."`
	Model           string        `default:"omni" help:"Model id of every request (${default})."`
	Slow            float64       `default:"0.25" help:"Fraction of streams read slowly (${default})."`
	SlowBPS         int           `name:"slow-bps" default:"32000" help:"Bytes/s of a slow reader; 48000 is real time for pcm (${default})."`
	Disconnect      float64       `default:"0.1" help:"Fraction of streams that hang up early (${default})."`
	DisconnectAfter int           `name:"disconnect-after" default:"20000" help:"Bytes a disconnecting reader takes before hanging up (${default})."`
	Seed            uint64        `default:"1" help:"Seed choosing the slow and disconnecting streams (${default})."`
	Timeout         time.Duration `default:"10m" help:"Longest a single stream may take (${default})."`
}

// Run implements "omni loadtest": it prints the summary to stdout and fails
// if an admitted stream lost audio without being told why.
func (c *loadtestCmd) Run(g *Globals, ctx context.Context) error {
	rep, err := loadtest.Run(ctx, loadtest.Config{
		URL: c.URL, Concurrency: c.Concurrency, Requests: c.Requests, Rate: c.Rate,
		Input: c.Input, Mix: c.Mix, Voice: c.Voice, Model: c.Model,
		SlowFraction: c.Slow, SlowBytesPerSecond: c.SlowBPS,
		DisconnectFraction: c.Disconnect, DisconnectAfterBytes: c.DisconnectAfter,
		Seed: c.Seed, Timeout: c.Timeout,
	}, nil)
	if err != nil {
		return err
	}
	rep.WriteText(g.Stdout)
	if s := rep.Summarize(); s.Lost > 0 {
		return fmt.Errorf("loadtest: %d admitted streams lost audio without an error", s.Lost)
	}
	return nil
}
