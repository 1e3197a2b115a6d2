#!/usr/bin/env bash
# Runs voxform's whole test suite with the race detector, after installing
# the Debian packages the tests need and building the servers they start
# (MinIO). Extra arguments go to 'go test'.
#
# The end-to-end suite runs twice: against the live profile (in the main
# pass, the default) and against the documented one. The documented pass
# runs beside the main pass rather than after it: the end-to-end tests
# wait on processes, the emulator's clock and the disk more than they
# compute (one pass keeps about one core busy), and the main pass leaves
# a core idle while its longest package runs alone. Its output is printed
# after the main pass's; the script fails if either fails.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/deps.sh
./scripts/servers.sh   # MinIO for the remote cache tests, built once into .tools/bin
documented=$(mktemp "${TMPDIR:-/tmp}/voxform-test-documented-XXXXXX")
VOXFORM_E2E_PROFILE=documented go test -race -count=1 -timeout 20m "$@" ./e2e >"$documented" 2>&1 &
documented_pid=$!
trap '[ -n "$documented_pid" ] && kill "$documented_pid" 2>/dev/null; rm -f "$documented"' EXIT
status=0
go test -race -count=1 -timeout 20m "$@" ./... || status=$?
# The tests the race detector makes skip or shrink (pooled buffers it
# drops at random, loudness at every rate, mastering minutes of audio),
# once without it.
go test -count=1 -timeout 10m "$@" -run 'TestLoudnessOfPromptsAllocatesLittle|TestLoudnessEBUTech3341' ./audio/loudness/ || status=$?
go test -count=1 -timeout 10m "$@" ./audio/master/ || status=$?
documented_status=0
wait "$documented_pid" || documented_status=$?
documented_pid=""
echo "--- the end-to-end suite against the documented profile (VOXFORM_E2E_PROFILE=documented):"
cat "$documented"
if [ "$documented_status" -ne 0 ]; then
  status=$documented_status
fi
exit "$status"
