#!/usr/bin/env bash
# Builds a real kube-apiserver, kube-controller-manager, kube-scheduler and etcd
# from Go modules (no registry ships usable binaries), plus hollow-kubelet (our own
# main in scripts/controlplane/kubelet: a real kubelet over a fake, scriptable
# container runtime), into a cache outside the repo:
#   ${KUBELOOP_CACHE:-$HOME/.cache/kubeloop}/controlplane/<k8s>-<etcd>/bin/
# Versions come from scripts/controlplane/go.mod (the single place to bump).
# Re-runs are near-instant: if all five binaries exist and answer --version, skip;
# otherwise only the missing ones are built.
# Progress goes to stderr; the LAST line of stdout is the bin dir.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mod="$here/controlplane"

log() { echo "build-controlplane: $*" >&2; }
fail() { log "FAILED step: $*"; exit 1; }

command -v go >/dev/null || fail "find go: no 'go' on PATH (needs Go >= 1.26, e.g. /usr/local/go/bin)"

# readonly: build exactly what the committed go.mod/go.sum say, never edit them.
# buildvcs=false: no git stamping (and no failure in a repo without commits).
# CGO off: static binaries, no C toolchain needed (upstream builds them this way too).
export GOFLAGS="-mod=readonly -buildvcs=false" CGO_ENABLED=0

# `go list -m` reads the pinned versions from go.mod (offline once the module cache is warm).
versions="$(cd "$mod" && go list -m -f '{{.Version}}' k8s.io/kubernetes go.etcd.io/etcd/server/v3 2>&1)" ||
  fail "read versions: go list -m in $mod said: $versions"
k8s_version="$(sed -n 1p <<<"$versions")"
etcd_version="$(sed -n 2p <<<"$versions")"
bin="${KUBELOOP_CACHE:-$HOME/.cache/kubeloop}/controlplane/${k8s_version}-${etcd_version}/bin"
mkdir -p "$bin"

# Test files run in parallel processes may all call this on a cold cache: let one build.
if command -v flock >/dev/null; then
  exec 9>"$bin/.lock"
  flock 9
fi

# cached NAME: the binary exists and answers --version.
cached() { "$bin/$1" --version >/dev/null 2>&1; }
binaries=(etcd kube-apiserver kube-controller-manager kube-scheduler hollow-kubelet)
missing=()
for name in "${binaries[@]}"; do cached "$name" || missing+=("$name"); done
if [ ${#missing[@]} -eq 0 ]; then
  log "cached: $("$bin/kube-apiserver" --version) / etcd $etcd_version (+ controller-manager, scheduler, hollow-kubelet)"
  echo "$bin"
  exit 0
fi

# Without these -X flags the apiserver reports gitVersion "v0.0.0-master+$Format:%H$"
# on /version and --version (same variables Kubernetes' hack/lib/version.sh sets).
minor="${k8s_version#v1.}"; minor="${minor%%.*}"
vpkg=k8s.io/component-base/version
ldflags="-s -w -X $vpkg.gitVersion=$k8s_version -X $vpkg.gitMajor=1 -X $vpkg.gitMinor=$minor"
ldflags+=" -X $vpkg.gitTreeState=clean -X $vpkg.buildDate=1970-01-01T00:00:00Z"
cpkg=k8s.io/client-go/pkg/version # client-go's copy (User-Agent etc.)
ldflags+=" -X $cpkg.gitVersion=$k8s_version -X $cpkg.gitMajor=1 -X $cpkg.gitMinor=$minor -X $cpkg.gitTreeState=clean"

# build NAME PKG: go build to a temp name in the bin dir, then rename (atomic on
# one filesystem), so a killed build never leaves a half-written binary behind.
errlog="$(mktemp)"
trap 'rm -f "$errlog" "$bin"/.*.tmp.$$' EXIT
build() {
  local name="$1" pkg="$2" tmp start
  tmp="$bin/.$name.tmp.$$"
  start=$SECONDS
  log "building $name ($pkg) ..."
  if ! (cd "$mod" && go build -trimpath -ldflags="$ldflags" -o "$tmp" "$pkg") 2>"$errlog"; then
    log "go build output:"
    cat "$errlog" >&2
    fail "go build $name ($pkg) in $mod (see go's error above)"
  fi
  if ! "$tmp" --version >/dev/null 2>&1; then
    fail "$name built but '$name --version' did not run"
  fi
  mv -f "$tmp" "$bin/$name"
  log "built $name in $((SECONDS - start))s ($(du -h "$bin/$name" | cut -f1))"
}

log "not cached in $bin: building ${missing[*]} (cold: ~600 MB of Go modules, 7-15 min on 2 cores for all of them; hollow-kubelet alone ~1 min on a warm cache)"
for name in "${missing[@]}"; do
  case "$name" in
    etcd) build etcd ./etcd ;;
    hollow-kubelet) build hollow-kubelet ./kubelet ;;
    *) build "$name" "k8s.io/kubernetes/cmd/$name" ;;
  esac
done

log "$("$bin/kube-apiserver" --version); $("$bin/etcd" --version | head -1)"
echo "$bin"
