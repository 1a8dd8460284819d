package main

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/omni-tts/omni/host"
	"github.com/omni-tts/omni/voice"
)

// voiceCmd groups the voice-library subcommands.
type voiceCmd struct {
	Add voiceAddCmd `cmd:"" help:"Prepare a voice from a reference clip (WAV, FLAC, MP3) once and store it in the library."`
	Ls  voiceLsCmd  `cmd:"" help:"List the library's voices."`
	Rm  voiceRmCmd  `cmd:"" help:"Remove a voice from the library."`
}

// voiceDirFlag is the library directory flag every voice command shares.
type voiceDirFlag struct {
	VoiceDir string `name:"voice-dir" env:"OMNI_VOICE_DIR" help:"The voice library directory (default: $XDG_DATA_HOME/omni/voices, else ~/.local/share/omni/voices)." type:"path"`
}

// library opens the library the flag names.
func (f *voiceDirFlag) library() (*voice.Library, error) { return voice.NewLibrary(f.VoiceDir) }

// voiceAddCmd is "omni voice add".
type voiceAddCmd struct {
	voiceDirFlag
	Name        string  `arg:"" help:"The voice's name: 1 to 64 of A-Z a-z 0-9 _ . - (not starting with '.')."`
	Clip        string  `arg:"" help:"The reference clip: WAV (PCM or float), FLAC or MP3, any rate, channels averaged."`
	Model       string  `default:"synth:0.6b-base" help:"The Base model the voice is for: a checkpoint directory, ORG/NAME or synth:SIZE-base (${default})."`
	RefText     string  `name:"ref-text" help:"The clip's transcript: in-context cloning (the default mode, the closest voice), which needs it."`
	XVectorOnly bool    `name:"x-vector-only" help:"Keep the speaker embedding only (no transcript needed; a looser likeness)."`
	Consent     string  `help:"A consent statement to keep with the voice (e.g. who agreed to it being cloned)."`
	MaxSeconds  float64 `name:"max-seconds" default:"30" help:"Refuse a clip longer than this many seconds (${default})."`
	Force       bool    `help:"Replace a voice of the same name."`
}

// Run implements "omni voice add".
func (c *voiceAddCmd) Run(g *Globals, _ context.Context) error {
	if err := voice.ValidName(c.Name); err != nil {
		return usageErrorf("voice add: %v", err)
	}
	if !c.XVectorOnly && strings.TrimSpace(c.RefText) == "" {
		return usageErrorf("voice add: in-context cloning (the default) needs the clip's transcript: give --ref-text \"…\", or --x-vector-only for the speaker embedding alone")
	}
	if !(c.MaxSeconds > 0 && c.MaxSeconds <= voice.MaxSeconds) {
		return usageErrorf("voice add: --max-seconds %v outside (0, %d]", c.MaxSeconds, voice.MaxSeconds)
	}
	lib, err := c.library()
	if err != nil {
		return err
	}
	if !c.Force {
		if _, err := lib.Get(c.Name); err == nil {
			return fmt.Errorf("voice add: %q is already in %s (omni voice rm %s, or --force)", c.Name, lib.Dir(), c.Name)
		}
	}
	t0 := time.Now()
	enc, err := host.OpenVoiceEncoder(c.Model, host.VoiceOptions{Threads: g.kernelThreads(), MaxSeconds: c.MaxSeconds})
	if err != nil {
		return fmt.Errorf("voice add: %w", err)
	}
	defer enc.Close()
	t1 := time.Now()
	v, err := enc.PrepareFile(c.Name, c.Clip, c.RefText, c.XVectorOnly)
	if err != nil {
		return fmt.Errorf("voice add: %w", err)
	}
	prep := time.Since(t1)
	v.Consent = c.Consent
	if err := lib.Add(v, c.Force); err != nil {
		return fmt.Errorf("voice add: %w", err)
	}
	fmt.Fprintf(g.Stderr, "voice add: encoders of %s opened in %.1f s; %.2f s of reference prepared in %.0f ms\n",
		c.Model, t1.Sub(t0).Seconds(), v.RefSeconds, float64(prep.Microseconds())/1e3)
	fmt.Fprintf(g.Stdout, "%s: %s, %.2f s reference, for %s (in %s)\n", v.Name, voiceMode(v), v.RefSeconds, c.Model, lib.Dir())
	return nil
}

// voiceMode describes a voice's mode in words.
func voiceMode(v *voice.Voice) string {
	if v.InContext() {
		return fmt.Sprintf("in-context (%d frames, transcript %q)", v.Frames(), clip(v.RefText, 40))
	}
	return "x-vector only"
}

// clip shortens s to n runes with an ellipsis.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// voiceLsCmd is "omni voice ls".
type voiceLsCmd struct {
	voiceDirFlag
}

// Run implements "omni voice ls": one line per voice; a damaged file is
// listed with its error.
func (c *voiceLsCmd) Run(g *Globals, _ context.Context) error {
	lib, err := c.library()
	if err != nil {
		return err
	}
	names, err := lib.List()
	if err != nil {
		return err
	}
	if len(names) == 0 {
		fmt.Fprintf(g.Stderr, "voice ls: no voices in %s (omni voice add NAME clip.wav --ref-text \"…\")\n", lib.Dir())
		return nil
	}
	tw := tabwriter.NewWriter(g.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tMODE\tREFERENCE\tMODEL\tCREATED")
	for _, n := range names {
		v, err := lib.Get(n)
		if err != nil {
			fmt.Fprintf(tw, "%s\tunreadable\t\t%v\t\n", n, err)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%.2f s\t%s\t%s\n", n, voiceMode(v), v.RefSeconds, v.Model.Spec, v.Created.Local().Format(time.DateTime))
	}
	return tw.Flush()
}

// voiceRmCmd is "omni voice rm".
type voiceRmCmd struct {
	voiceDirFlag
	Names []string `arg:"" help:"The voices to remove."`
}

// Run implements "omni voice rm".
func (c *voiceRmCmd) Run(g *Globals, _ context.Context) error {
	lib, err := c.library()
	if err != nil {
		return err
	}
	for _, n := range c.Names {
		if err := lib.Remove(n); err != nil {
			return fmt.Errorf("voice rm: %w", err)
		}
		fmt.Fprintf(g.Stdout, "removed %s\n", n)
	}
	return nil
}
