package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/omni-tts/omni/host"
)

// cacheCmd manages the prepared-weights cache.
type cacheCmd struct {
	Ls    cacheLsCmd    `cmd:"" help:"List the cache files: size, what each holds, whether this build can use it."`
	Rm    cacheRmCmd    `cmd:"" help:"Remove cache files by name (or --all)."`
	Prune cachePruneCmd `cmd:"" help:"Remove the files this build cannot use (damaged, other layout or build, leftovers of interrupted writes)."`
}

// cacheDirFlag is the prepared-weights cache directory flag.
type cacheDirFlag struct {
	CacheDir string `name:"cache-dir" help:"Prepared-weights cache directory (default: $XDG_CACHE_HOME/omni/weights, ~/.cache/omni/weights)." env:"OMNI_CACHE_DIR" type:"path"`
}

// cacheFlags are the engine commands' cache flags.
type cacheFlags struct {
	cacheDirFlag
	NoCache      bool   `name:"no-cache" help:"Prepare the weights in memory at every start: no cache file is read or written." env:"OMNI_NO_CACHE"`
	WeightMemory string `name:"weight-memory" default:"private" enum:"private,shared" help:"Where mapped cache weights live once loaded: private copies them into this process's memory behind the load (faster reads where the kernel stalls mapped page-cache pages), shared keeps the page cache's, which every process mapping the file shares (${default})." env:"OMNI_WEIGHT_MEMORY"`

	// privateAtLoad is set by benchmarks: the private copy is made before
	// the engine opens, so the timed steps see the steady state.
	privateAtLoad bool
}

// cacheDir returns the cache directory: --cache-dir, $OMNI_CACHE_DIR or
// the user cache directory.
func (c *cacheDirFlag) cacheDir() (string, error) {
	if c.CacheDir != "" {
		return c.CacheDir, nil
	}
	return host.DefaultWeightCacheDir()
}

// weightCache returns the engine's cache settings: off with --no-cache,
// else in cacheDir, logging to stderr.
func (c *cacheFlags) weightCache(g *Globals) host.WeightCache {
	if c.NoCache {
		return host.WeightCache{}
	}
	dir, err := c.cacheDir()
	if err != nil {
		fmt.Fprintf(g.Stderr, "cache: %v; loading in memory\n", err)
		return host.WeightCache{}
	}
	mem := host.PrivateBehind
	switch {
	case c.WeightMemory == "shared":
		mem = host.Shared
	case c.privateAtLoad:
		mem = host.PrivateAtLoad
	}
	return host.WeightCache{Dir: dir, Log: g.Stderr, Memory: mem}
}

// cacheLsCmd lists the cache.
type cacheLsCmd struct {
	cacheDirFlag
	Verify bool `help:"Check every blob's checksum too (reads every byte)."`
}

// Run implements the command.
func (c *cacheLsCmd) Run(g *Globals, ctx context.Context) error {
	dir, err := c.cacheDir()
	if err != nil {
		return err
	}
	ents, err := host.ListWeightCache(dir, c.Verify)
	if err != nil {
		return err
	}
	fmt.Fprintf(g.Stdout, "%s\n", dir)
	tw := tabwriter.NewWriter(g.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "FILE\tSIZE\tCREATED\tVALID\tHOLDS")
	var total int64
	for _, e := range ents {
		v := "yes"
		if !e.Valid {
			v = "no: " + e.Reason
		}
		total += e.Size
		fmt.Fprintf(tw, "%s\t%.1f MB\t%s\t%s\t%s\n", e.Name, float64(e.Size)/1e6, e.Created.Local().Format(time.DateTime), v, e.About)
	}
	tw.Flush()
	fmt.Fprintf(g.Stdout, "%d file(s), %.1f MB\n", len(ents), float64(total)/1e6)
	return nil
}

// cacheRmCmd removes cache files.
type cacheRmCmd struct {
	cacheDirFlag
	All   bool     `help:"Remove every cache file."`
	Files []string `arg:"" optional:"" help:"File names as omni cache ls shows them."`
}

// Run implements the command.
func (c *cacheRmCmd) Run(g *Globals, ctx context.Context) error {
	dir, err := c.cacheDir()
	if err != nil {
		return err
	}
	names := c.Files
	if c.All {
		ents, err := host.ListWeightCache(dir, false)
		if err != nil {
			return err
		}
		for _, e := range ents {
			names = append(names, e.Name)
		}
	} else if len(names) == 0 {
		return fmt.Errorf("omni cache rm: name files (omni cache ls) or give --all")
	}
	return removeCacheFiles(g, dir, names)
}

// removeCacheFiles removes the named files of dir, each reported on stdout.
func removeCacheFiles(g *Globals, dir string, names []string) error {
	for _, n := range names {
		if n != filepath.Base(n) || !strings.Contains(n, ".owc") {
			return fmt.Errorf("omni cache rm: %q is not a cache file name (omni cache ls lists them)", n)
		}
		if err := os.Remove(filepath.Join(dir, n)); err != nil {
			return fmt.Errorf("omni cache rm: %w", err)
		}
		fmt.Fprintf(g.Stdout, "removed %s\n", n)
	}
	return nil
}

// cachePruneCmd removes what this build cannot use.
type cachePruneCmd struct {
	cacheDirFlag
	Verify bool `help:"Check every blob's checksum too, so damaged payloads are pruned as well."`
}

// Run implements the command.
func (c *cachePruneCmd) Run(g *Globals, ctx context.Context) error {
	dir, err := c.cacheDir()
	if err != nil {
		return err
	}
	ents, err := host.ListWeightCache(dir, c.Verify)
	if err != nil {
		return err
	}
	var names []string
	for _, e := range ents {
		// a temporary file younger than an hour may be a write under way
		if !e.Valid && !(strings.Contains(e.Name, ".tmp-") && time.Since(e.Created) < time.Hour) {
			names = append(names, e.Name)
		}
	}
	return removeCacheFiles(g, dir, names)
}
