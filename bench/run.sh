#!/bin/sh
# Runs voxform's benchmark harness from the module root: ./bench/run.sh [-quick] [flags]
set -e
cd "$(dirname "$0")/.."
exec go run ./bench "$@"
