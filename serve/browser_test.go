package serve_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/omni-tts/omni/serve"
	"github.com/omni-tts/omni/serve/engine"
	"github.com/omni-tts/omni/serve/servetest"
)

// findChromium returns the path of a Chromium-family browser, or "".
func findChromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// browserPage starts a headless Chromium at exe (a private profile, no
// sandbox, autoplay allowed, extra flags such as a fake microphone, a
// width × height window), loads url+"/" and returns a context of 90 s for
// the test's actions; the browser is closed when the test ends.
func browserPage(t *testing.T, exe, url string, width, height int, extra ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	opts := append([]chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("autoplay-policy", "no-user-gesture-required"),
		chromedp.WindowSize(width, height),
	}, extra...)
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelA)
	bctx, cancelC := chromedp.NewContext(actx)
	t.Cleanup(cancelC)
	// The first action starts the browser; its context must carry no timeout.
	if err := chromedp.Do(bctx, chromedp.Navigate(url+"/")); err != nil {
		t.Fatalf("start Chromium and load the page: %v", err)
	}
	ctx, cancelT := context.WithTimeout(bctx, 90*time.Second)
	t.Cleanup(cancelT)
	return ctx
}

// pageStats mirrors window.omniStats in static/index.html.
type pageStats struct {
	SamplesScheduled int      `json:"samplesScheduled"`
	Chunks           int      `json:"chunks"`
	TTFAms           *float64 `json:"ttfaMs"`
	RTF              *float64 `json:"rtf"`
	State            string   `json:"state"`
	Error            *string  `json:"error"`
}

func (s pageStats) String() string {
	e := ""
	if s.Error != nil {
		e = *s.Error
	}
	return fmt.Sprintf("{samples %d, chunks %d, state %s, error %q}", s.SamplesScheduled, s.Chunks, s.State, e)
}

// playgroundTarget is a server for the browser test: its URL, the voices
// and languages its pickers must list, whether its streams were all
// cancelled and freed, and the samples a finished sentence must schedule
// (given what was scheduled; -1 when the count is wrong).
type playgroundTarget struct {
	url            string
	info           serve.ModelInfo
	stopped        func() bool
	sentenceSample func(scheduled int) int
}

// TestPlaygroundInBrowser drives headless Chromium against the server, on
// the fake synthesizer and on the real engine (synth:tiny with its codec):
// the page fills its pickers, Speak plays audio through Web Audio as it
// streams, TTFA shows a number, Stop cancels the stream on the server (its
// KV freed). OMNI_SCREENSHOT=path.png saves a PNG of the page after
// speaking on the fake, OMNI_SCREENSHOT_ENGINE on the engine.
func TestPlaygroundInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	exe := findChromium()
	if exe == "" {
		t.Skip("no Chromium installed (apt-get install -y chromium); skipping the browser test")
	}
	t.Run("fake", func(t *testing.T) {
		fake := &servetest.Fake{FrameTime: 20 * time.Millisecond}
		_, url := startServer(t, fake, serve.Config{})
		sentence := servetest.FramesFor(playgroundSentence) * 1920
		playground(t, exe, playgroundTarget{url: url, info: servetest.DefaultInfo(),
			stopped: func() bool {
				return fake.Stats().Cancelled == 1 && fake.Load().Running == 0 && fake.Load().KVBytesInUse == 0
			},
			sentenceSample: func(int) int { return sentence }}, os.Getenv("OMNI_SCREENSHOT"))
	})
	t.Run("engine", func(t *testing.T) {
		ts, e := engineServer(t)
		syn, err := engine.New(e, engine.Options{Name: "omni", MaxNewTokens: 2048})
		if err != nil {
			t.Fatal(err)
		}
		playground(t, exe, playgroundTarget{url: ts.URL, info: syn.Info(),
			stopped: func() bool {
				l, err := e.Load()
				return err == nil && l.Running == 0 && l.Waiting == 0 && l.KVBytes == 0 && l.Decoders == 0
			},
			sentenceSample: func(got int) int {
				if got <= 0 || got%1920 != 0 {
					return -1
				}
				return got
			}}, os.Getenv("OMNI_SCREENSHOT_ENGINE"))
	})
}

