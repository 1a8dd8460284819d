package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/omni-tts/omni/stats"
)

// statsMergeCmd is "omni stats merge DIR".
type statsMergeCmd struct {
	Dir    string  `arg:"" help:"Directory of <role>_<pid>.json dumps (omni's or the original system's)." type:"existingdir"`
	JSON   bool    `help:"Print {roles, attribution} as JSON instead of the markdown table."`
	Budget float64 `help:"Frame budget in ms the shares are taken of." default:"80"`
}

// Run implements "omni stats merge".
func (c *statsMergeCmd) Run(g *Globals, _ context.Context) error {
	m, err := stats.Merge(c.Dir)
	if err != nil {
		return err
	}
	for _, s := range m.Skipped {
		fmt.Fprintf(g.Stderr, "omni: stats merge: skipped %s\n", s)
	}
	if len(m.Files) == 0 {
		return fmt.Errorf("stats merge: no dumps (*.json) in %s", c.Dir)
	}
	rows := stats.Attribution(m.Roles, c.Budget)
	if c.JSON {
		out := struct {
			Roles       stats.Roles `json:"roles"`
			Attribution []stats.Row `json:"attribution"`
			Files       []string    `json:"files"`
			Skipped     []string    `json:"skipped,omitempty"`
		}{m.Roles, rows, m.Files, m.Skipped}
		if out.Attribution == nil {
			out.Attribution = []stats.Row{}
		}
		enc := json.NewEncoder(g.Stdout)
		enc.SetIndent("", " ")
		return enc.Encode(out)
	}
	fmt.Fprint(g.Stdout, stats.FormatTable(rows, c.Budget))
	return nil
}
