#!/usr/bin/env bash
# Builds the servers that voxform's tests run for real into .tools/bin:
# MinIO, the S3 server the remote cache tests talk to, at a pinned version
# from the Go module proxy (about 4 minutes on 2 cores). Idempotent: a
# binary already there that runs is kept.
set -euo pipefail
cd "$(dirname "$0")/.."
minio_version=v0.0.0-20260212201848-7aac2a2c5b7c
bin="$PWD/.tools/bin"
if [ -x "$bin/minio" ] && "$bin/minio" --version >/dev/null 2>&1; then
	exit 0
fi
mkdir -p "$bin"
echo "building minio@$minio_version into $bin (a few minutes)" >&2
GOBIN="$bin" go install "github.com/minio/minio@$minio_version"
"$bin/minio" --version >/dev/null
