#!/usr/bin/env bash
# Builds scripts/protobuf-fixtures (real k8s.io/api objects, encoded by apimachinery's protobuf
# serializer and by encoding/json) into a cache outside the repo, keyed by a hash of its sources.
# The LAST line of stdout is the binary's path. Used to regenerate test/fixtures/protobuf:
#   "$(bash scripts/build-protobuf-fixtures.sh)" -out test/fixtures/protobuf
# and by bench/decode-protobuf.ts for its pages (-pods N).
set -euo pipefail

mod="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/protobuf-fixtures"
log() { echo "build-protobuf-fixtures: $*" >&2; }
command -v go >/dev/null || { log "no 'go' on PATH (needs Go >= 1.26, e.g. /usr/local/go/bin)"; exit 1; }
export GOFLAGS="-mod=readonly -buildvcs=false" CGO_ENABLED=0

hash="$(cd "$mod" && cat go.mod go.sum $(ls ./*.go | sort) | sha256sum | cut -c1-12)"
dir="${KUBELOOP_CACHE:-$HOME/.cache/kubeloop}/protobuf-fixtures/$hash"
bin="$dir/protobuf-fixtures"
mkdir -p "$dir"
if command -v flock >/dev/null; then
  exec 9>"$dir/.lock"
  flock 9
fi
if [ ! -x "$bin" ]; then
  log "building (a minute or two when cold)"
  tmp="$dir/.protobuf-fixtures.tmp.$$"
  trap 'rm -f "$tmp"' EXIT
  (cd "$mod" && go build -trimpath -ldflags="-s -w" -o "$tmp" .)
  mv -f "$tmp" "$bin"
fi
echo "$bin"
