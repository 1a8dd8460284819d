// Package wasm is the guest side of omni's WASI deployment: the control
// core (core, predictor, sampler, sched, stats) running inside a
// GOOS=wasip1 reactor (the command in ./guest), driven by package host.
//
// Backend implements predictor.Backend with one //go:wasmimport call of
// module "omni" per method, passing handles and guest pointers; the host
// runs the native kernels on views of this module's memory. Replay lets
// the guest build its weight structures from the handles a host-side load
// made, without the weights passing through guest memory. Source gives the
// guest the model's config and reads checkpoint rows through the host.
// Session is the engine the reactor's exports drive, one JSON command
// (abi.Command) at a time; it runs core.Engine with Inline, so it starts no
// goroutine.
//
// wasm is portable: it imports only the standard library and omni's
// portable packages, never simd, host or wazero. Outside wasip1 the host
// functions are stubs returning abi.StatusNotWASI, so the package builds
// (and vets) natively.
package wasm
