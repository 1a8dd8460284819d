// Package wcache is the file format of omni's prepared-weights cache: one
// file holds the objects a backend prepared from a checkpoint (quantized
// blocks, packed panels, scales, tables, the codec's packed convolutions),
// so a later start maps them instead of preparing them again.
//
// A file is a fixed header, the objects' blobs (each aligned to Align
// bytes), then a JSON manifest. The header carries a magic string, the
// format version, a digest of the key the content depends on (checkpoint
// files, precision, kernel layout), the manifest's place, size and CRC-32C,
// the file size, and its own CRC-32C; the manifest lists every object (a
// kind, named integers and strings, and named typed blobs with their
// offsets, lengths and CRC-32C). Open checks all of them before it returns
// a byte of payload, so a truncated, damaged, foreign or stale file is
// refused with the reason, never used.
//
// The package does not know what the objects are: a prepared type writes
// itself as an Object (PutInt, PutF32, PutBytes…) and reads itself back
// from one (Int, F32, Bytes…), so a new matrix type needs only those two
// functions. Files are written to a temporary name and renamed into place,
// so concurrent writers of one file never leave a torn one.
//
// wcache is portable (it builds for GOOS=wasip1): on Linux Open maps the
// file read-only (the pages are shared by every process that maps it);
// elsewhere it reads the file into aligned memory.
package wcache
