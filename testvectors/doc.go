// Package testvectors is omni's conformance runner: it replays suites of
// recorded cases (the format of docs/TESTVECTORS.md) against the engine and
// reports, per case, pass, fail or skip.
//
// A suite is a directory tree; every *.json file outside model directories
// (a directory holding model.safetensors) is one case. A case names its kind;
// kinds.go maps every kind this build runs to its handler, one file per kind
// (kind_sampler.go, kind_rng.go, kind_stats.go, ...). A case of a kind the
// runner does not know fails, as does one whose engine part is missing
// ("not supported yet: KIND"); neither ever passes silently.
//
// The cases are written by independent reference generators (gen/, Python
// with PyTorch semantics), so a pass means omni computes what the reference
// computes. Committed suites live in suites/ and are replayed by
// "go test ./testvectors/..." and by "omni conformance".
//
// testvectors is portable: it imports only the standard library and omni's
// portable packages (core, predictor, sampler, sched, stats).
package testvectors
