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
# The end-to-end suite once more, against the documented service (the
# main pass speaks to the live profile, the default): the tests whose
# requests the profile changes (a test of what is voxform's own, the same
# under either profile, says so with onceAcrossProfiles and runs in the
# main pass only). It runs beside the main pass: it waits on its processes and servers much of its time, which the
# main pass's packages fill. Its output goes to a file printed after the
# main pass's, so that neither is interleaved with the other, and the
# script fails if either pass does.
documented=$(mktemp)
VOXFORM_E2E_PROFILE=documented go test -race -count=1 -timeout 20m "$@" ./e2e >"$documented" 2>&1 &
e2e=$!
trap 'kill "$e2e" 2>/dev/null || true; rm -f "$documented"' EXIT
status=0
go test -race -count=1 -timeout 20m "$@" ./... || status=$?
e2estatus=0
wait "$e2e" || e2estatus=$?
echo "--- the end-to-end suite against the documented service (run beside the above):"
cat "$documented"
if [ "$e2estatus" -ne 0 ]; then
	echo "FAIL: the end-to-end suite against the documented service (exit status $e2estatus)"
fi
if [ "$status" -ne 0 ]; then
	echo "FAIL: the main pass (exit status $status)"
fi
if [ "$status" -ne 0 ] || [ "$e2estatus" -ne 0 ]; then
	exit $((status > e2estatus ? status : e2estatus))
fi
# The tests the race detector makes skip or shrink (pooled buffers it
# drops at random, loudness at every rate, mastering minutes of audio),
# once without it.
go test -count=1 -timeout 10m "$@" -run 'TestLoudnessOfPromptsAllocatesLittle|TestLoudnessEBUTech3341' ./audio/loudness/
go test -count=1 -timeout 10m "$@" ./audio/master/
go test -count=1 -timeout 10m "$@" -run 'TestSynthesizeCopiesThroughAPooledBuffer' ./speechapi/
