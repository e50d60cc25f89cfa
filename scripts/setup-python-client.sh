#!/usr/bin/env bash
# Makes a Python virtual environment with the official Kubernetes client (the version pinned in
# scripts/python-client/requirements.txt) in a cache outside the repo:
#   ${KUBELOOP_CACHE:-$HOME/.cache/kubeloop}/python-<version>/
# Re-runs are near-instant: if the venv's python imports that version, skip. The venv is built in
# a temporary folder and renamed into place, so a killed install never leaves half a venv behind.
# Progress goes to stderr; the LAST line of stdout is the venv's python.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
req="$here/python-client/requirements.txt"

log() { echo "setup-python-client: $*" >&2; }
fail() { log "FAILED step: $*"; exit 1; }

py="${KUBELOOP_PYTHON:-python3}"
command -v "$py" >/dev/null || fail "find python: no '$py' on PATH (needs Python >= 3.9)"
"$py" -c 'import venv, ensurepip' 2>/dev/null || fail "python venv: '$py -m venv' needs ensurepip (Debian: apt-get install python3-venv; scripts/setup.sh does it)"

version="$(sed -n 's/^kubernetes==\([^ ]*\).*/\1/p' "$req")"
[ -n "$version" ] || fail "read version: no 'kubernetes==X' line in $req"
cache="${KUBELOOP_CACHE:-$HOME/.cache/kubeloop}"
venv="$cache/python-$version"
mkdir -p "$cache"

# Test files run in parallel processes may all call this on a cold cache: let one install.
if command -v flock >/dev/null; then
  exec 9>"$cache/.python-$version.lock"
  flock 9
fi

check='import sys, kubernetes; sys.exit(kubernetes.__version__ != sys.argv[1])'
if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "$check" "$version" 2>/dev/null; then
  log "cached: $venv (kubernetes $version)"
  echo "$venv/bin/python"
  exit 0
fi

tmp="$cache/.python-$version.tmp.$$"
trap 'rm -rf "$tmp"' EXIT
start=$SECONDS
log "creating $venv: pip install kubernetes==$version (cold: ~20 packages from PyPI)"
"$py" -m venv "$tmp" || fail "$py -m venv $tmp"
"$tmp/bin/python" -m pip install --quiet --disable-pip-version-check --no-input -r "$req" >&2 || fail "pip install -r $req"
# The venv's python finds its packages relative to itself, so the renamed venv works (only the
# shebangs of its console scripts, pip's, keep the temporary path; nothing here runs them).
"$tmp/bin/python" -c "$check" "$version" || fail "kubernetes $version installed, but the venv's python does not import it"
rm -rf "$venv"
mv "$tmp" "$venv"
log "made in $((SECONDS - start))s"
echo "$venv/bin/python"
