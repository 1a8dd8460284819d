package serve_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/omni-tts/omni/serve"
	"github.com/omni-tts/omni/serve/servetest"
)

// cloneStats mirrors window.omniClone in static/clone.js.
type cloneStats struct {
	State       string   `json:"state"`
	Error       *string  `json:"error"`
	ClipSamples int      `json:"clipSamples"`
	Voices      []string `json:"voices"`
}

// TestPlaygroundCloneInBrowser drives the page's clone tab in headless
// Chromium with its fake microphone (a beep) on a Base model, the fake and
// synth:tiny-base: record, name, consent, add; pick a file, add; speak
// with the recorded voice to the end; delete a voice. On the fake the
// recorded clip reaches the store as the page's 24 kHz WAV, sample for
// sample. OMNI_SCREENSHOT_CLONE=path.png saves the page after adding.
func TestPlaygroundCloneInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	exe := findChromium()
	if exe == "" {
		t.Skip("no Chromium installed (apt-get install -y chromium); skipping the browser test")
	}
	clipPath := filepath.Join(t.TempDir(), "upload.wav")
	if err := os.WriteFile(clipPath, toneWAV(22050, 33075, 0.4), 0o644); err != nil { // 1.5 s at 22.05 kHz
		t.Fatal(err)
	}
	t.Run("fake", func(t *testing.T) {
		fake := &servetest.Fake{Model: servetest.BaseInfo(), FrameTime: 5 * time.Millisecond}
		_, url := startServer(t, fake, serve.Config{Cloning: serve.CloneConfig{Voices: &servetest.Voices{}}})
		recorded := clonePage(t, exe, url, clipPath, func(t *testing.T, samples int) {
			if want := servetest.FramesFor(playgroundSentence) * 1920; samples != want {
				t.Errorf("samples scheduled %d, want %d", samples, want)
			}
		}, os.Getenv("OMNI_SCREENSHOT_CLONE"))
		if _, ref := lastRef(t, fake); ref.Samples != recorded || ref.Peak < 0.001 {
			t.Errorf("the speech request conditioned on %+v, want the recorded clip (%d samples at 24 kHz, not silent)", ref, recorded)
		}
	})
	t.Run("engine", func(t *testing.T) {
		ts := engineBaseServer(t)
		clonePage(t, exe, ts.URL, clipPath, func(t *testing.T, samples int) {
			if samples <= 0 || samples%1920 != 0 {
				t.Errorf("samples scheduled %d, want whole frames", samples)
			}
		}, "")
	})
}

// clonePage runs the clone tab against the server at url and returns the
// recorded clip's samples (24 kHz, as the page encoded them).
func clonePage(t *testing.T, exe, url, clipPath string, checkSpoken func(t *testing.T, samples int), screenshot string) int {
	// a granted, beeping fake microphone
	ctx := browserPage(t, exe, url, 900, 1000, chromedp.Flag("use-fake-ui-for-media-stream", true), chromedp.Flag("use-fake-device-for-media-stream", true))
	stats := func() cloneStats {
		s, err := chromedp.Run(ctx, chromedp.Evaluate[cloneStats](`window.omniClone`))
		if err != nil {
			t.Fatalf("read omniClone: %v", err)
		}
		return s
	}
	poll := func(expr string, d time.Duration) chromedp.Action[chromedp.Void] {
		return func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
			_, err := chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(d))(ctx, tg)
			return chromedp.Void{}, err
		}
	}
	add := func(name string) {
		t.Helper()
		if err := chromedp.Do(ctx,
			chromedp.SetValue(chromedp.ID("cloneName"), name),
			chromedp.SetValue(chromedp.ID("refText"), "Beep beep beep."),
			poll(`(document.getElementById("consentBox").checked = true)`, time.Second),
			chromedp.Click(chromedp.ID("addVoice")),
			poll(`window.omniClone.state === "added" || window.omniClone.state === "error"`, 30*time.Second),
		); err != nil {
			t.Fatalf("add voice %s: %v (%+v)", name, err, stats())
		}
		if s := stats(); s.State != "added" {
			t.Fatalf("add voice %s: %+v", name, s)
		}
	}

	// A Base model with an empty library opens on the clone tab.
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.ID("record")), poll(`window.omniClone.state === "idle"`, 10*time.Second)); err != nil {
		t.Fatalf("the clone tab did not open: %v", err)
	}
	// Record from the (fake) microphone for a second and a half.
	if err := chromedp.Do(ctx,
		chromedp.Click(chromedp.ID("record")),
		poll(`window.omniClone.state === "recording"`, 10*time.Second),
		chromedp.Sleep(1500*time.Millisecond),
		chromedp.Click(chromedp.ID("record")),
		poll(`window.omniClone.state === "recorded" || window.omniClone.state === "error"`, 20*time.Second),
	); err != nil {
		t.Fatalf("record: %v (%+v)", err, stats())
	}
	recorded := stats().ClipSamples
	if s := stats(); s.State != "recorded" || s.ClipSamples < 24000 {
		t.Fatalf("after recording 1.5 s: %+v, want a clip of at least 1 s", s)
	}
	add("mic")

	// A file picked from disk (22.05 kHz WAV): resampled in the page.
	if err := chromedp.Do(ctx,
		chromedp.SetUploadFiles(chromedp.ID("clipFile"), []string{clipPath}),
		poll(`window.omniClone.state === "recorded"`, 20*time.Second),
	); err != nil {
		t.Fatalf("pick a file: %v (%+v)", err, stats())
	}
	if s := stats(); s.ClipSamples != 36000 {
		t.Errorf("a 1.5 s file became %d samples, want 36000 at 24 kHz", s.ClipSamples)
	}
	add("file")
	if s := stats(); len(s.Voices) != 2 || s.Voices[0] != "file" || s.Voices[1] != "mic" {
		t.Errorf("library %q, want [file mic]", s.Voices)
	}
	if screenshot != "" {
		if buf, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)); err == nil {
			os.WriteFile(screenshot, buf, 0o644)
		}
	}

	// Speak with the recorded voice in the Speak tab.
	if err := chromedp.Do(ctx,
		chromedp.Click(chromedp.ID("speakTab")),
		poll(`(document.getElementById("voice").value = "mic") === "mic"`, time.Second),
		chromedp.SetValue(chromedp.ID("text"), playgroundSentence),
		chromedp.Click(chromedp.ID("speak")),
		poll(`window.omniStats.state === "done" || window.omniStats.state === "error"`, 60*time.Second),
	); err != nil {
		t.Fatalf("speak with mic: %v", err)
	}
	ps, err := chromedp.Run(ctx, chromedp.Evaluate[pageStats](`window.omniStats`))
	if err != nil || ps.State != "done" {
		t.Fatalf("speak with mic: %v %v", ps, err)
	}
	checkSpoken(t, ps.SamplesScheduled)

	// Delete "file" from the clone tab's list.
	if err := chromedp.Do(ctx,
		chromedp.Click(chromedp.ID("cloneTab")),
		poll(`(() => { for (const b of document.querySelectorAll("#voiceList button")) if (b.textContent === "Delete" && b.parentElement.textContent.startsWith("file")) { b.click(); return true; } return false; })()`, 5*time.Second),
		poll(`window.omniClone.voices.length === 1`, 10*time.Second),
	); err != nil {
		t.Fatalf("delete file: %v (%+v)", err, stats())
	}
	if s := stats(); fmt.Sprint(s.Voices) != "[mic]" {
		t.Errorf("after deleting file: %q", s.Voices)
	}
	return recorded
}
