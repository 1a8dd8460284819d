// Package host runs omni's control core as a WASI module inside any Go
// program, with wazero, and offers one embedding API for both deployments.
//
// Open is the one way a program builds an engine (core.NewEngine inside):
// it returns an Engine over a checkpoint or a synthetic model in either
// mode, and its streams are *core.Stream in both. Native links the control
// core (package core) into the program;
// WASI runs the embedded guest module (built from ../wasm/guest by
// `go generate ./host/...`, reproducibly, and checked by a test) and
// serves the backend ops it imports (module "omni", see package wasm/abi)
// as host functions that call the same simd kernels on views of guest
// memory, so both modes produce the same codes and logits bit for bit.
//
// The weights are always loaded natively, once, through a recorder that
// files every object in a handle table as host-owned; the guest replays the
// same loading code against the recorded handles, so no weight crosses
// into its 32-bit memory.
//
// Every host function validates before it touches anything: handles
// (table tag, generation, owner, kind), element counts against the shapes
// the handles imply, and every (offset, length) against guest memory and
// alignment. A bad call returns a status code the guest maps to an error
// (failing that request); the host never panics and never reaches outside
// guest memory. The guest's memory cap is reserved up front
// (WithMemoryLimitPages + WithMemoryCapacityFromMax), so views never go
// stale. A trap, a timeout or a runtime error from a guest call discards
// that instance with every object it made; its streams end with an error
// wrapping ErrTrapped and the next call starts a fresh instance. An
// instance may hold what its engine built plus the engine's KV budget
// (Options.Engine.KVBudgetBytes): the one budget the engine admits
// against, enforced again on this side because the guest is not trusted.
//
// host may import wazero, simd, core, predictor, sampler, sched and stats
// (and the shared wasm/abi); nothing portable imports host.
package host
