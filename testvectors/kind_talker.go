package testvectors

// runTalker runs a "talker" case. Placeholder until the talker engine part exists: the
// owner of kind_talker.go replaces it with the real handler.
func runTalker(c *Case, env *Env) error { return notSupported(c.Kind) }
