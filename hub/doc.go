// Package hub fetches Qwen3-TTS checkpoints from the Hugging Face hub into
// the standard Hugging Face cache and resolves ORG/NAME model specs from it.
//
// The cache layout is the one huggingface_hub, hf-hub (Rust) and llama.cpp
// share, so a checkpoint pulled by omni is found by the Python stack and the
// other way round:
//
//	$HF_HUB_CACHE (default $HF_HOME/hub, default ~/.cache/huggingface/hub)
//	└── models--ORG--NAME/
//	    ├── blobs/<etag>                  file contents, named by the hub's etag
//	    │                                 (git sha1, or the LFS sha256)
//	    ├── blobs/<etag>.incomplete       a partial download, resumed with Range
//	    ├── refs/<revision>               the commit a branch or tag pointed at
//	    └── snapshots/<commit>/<path>     relative symlinks to ../../blobs/<etag>
//	.locks/models--ORG--NAME/<etag>.lock  flock(2) held while a blob is written
//
// Pull talks to the hub API: GET /api/models/{repo}/revision/{rev}?blobs=true
// for the commit and the file list (with each LFS file's sha256 and size),
// HEAD /{repo}/resolve/{commit}/{path} for a file's etag and size
// (X-Linked-Etag and X-Linked-Size for LFS files, whose GET answers with a
// 302 to the LFS CDN), and GET with Range to resume. Every LFS file is
// checked against the sha256 the hub publishes and every small file against
// its git blob sha1; a mismatch discards the download.
//
// hub is host-side: it uses the network and the file system, and the
// portable packages (predictor and the rest) must not import it. Commands
// call Resolve on a model spec before they open it.
package hub
