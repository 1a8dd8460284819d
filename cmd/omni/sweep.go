package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/omni-tts/omni/host"
)

// sweepCmd is "omni sweep": bench e2e over thread counts and stream counts,
// written as summary.json, summary.md and an SVG chart.
type sweepCmd struct {
	engineFlags
	// The global --threads is one number, so the list has its own name.
	Threads string `name:"sweep-threads" default:"1,2" help:"Thread counts to sweep, comma-separated (${default}); the global --threads is ignored here."`
	Streams string `default:"1,4,8" help:"Stream counts to sweep, comma-separated (${default})."`
	Frames  int    `default:"30" help:"Frames per stream in each run (${default})."`
	Warmup  int    `default:"4" help:"Warm-up frames before each run (${default})."`
	Out     string `default:"sweep" help:"Directory for summary.json, summary.md and sweep.svg (${default})."`
}

// sweepSummary is summary.json.
type sweepSummary struct {
	Date      string       `json:"date"`
	Model     string       `json:"model"`
	Precision string       `json:"precision"`
	Frames    int          `json:"frames"`
	Runs      []*e2eReport `json:"runs"`
}

// parseInts parses "1,2,4" into ints in [1, hi].
func parseInts(flag, s string, hi int) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		v, err := strconv.Atoi(f)
		if err != nil {
			return nil, fmt.Errorf("sweep: --%s entry %q is not an integer", flag, f)
		}
		if err := inRange("sweep: --"+flag+" entry", v, 1, hi); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("sweep: --%s %q is empty", flag, s)
	}
	return out, nil
}

// Run implements "omni sweep".
func (c *sweepCmd) Run(g *Globals, ctx context.Context) error {
	threads, err := parseInts("sweep-threads", c.Threads, maxThreads)
	if err != nil {
		return err
	}
	streams, err := parseInts("streams", c.Streams, maxStreams)
	if err != nil {
		return err
	}
	if err := checkBounds("sweep", bound{"--frames", c.Frames, 2, maxFrames}, bound{"--warmup", c.Warmup, 0, maxFrames}); err != nil {
		return err
	}
	if err := os.MkdirAll(c.Out, 0o755); err != nil {
		return fmt.Errorf("sweep: %w", err)
	}
	logf := func(format string, a ...any) { fmt.Fprintf(g.Stderr, "sweep: "+format+"\n", a...) }
	maxStreams := 0
	for _, s := range streams {
		maxStreams = max(maxStreams, s)
	}
	sum := sweepSummary{Date: time.Now().UTC().Format(time.RFC3339), Model: c.Model, Precision: c.Precision, Frames: c.Frames}
	for _, t := range threads {
		gt := *g
		gt.Threads = t
		e, err := c.openEngine(ctx, &gt, maxStreams, host.Native, logf)
		if err != nil {
			return err
		}
		fl := newFloorMeter(e.threads)
		for _, n := range streams {
			logf("%d thread(s), %d stream(s)", t, n)
			rep, err := runE2E(ctx, e, fl, n, c.Frames, c.Warmup, logf)
			if err != nil {
				e.Close()
				return err
			}
			logf("  %.2f ms/frame, RTF %.3f, %.2f frames/s, TTFA p50 %.0f ms, efficiency %.2f",
				rep.MsPerFrame, rep.RTF, rep.FramesPerS, rep.TTFAMsP50, rep.Efficiency)
			sum.Runs = append(sum.Runs, rep)
		}
		e.Close()
	}
	b, err := json.MarshalIndent(sum, "", "  ")
	if err != nil {
		return err
	}
	files := map[string][]byte{
		"summary.json": append(b, '\n'),
		"summary.md":   []byte(sweepMarkdown(&sum)),
		"sweep.svg":    []byte(sweepSVG(&sum, threads)),
	}
	for _, name := range []string{"summary.json", "summary.md", "sweep.svg"} {
		p := filepath.Join(c.Out, name)
		if err := os.WriteFile(p, files[name], 0o644); err != nil {
			return fmt.Errorf("sweep: %w", err)
		}
		fmt.Fprintln(g.Stdout, p)
	}
	return nil
}

