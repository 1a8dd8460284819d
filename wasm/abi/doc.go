// Package abi is the contract between omni's WASI guest (package wasm) and
// its wazero host (package host): the import module name, the name and
// signature of every host function, the guest's exports, and the table that
// maps status codes to errors and back. Both sides import it, so a code the
// host returns always means the same error in the guest.
//
// Every host function returns an i32 status (StatusOK or a failure code);
// values a call produces (a new handle, a byte count) are written through a
// guest pointer the call names. Lengths are element counts, never bytes.
//
// abi is portable: it imports only the standard library and builds with
// GOOS=wasip1 GOARCH=wasm.
package abi
