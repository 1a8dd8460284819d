package testvectors

// runStats runs a "stats" case. Placeholder until the stats engine part exists: the
// owner of kind_stats.go replaces it with the real handler.
func runStats(c *Case, env *Env) error { return notSupported(c.Kind) }
