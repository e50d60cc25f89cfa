#!/usr/bin/env bash
# Builds the client-go check program (scripts/clientgo: a real, current client-go pinned in its
# go.mod, run by the integration and apiserver tiers against the demo and a real kube-apiserver)
# into a cache outside the repo:
#   ${KUBELOOP_CACHE:-$HOME/.cache/kubeloop}/clientgo/<client-go version>-<source hash>/kubeloop-clientgo-checks
# The source hash covers go.mod, go.sum and every .go file, so an edited check is rebuilt and an
# unchanged one is not. Progress goes to stderr; the LAST line of stdout is the binary's path.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mod="$here/clientgo"

log() { echo "build-clientgo: $*" >&2; }
fail() { log "FAILED step: $*"; exit 1; }

command -v go >/dev/null || fail "find go: no 'go' on PATH (needs Go >= 1.26, e.g. /usr/local/go/bin)"

# readonly: build exactly what the committed go.mod/go.sum say, never edit them.
export GOFLAGS="-mod=readonly -buildvcs=false" CGO_ENABLED=0

version="$(cd "$mod" && go list -m -f '{{.Version}}' k8s.io/client-go 2>&1)" ||
  fail "read version: go list -m in $mod said: $version"
hash="$(cd "$mod" && cat go.mod go.sum $(ls ./*.go | sort) | sha256sum | cut -c1-12)"
dir="${KUBELOOP_CACHE:-$HOME/.cache/kubeloop}/clientgo/${version}-${hash}"
bin="$dir/kubeloop-clientgo-checks"
mkdir -p "$dir"

# Test files run in parallel processes may all call this on a cold cache: let one build.
if command -v flock >/dev/null; then
  exec 9>"$dir/.lock"
  flock 9
fi

if [ -x "$bin" ] && "$bin" -version >/dev/null 2>&1; then
  log "cached: $bin (client-go $version)"
  echo "$bin"
  exit 0
fi

# Build to a temp name, then rename (atomic on one filesystem): a killed build leaves no half binary.
tmp="$dir/.kubeloop-clientgo-checks.tmp.$$"
errlog="$(mktemp)"
trap 'rm -f "$errlog" "$tmp"' EXIT
start=$SECONDS
log "building client-go $version checks (cold: downloads client-go's modules, ~1-3 min)"
if ! (cd "$mod" && go build -trimpath -ldflags="-s -w" -o "$tmp" .) 2>"$errlog"; then
  log "go build output:"
  cat "$errlog" >&2
  fail "go build in $mod (see go's error above)"
fi
"$tmp" -version >/dev/null 2>&1 || fail "built, but '$tmp -version' did not run"
mv -f "$tmp" "$bin"
log "built in $((SECONDS - start))s ($(du -h "$bin" | cut -f1))"
echo "$bin"
