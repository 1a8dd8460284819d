package bench

import (
	"fmt"
	"strings"
)

// SpeechSweep is a sweep's summary.json with audio: one SpeechReport per
// thread split (model + codec threads) and stream count.
type SpeechSweep struct {
	Date           string          `json:"date"`
	Model          string          `json:"model"`
	Precision      string          `json:"precision"`
	CodecPrecision string          `json:"codec_precision"`
	Frames         int             `json:"frames"`
	Runs           []*SpeechReport `json:"runs"`
}

// Markdown renders the runs as a markdown table (summary.md).
func (s *SpeechSweep) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# omni sweep with audio — %s %s + codec %s, %d frames per stream (%s)\n\n", s.Model, s.Precision, s.CodecPrecision, s.Frames, s.Date)
	b.WriteString("| model+codec threads | streams | gen ms/step | codec ms/step | RTF with audio | steady RTF | TTFA p50 ms | TTFA p95 ms | stalls | gen busy | codec busy | CPU cores |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range s.Runs {
		fmt.Fprintf(&b, "| %d+%d | %d | %.1f | %.1f | %.3f | %.3f | %.0f | %.0f | %d | %.0f%% | %.0f%% | %.2f |\n",
			r.ModelThreads, r.CodecThreads, r.Streams, r.GenMsPerStep, r.CodecMsPerStep, r.RTF, r.RTFSteady,
			r.TTFAMsP50, r.TTFAMsP95, r.Stalls, 100*r.GenBusy, 100*r.CodecBusy, r.CPUCores)
	}
	b.WriteString("\nRTF with audio is submit → last sample delivered over one stream's audio (every stream has the same length); steady RTF counts from each stream's first audio; stalls are a player's underruns after its first audio; busy shares are of the wall time.\n")
	return b.String()
}

// SVG draws RTF with audio (left) and TTFA p50 (right) against the stream
// count, one line per thread split.
func (s *SpeechSweep) SVG() string {
	const W, H, pad = 900, 380, 50
	colors := []string{"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"}
	var splits []string
	maxStreams, maxRTF, maxTTFA := 1, 1.0, 100.0
	for _, r := range s.Runs {
		if k := split(r); !contains(splits, k) {
			splits = append(splits, k)
		}
		maxStreams = max(maxStreams, r.Streams)
		maxRTF = max(maxRTF, r.RTF)
		maxTTFA = max(maxTTFA, r.TTFAMsP50)
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">`+"\n", W, H)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", W, H)
	panel := func(x0 int, title string, val func(*SpeechReport) float64, vmax float64, line float64) {
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
		if line > 0 && line < vmax {
			fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="gray" stroke-dasharray="4"/>`+"\n", x0, ys(line), x0+pw, ys(line))
		}
		for n := 1; n <= maxStreams; n++ {
			fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle">%d</text>`+"\n", xs(n), pad+ph+16, n)
		}
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle">streams</text>`+"\n", x0+pw/2, pad+ph+32)
		for si, k := range splits {
			col := colors[si%len(colors)]
			var pts []string
			for _, r := range s.Runs {
				if split(r) == k {
					pts = append(pts, fmt.Sprintf("%d,%d", xs(r.Streams), ys(val(r))))
					fmt.Fprintf(&b, `<circle cx="%d" cy="%d" r="3" fill="%s"/>`+"\n", xs(r.Streams), ys(val(r)), col)
				}
			}
			fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"/>`+"\n", strings.Join(pts, " "), col)
			fmt.Fprintf(&b, `<text x="%d" y="%d" fill="%s">%s threads</text>`+"\n", x0+pw-110, pad+14*(si+1), col, k)
		}
	}
	panel(pad, "RTF with audio (dashed: real time)", func(r *SpeechReport) float64 { return r.RTF }, maxRTF*1.1, 1)
	panel(W/2+pad, "time to first audio p50, ms", func(r *SpeechReport) float64 { return r.TTFAMsP50 }, maxTTFA*1.1, 0)
	b.WriteString("</svg>\n")
	return b.String()
}

// split names a run's thread split, "model+codec".
func split(r *SpeechReport) string { return fmt.Sprintf("%d+%d", r.ModelThreads, r.CodecThreads) }

// contains reports whether xs holds x.
func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}
