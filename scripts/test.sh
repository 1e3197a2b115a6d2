#!/usr/bin/env bash
# Runs voxform's whole test suite with the race detector, after installing
# the Debian packages the tests need and building the servers they start
# (MinIO). Extra arguments go to 'go test'.
set -euo pipefail
cd "$(dirname "$0")/.."
# MinIO for the remote cache tests, built once into .tools/bin (minutes of
# compiling), builds while the Debian packages download and install: one
# needs the processors, the other mostly the network and the disk, and
# neither needs the other.
./scripts/servers.sh &
servers=$!
trap 'pkill -P "$servers" 2>/dev/null; kill "$servers" 2>/dev/null || true' EXIT
./scripts/deps.sh
wait "$servers"
trap - EXIT
go test -race -count=1 -timeout 20m "$@" ./...
# The end-to-end suite once more, against the documented service (the run
# above speaks to the live profile, the default).
VOXFORM_E2E_PROFILE=documented go test -race -count=1 -timeout 20m "$@" ./e2e
# The tests the race detector makes skip or shrink (pooled buffers it
# drops at random, loudness at every rate, mastering minutes of audio),
# once without it.
go test -count=1 -timeout 10m "$@" -run 'TestLoudnessOfPromptsAllocatesLittle|TestLoudnessEBUTech3341' ./audio/loudness/
go test -count=1 -timeout 10m "$@" ./audio/master/
