package bench

import (
	"fmt"
	"strings"
)

// Sweep is a sweep's summary.json: one E2EReport per thread count and
// stream count.
type Sweep struct {
	Date      string       `json:"date"`
	Model     string       `json:"model"`
	Precision string       `json:"precision"`
	Frames    int          `json:"frames"`
	Runs      []*E2EReport `json:"runs"`
}

// Markdown renders the runs as a markdown table (summary.md).
func (s *Sweep) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# omni sweep — %s %s, %d frames per stream (%s)\n\n", s.Model, s.Precision, s.Frames, s.Date)
	b.WriteString("| threads | streams | ms/frame | RTF | frames/s | TTFA p50 ms | playback start p50 ms | stalls | floor ms | efficiency | read GB/s | overhead share |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range s.Runs {
		fmt.Fprintf(&b, "| %d | %d | %.2f | %.3f | %.2f | %.0f | %.0f | %d | %.2f | %.2f | %.1f | %.2f%% |\n",
			r.Threads, r.Streams, r.MsPerFrame, r.RTF, r.FramesPerS, r.TTFAMsP50, r.PlaybackStartMsP50, r.Stalls,
			r.FloorMsPerFrame, r.Efficiency, r.ReadGBps, 100*r.OverheadShare)
	}
	b.WriteString("\nms/frame is the wall time of the decode steps ÷ the frames of each stream (every step makes one frame of every stream); RTF = ms/frame ÷ 80; frames/s counts all streams over the wall time of the prefill and decode steps; the floor is the weights one step reads at the DRAM read rate measured in the same run.\n")
	return b.String()
}

// SVG draws ms/frame (left) and RTF (right) against the stream count,
// one line per thread count (sweep.svg).
func (s *Sweep) SVG(threads []int) string {
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
	panel := func(x0 int, title string, val func(*E2EReport) float64, vmax float64) {
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
	panel(pad, "ms per frame (decode step)", func(r *E2EReport) float64 { return r.MsPerFrame }, maxMS*1.1)
	panel(W/2+pad, "RTF (per stream, lower is better)", func(r *E2EReport) float64 { return r.RTF }, maxRTF*1.1)
	b.WriteString("</svg>\n")
	return b.String()
}
