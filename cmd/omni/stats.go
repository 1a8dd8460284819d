package main

// statsCmd groups the step-statistics commands.
type statsCmd struct {
	Merge statsMergeCmd `cmd:"" help:"Merge the per-process dumps in DIR (OMNI_STEP_STATS_DIR) into one attribution table against the 80 ms frame."`
}