// sweepMarkdown renders the runs as a markdown table.
func sweepMarkdown(s *sweepSummary) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# omni sweep — %s %s, %d frames per stream (%s)\n\n", s.Model, s.Precision, s.Frames, s.Date)
	b.WriteString("| threads | streams | ms/frame | RTF | frames/s | TTFA p50 ms | playback start p50 ms | stalls | floor ms | efficiency | read GB/s | overhead share |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range s.Runs {
		fmt.Fprintf(&b, "| %d | %d | %.2f | %.3f | %.2f | %.0f | %.0f | %d | %.2f | %.2f | %.1f | %.2f%% |\n",
			r.Threads, r.Streams, r.MsPerFrame, r.RTF, r.FramesPerS, r.TTFAMsP50, r.PlaybackStartMsP50, r.Stalls,
			r.FloorMsPerFrame, r.Efficiency, r.ReadGBps, 100*r.OverheadShare)
	}
	b.WriteString("\nms/frame is the median decode step (one frame for every stream); RTF = ms/frame ÷ 80; frames/s counts all streams over the wall time from submit to the last end; the floor is the weights one step reads at the DRAM read rate measured in the same run.\n")
	return b.String()
}

// sweepSVG draws ms/frame (left) and RTF (right) against the stream count,
// one line per thread count.
func sweepSVG(s *sweepSummary, threads []int) string {
	const W, H, pad = 900, 380, 50
	colors := []string{"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"}
	maxStreams, maxMS, maxRTF := 1, 1.0, 0.1
	for _, r := range s.Runs {
		maxStreams = max(maxStreams, r.Streams)
		maxMS = max(maxMS, r.MsPerFrame)
		maxRTF = max(maxRTF, r.RTF)
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">`+"\n", W, H)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", W, H)
	panel := func(x0 int, title string, val func(*e2eReport) float64, vmax float64) {
		pw, ph := W/2-2*pad, H-2*pad
		fmt.Fprintf(&b, `<text x="%d" y="%d" font-weight="bold">%s</text>`+"\n", x0, pad-20, title)
		fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>`+"\n", x0, pad+ph, x0+pw, pad+ph)
		fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>`+"\n", x0, pad, x0, pad+ph)
		for i := 0; i <= 4; i++ {
			y := pad + ph - ph*i/4
			fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end">%.3g</text>`+"\n", x0-4, y+4, vmax*float64(i)/4)
		}
		xs := func(n int) int { return x0 + pw*n/maxStreams }
		ys := func(v float64) int { return pad + ph - int(float64(ph)*v/vmax) }
		for n := 1; n <= maxStreams; n++ {
			fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle">%d</text>`+"\n", xs(n), pad+ph+16, n)
		}
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle">streams</text>`+"\n", x0+pw/2, pad+ph+32)
		for ti, t := range threads {
			col := colors[ti%len(colors)]
			var pts []string
			for _, r := range s.Runs {
				if r.Threads == t {
					pts = append(pts, fmt.Sprintf("%d,%d", xs(r.Streams), ys(val(r))))
					fmt.Fprintf(&b, `<circle cx="%d" cy="%d" r="3" fill="%s"/>`+"\n", xs(r.Streams), ys(val(r)), col)
				}
			}
			fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"/>`+"\n", strings.Join(pts, " "), col)
			fmt.Fprintf(&b, `<text x="%d" y="%d" fill="%s">%d thread(s)</text>`+"\n", x0+pw-90, pad+14*(ti+1), col, t)
		}
	}
	panel(pad, "ms per frame (decode step)", func(r *e2eReport) float64 { return r.MsPerFrame }, maxMS*1.1)
	panel(W/2+pad, "RTF (per stream, lower is better)", func(r *e2eReport) float64 { return r.RTF }, maxRTF*1.1)
	b.WriteString("</svg>\n")
	return b.String()
}
