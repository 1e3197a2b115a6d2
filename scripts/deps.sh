#!/usr/bin/env bash
# Installs the Debian packages voxform's tests and emulator use: ffmpeg
# (ffprobe validates every audio file; the emulator encodes mp3 and ogg/opus
# with it), mpg123 (the MP3 decoder's reference at 24 kHz), espeak-ng (the
# emulator speaks real text), sox, and postgresql
# (the pg state backend's tests start a server of their own; the package's
# cluster is not used), chromium (the report page's tests drive it
# headless over the DevTools protocol), and GNU time (the benchmark
# harness's tests measure peak RSS with it), and git (provenance's git
# HEAD reader is compared with it; approve asks it for the user). Idempotent.
set -euo pipefail
missing=()
command -v ffprobe >/dev/null 2>&1 || missing+=(ffmpeg)
command -v mpg123 >/dev/null 2>&1 || missing+=(mpg123)
command -v espeak-ng >/dev/null 2>&1 || missing+=(espeak-ng)
command -v sox >/dev/null 2>&1 || missing+=(sox)
ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 || missing+=(postgresql)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
[ -x /usr/bin/time ] || missing+=(time)
command -v xmllint >/dev/null 2>&1 || missing+=(libxml2-utils)
command -v git >/dev/null 2>&1 || missing+=(git)
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
echo "installing ${missing[*]}" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
