// Command bench measures the targets of SPEC section 11 on the machine it
// runs on and prints a table of figure vs target, also written as markdown
// to bench/out/results.md (not committed):
//
//	go run ./bench           # full sizes: under ten minutes on 2 cores
//	go run ./bench -quick    # reduced sizes: a couple of minutes
//	go run ./bench -only P3,P5
//	go run ./bench -quick -only cache
//
// It builds the voxform binary once and runs it as a separate process in
// projects it generates in a temporary directory (a 10,000-row CSV
// for_each, one hour-long synthesis per transport, 1,000 recordings),
// against an emulator it serves in its own process on a loopback port
// (VOXFORM_BASE_URL, VOXFORM_API_KEY). The emulator uses its synthetic
// waveform, never espeak-ng, so that its own speed does not dominate. Wall
// time, CPU time and peak RSS are those of the voxform process alone
// (getrusage of the child); API calls come from GET /_emulator/stats.
//
// The output cache's targets (C1 to C3: a plan whose every resource the
// remote holds, a pull of every output into a fresh clone, the lookup
// overhead of a plan with nothing to restore) run against a MinIO server
// it starts on a loopback port (internal/miniotest: $VOXFORM_MINIO,
// .tools/bin/minio from ./scripts/servers.sh, or minio on PATH; without
// one that step fails). The remote is named in the manifest's cache block,
// the credentials are the AWS variables, and it is filled by a real apply
// with the cache on. Every other measurement runs with VOXFORM_CACHE=off.
//
// The batch step (B1 to B6, -only batch10k) applies one batch
// transcription of 10,000 two-second recordings at -parallelism 16 with
// VOXFORM_POLL=documented, so that voxform polls the emulator at the
// documented intervals, as it would the service: each round of jobs waits
// 30 s, some minutes in all. The jobs, the jobs in flight at once and the
// status requests of each, with the shortest time between two of one job,
// come from the emulator's stats.
//
// The lean step (L1 to L6, -only lean) is issue 26's: 100,000 raw 8 kHz
// syntheses of one for_each applied from nothing at parallelism 16, then
// planned at once (the plan a CI job runs right after an apply) and again,
// and listed with `voxform state list`. The terraform step (T1 and T2,
// -only terraform) applies 1,000 such syntheses and, in turn, 1,000
// terraform_data resources with the terraform on PATH (1.4 or later: no
// provider to download, so init works offline; local backend,
// -parallelism 16), and compares voxform's CPU per synthesis and the two
// wall times; without Terraform the ratio has no verdict and says why.
//
// The spantime step (SP1 to SP4, -only spantime) measures where
// transcript.SpanTimes places a number in its segment against espeak-ng:
// each utterance of a generated corpus (English and Hindi; mobile,
// Aadhaar and card numbers written as digits and said one digit at a
// time, or said and written as number words) is synthesized whole, up to
// the number and through it, at two speaking rates; where the last two
// stop speaking is where the number truly starts and ends. It reports the
// estimate's error and whether the pad covers every span.
//
// The mastering step (M1, M2, -only master) masters a 119-minute chapter
// of speech-like audio to broadcast and acx in its own process (ffmpeg
// encodes the MP3), with the wall and CPU time and the most heap in use
// of each: audio/master's long case, too slow for its tests.
//
// It then runs the Go micro-benchmarks of the hot paths (planning,
// fingerprints, manifest loading, the state journal, SSE parsing) with
// `go test -run '^$' -bench`; those of other packages stay in their
// packages. The tests of this package are quick checks of the generators,
// so `go test ./...` stays fast.
package main