// playgroundSentence is the short text the browser test speaks to the end.
const playgroundSentence = "Hello from omni, the speech engine on ordinary CPUs."

// playground runs the browser test against one target.
func playground(t *testing.T, exe string, tg playgroundTarget, screenshot string) {
	url := tg.url

	ctx := browserPage(t, exe, url, 900, 760)

	stats := func() pageStats {
		s, err := chromedp.Run(ctx, chromedp.Evaluate[pageStats](`window.omniStats`))
		if err != nil {
			t.Fatalf("read omniStats: %v", err)
		}
		return s
	}
	eval := func(expr string) int {
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](expr))
		if err != nil {
			t.Fatalf("evaluate %s: %v", expr, err)
		}
		return n
	}
	poll := func(expr string, d time.Duration) chromedp.Action[chromedp.Void] {
		return func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
			_, err := chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(d))(ctx, tg)
			return chromedp.Void{}, err
		}
	}
	if err := chromedp.Do(ctx,
		chromedp.WaitVisible(chromedp.ID("speak")),
		poll(`document.querySelectorAll("#voice option").length > 0`, 20*time.Second),
	); err != nil {
		t.Fatalf("load the page: %v", err)
	}
	voices := eval(`document.querySelectorAll("#voice option").length`)
	langs := eval(`document.querySelectorAll("#language option").length`)
	info := tg.info
	if voices != len(info.Voices) || langs != len(info.Languages)+1 {
		t.Errorf("pickers hold %d voices and %d languages, want %d and %d", voices, langs, len(info.Voices), len(info.Languages)+1)
	}

	// A long utterance: audio reaches the graph, then Stop cancels it.
	long := strings.TrimSpace(strings.Repeat("streaming speech ", 200))
	if err := chromedp.Do(ctx,
		chromedp.SetValue(chromedp.ID("text"), long),
		chromedp.Click(chromedp.ID("speak")),
		poll(`window.omniStats.samplesScheduled >= 4*1920`, 30*time.Second),
	); err != nil {
		t.Fatalf("speak: %v (page stats %v)", err, stats())
	}
	s := stats()
	if s.TTFAms == nil || *s.TTFAms < 0 || s.State != "speaking" {
		t.Errorf("while speaking: stats %+v, want a TTFA and state speaking", s)
	}
	ttfaText, _ := chromedp.Run(ctx, chromedp.Text(chromedp.ID("ttfa")))
	if !regexp.MustCompile(`^\d+ ms$`).MatchString(ttfaText) {
		t.Errorf("TTFA shown %q, want a number of ms", ttfaText)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("stop")),
		poll(`window.omniStats.state === "stopped"`, 10*time.Second)); err != nil {
		t.Fatalf("stop: %v", err)
	}
	waitFor(t, "Stop to cancel the stream on the server", tg.stopped)

	// A short sentence plays to the end; the page offers the WAV.
	sentence := playgroundSentence
	if err := chromedp.Do(ctx,
		func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
			_, err := chromedp.Evaluate[int](`document.getElementById("text").value = ""; 0`)(ctx, tg)
			return chromedp.Void{}, err
		},
		chromedp.SendKeys(chromedp.ID("text"), sentence),
		chromedp.Click(chromedp.ID("speak")),
		poll(`window.omniStats.state === "done"`, 30*time.Second),
	); err != nil {
		t.Fatalf("speak a sentence: %v (page stats %v)", err, stats())
	}
	buf, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	s = stats()
	if want := tg.sentenceSample(s.SamplesScheduled); s.SamplesScheduled != want {
		t.Errorf("samples scheduled %d, want %d (every frame of the stream)", s.SamplesScheduled, want)
	}
	if s.RTF == nil || *s.RTF <= 0 {
		t.Errorf("RTF %v, want a positive number", s.RTF)
	}
	if eval(`document.getElementById("download").hidden ? 1 : 0`) != 0 {
		t.Errorf("WAV download link hidden after speaking")
	}
	if p := screenshot; p != "" {
		if err := os.WriteFile(p, buf, 0o644); err != nil {
			t.Errorf("write screenshot: %v", err)
		}
	}
}
