package serve_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// liveStats mirrors window.omniLive in static/index.html.
type liveStats struct {
	State        string   `json:"state"`
	Words        int      `json:"words"`
	Samples      int      `json:"samples"`
	FirstAudioMS *float64 `json:"firstAudioMs"`
	Error        *string  `json:"error"`
}

// TestPlaygroundLiveInBrowser drives the page's live mode in headless
// Chromium against synth:tiny's engine: Start opens the WebSocket in token
// mode, keystrokes type words into the textarea with pauses (each finished
// word is sent as input.text), audio is played before Done is pressed, and
// Done (input.done) ends the session with whole frames played.
func TestPlaygroundLiveInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	exe := findChromium()
	if exe == "" {
		t.Skip("no Chromium installed (apt-get install -y chromium); skipping the browser test")
	}
	ts, _ := engineServer(t)
	ctx := browserPage(t, exe, ts.URL, 800, 600)
	stats := func() liveStats {
		s, err := chromedp.Run(ctx, chromedp.Evaluate[liveStats](`window.omniLive`))
		if err != nil {
			t.Fatalf("read omniLive: %v", err)
		}
		return s
	}
	poll := func(expr string, d time.Duration) chromedp.Action[chromedp.Void] {
		return func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
			_, err := chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(d))(ctx, tg)
			return chromedp.Void{}, err
		}
	}
	setExtra := func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		_, err := chromedp.Evaluate[int](`window.omniLiveExtra = {seed: 4, max_new_tokens: 60}; 0`)(ctx, tg)
		return chromedp.Void{}, err
	}
	if err := chromedp.Do(ctx,
		poll(`document.querySelectorAll("#voice option").length > 0`, 20*time.Second),
		setExtra,
		chromedp.Click(chromedp.ID("liveStart")),
		poll(`window.omniLive.state === "open" && !document.getElementById("liveText").disabled`, 10*time.Second),
	); err != nil {
		t.Fatalf("start live: %v (%+v)", err, stats())
	}
	words := strings.Fields("Hello there, this is typed live into the page and spoken as it goes")
	for _, w := range words {
		if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.ID("liveText"), w+" ")); err != nil {
			t.Fatalf("type %q: %v", w, err)
		}
		time.Sleep(40 * time.Millisecond)
	}
	// audio arrives while the text is still open (Done not pressed)
	if err := chromedp.Do(ctx, poll(`window.omniLive.samples > 0`, 60*time.Second)); err != nil {
		t.Fatalf("no audio before Done: %v (%+v)", err, stats())
	}
	before := stats()
	if before.State != "open" || before.Words != len(words) {
		t.Errorf("before Done: %+v; want state open and %d words sent", before, len(words))
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("liveDone")),
		poll(`window.omniLive.state !== "open"`, 60*time.Second)); err != nil {
		t.Fatalf("done: %v (%+v)", err, stats())
	}
	s := stats()
	if s.State != "done" || s.Error != nil || s.Samples == 0 || s.Samples%1920 != 0 || s.FirstAudioMS == nil {
		t.Fatalf("after Done: %+v; want done, whole frames played, a first-audio time", s)
	}
	t.Logf("live page: %d words, %d samples (%.2f s), first audio %s after the first word", s.Words, s.Samples, float64(s.Samples)/24000, fmt.Sprintf("%.0f ms", *s.FirstAudioMS))
}
