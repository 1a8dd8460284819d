package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/omni-tts/omni/hub"
)

// pullCmd is "omni pull ORG/NAME": download a Qwen3-TTS checkpoint from the
// Hugging Face hub into the shared HF cache.
type pullCmd struct {
	Repo     string `arg:"" help:"Hugging Face model id ORG/NAME[@REVISION], e.g. Qwen/Qwen3-TTS-12Hz-0.6B-CustomVoice."`
	Revision string `help:"Branch, tag or commit to pull (${default}); same as ORG/NAME@REVISION." default:"main"`
	CacheDir string `name:"cache-dir" help:"Hub cache directory (default $HF_HUB_CACHE, else $HF_HOME/hub, else ~/.cache/huggingface/hub)." type:"path"`
	Endpoint string `help:"Hub URL (default $HF_ENDPOINT, else https://huggingface.co)." env:"HF_ENDPOINT"`
	Quiet    bool   `short:"q" help:"No progress output on stderr."`
}

// Run implements "omni pull": progress on stderr, the snapshot directory on
// stdout (so `dir=$(omni pull …)` works). $HF_TOKEN authenticates gated repos.
func (c *pullCmd) Run(g *Globals, ctx context.Context) error {
	spec := c.Repo
	if c.Revision != "main" {
		if strings.Contains(spec, "@") {
			return fmt.Errorf("pull: %s names a revision and --revision %s gives another; use one", spec, c.Revision)
		}
		spec += "@" + c.Revision
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	o := hub.Options{Endpoint: c.Endpoint, CacheDir: c.CacheDir}
	if !c.Quiet {
		o.Progress, o.Terminal = g.Stderr, isTerminal(g.Stderr)
	}
	res, err := hub.Pull(ctx, spec, o)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("pull: interrupted; run omni pull %s again to resume: %w", spec, err)
		}
		return err
	}
	var total, fetched int64
	for _, f := range res.Files {
		total += f.Size
		if f.Downloaded {
			fetched += f.Size
		}
	}
	if !c.Quiet {
		fmt.Fprintf(g.Stderr, "pull %s: %d files, %d bytes (%d downloaded) at commit %s\n", res.Repo, len(res.Files), total, fetched, res.Commit)
	}
	fmt.Fprintln(g.Stdout, res.Dir)
	return nil
}

// isTerminal reports whether w is a character device (a terminal), where
// progress bars redraw one line instead of printing plain lines.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
