package hub

import (
	"fmt"
	"io"
	"time"
)

// bar reports one file's download on the pull's progress writer: on a
// terminal one line redrawn with '\r' at most every 100 ms; otherwise plain
// lines at every 10 % of large files, and one line when a file is done.
type bar struct {
	w        io.Writer
	tty      bool
	name     string
	total    int64
	got      int64
	startAt  int64 // bytes already on disk when this run of the bar began
	t0, last time.Time
	nextPct  int64
}

// plainStepMin is the size from which plain output prints 10 % steps.
const plainStepMin = 1 << 20

func (p *puller) newBar(name string, total int64) *bar {
	return &bar{w: p.progress, tty: p.terminal, name: name, total: total}
}

// resume starts (or restarts after a retry) the count at have bytes.
func (b *bar) resume(have int64) {
	if b.w == nil {
		return
	}
	first := b.t0.IsZero()
	b.got, b.startAt, b.t0 = have, have, time.Now()
	b.nextPct = (have*10/max(b.total, 1) + 1) * 10
	if have > 0 {
		b.line(fmt.Sprintf("%s: resuming at %s of %s", b.name, bytesStr(have), bytesStr(b.total)))
	} else if first && !b.tty {
		b.line(fmt.Sprintf("%s: %s", b.name, bytesStr(b.total)))
	}
}

// Write counts downloaded bytes (the bar sits behind an io.TeeReader).
func (b *bar) Write(p []byte) (int, error) {
	if b.w == nil {
		return len(p), nil
	}
	b.got += int64(len(p))
	now := time.Now()
	if b.tty {
		if now.Sub(b.last) >= 100*time.Millisecond {
			b.last = now
			fmt.Fprintf(b.w, "\r%s\x1b[K", b.status(now))
		}
		return len(p), nil
	}
	if b.total >= plainStepMin && b.total > 0 {
		if pct := b.got * 100 / b.total; pct >= b.nextPct && pct < 100 {
			b.nextPct = (pct/10 + 1) * 10
			b.line(b.status(now))
		}
	}
	return len(p), nil
}

// status is "name  3.1 MiB / 12.0 MiB  26%  8.2 MiB/s  ETA 1s".
func (b *bar) status(now time.Time) string {
	el := now.Sub(b.t0).Seconds()
	rate := 0.0
	if el > 0 {
		rate = float64(b.got-b.startAt) / el
	}
	eta := "?"
	if rate > 0 {
		eta = (time.Duration(float64(b.total-b.got)/rate*float64(time.Second)) + time.Second/2).Truncate(time.Second).String()
	}
	return fmt.Sprintf("%s  %s / %s  %d%%  %s/s  ETA %s", b.name, bytesStr(b.got), bytesStr(b.total),
		b.got*100/max(b.total, 1), bytesStr(int64(rate)), eta)
}

// done ends the bar with the size, time, rate and what was verified.
func (b *bar) done(lfs bool) {
	if b.w == nil {
		return
	}
	el := time.Since(b.t0)
	check := "git sha1 ok"
	if lfs {
		check = "sha256 ok"
	}
	rate := float64(b.got-b.startAt) / max(el.Seconds(), 1e-9)
	b.line(fmt.Sprintf("%s  %s in %s (%s/s), %s", b.name, bytesStr(b.total), el.Round(time.Millisecond), bytesStr(int64(rate)), check))
}

// fail ends a terminal bar's line so the error prints on its own line.
func (b *bar) fail() {
	if b.w != nil && b.tty {
		fmt.Fprintln(b.w)
	}
}

// line prints a whole line (clearing the terminal bar first).
func (b *bar) line(s string) {
	if b.tty {
		fmt.Fprintf(b.w, "\r%s\x1b[K\n", s)
		return
	}
	fmt.Fprintln(b.w, s)
}

// bytesStr is n in B, KiB, MiB or GiB.
func bytesStr(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	case n < 1<<30:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
}
