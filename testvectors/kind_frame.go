package testvectors

// runFrame runs a "frame" case. Placeholder until the frame engine part exists: the
// owner of kind_frame.go replaces it with the real handler.
func runFrame(c *Case, env *Env) error { return notSupported(c.Kind) }
