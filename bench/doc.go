// Package bench holds omni's measurements and the arithmetic behind every
// figure they report: the streaming-read floor measured beside each
// benchmark (FloorMeter), the floor and efficiency formulas, the one
// median and quantile, the report types printed as JSON, the end-to-end
// engine benchmark in either mode, and the sweep's summary and chart. The
// omni command is wiring: flags in, a report out.
//
// One definition of ms_per_frame serves every mode: the wall time of the
// decode steps of RunE2E's workload (each step makes one frame of
// every stream) divided by the frames each stream made; prefill, the first
// step, is reported apart.
//
// bench is a host-side package: it imports simd, host and cpuid, and is
// never linked into the WASI guest.
package bench
