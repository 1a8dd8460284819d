package testvectors

// runSched runs a "sched" case. Placeholder until the sched engine part exists: the
// owner of kind_sched.go replaces it with the real handler.
func runSched(c *Case, env *Env) error { return notSupported(c.Kind) }
