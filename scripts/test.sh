#!/usr/bin/env bash
# Runs voxform's whole test suite with the race detector, after installing
# the Debian packages the tests need. Extra arguments go to 'go test'.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/deps.sh
go test -race -count=1 -timeout 20m "$@" ./...
