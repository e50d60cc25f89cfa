#!/usr/bin/env bash
# Builds a real kube-apiserver and etcd from Go modules (no registry ships a
# usable kube-apiserver binary) into a cache outside the repo:
#   ${KUBELOOP_CACHE:-$HOME/.cache/kubeloop}/controlplane/<k8s>-<etcd>/bin/
# Versions come from scripts/controlplane/go.mod (the single place to bump).
# Re-runs are near-instant: if both binaries exist and answer --version, skip.
# Progress goes to stderr; the LAST line of stdout is the bin dir.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mod="$here/controlplane"

# `go list -m` reads the pinned versions from go.mod (works offline once cached).
k8s_version="$(cd "$mod" && go list -m -f '{{.Version}}' k8s.io/kubernetes)"
etcd_version="$(cd "$mod" && go list -m -f '{{.Version}}' go.etcd.io/etcd/server/v3)"
bin="${KUBELOOP_CACHE:-$HOME/.cache/kubeloop}/controlplane/${k8s_version}-${etcd_version}/bin"
mkdir -p "$bin"

log() { echo "build-controlplane: $*" >&2; }

if "$bin/kube-apiserver" --version >/dev/null 2>&1 && "$bin/etcd" --version >/dev/null 2>&1; then
  log "cached: $("$bin/kube-apiserver" --version) / etcd $etcd_version"
  echo "$bin"
  exit 0
fi

# Static, reproducible, small binaries (upstream also builds with CGO off).
export CGO_ENABLED=0 GOFLAGS=-mod=mod
# A go1.27+ toolchain would be fetched from the module proxy only if go.mod asked for it.
export GOTOOLCHAIN="${GOTOOLCHAIN:-auto}"

# Without these -X flags the apiserver reports gitVersion "v0.0.0-master+$Format:%H$"
# on /version and --version (same variables Kubernetes' hack/lib/version.sh sets).
minor="${k8s_version#v1.}"; minor="${minor%%.*}"
vpkg=k8s.io/component-base/version
ldflags="-s -w -X $vpkg.gitVersion=$k8s_version -X $vpkg.gitMajor=1 -X $vpkg.gitMinor=$minor"
ldflags+=" -X $vpkg.gitTreeState=clean -X $vpkg.buildDate=1970-01-01T00:00:00Z"
for p in k8s.io/client-go/pkg/version; do
  ldflags+=" -X $p.gitVersion=$k8s_version -X $p.gitMajor=1 -X $p.gitMinor=$minor -X $p.gitTreeState=clean"
done

# build NAME PKG: go build to a temp name in the bin dir, then rename (atomic on
# one filesystem), so a killed build never leaves a half-written binary behind.
build() {
  local name="$1" pkg="$2" tmp errlog start
  tmp="$bin/.$name.tmp.$$"
  errlog="$(mktemp)"
  start=$SECONDS
  log "building $name ($pkg) ..."
  if ! (cd "$mod" && go build -trimpath -ldflags="$ldflags" -o "$tmp" "$pkg") 2>"$errlog"; then
    log "FAILED step: go build $name ($pkg) in $mod; go said:"
    cat "$errlog" >&2
    rm -f "$tmp" "$errlog"
    exit 1
  fi
  rm -f "$errlog"
  if ! "$tmp" --version >/dev/null 2>&1; then
    log "FAILED step: $name built but '$name --version' did not run"
    rm -f "$tmp"
    exit 1
  fi
  mv -f "$tmp" "$bin/$name"
  log "built $name in $((SECONDS - start))s ($(du -h "$bin/$name" | cut -f1))"
}

build etcd ./etcd
build kube-apiserver k8s.io/kubernetes/cmd/kube-apiserver

log "$("$bin/kube-apiserver" --version); $("$bin/etcd" --version | head -1)"
echo "$bin"
