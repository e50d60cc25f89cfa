#!/usr/bin/env bash
# Installs code-server (a full VS Code server build with a real Node extension host) for the e2e tier,
# into a cache outside the repo:
#   ${KUBELOOP_CACHE:-$HOME/.cache/kubeloop}/code-server-4.100.3/
# 4.100.3 (VS Code 1.100.3) is the newest release whose engines field accepts Node 20.
# Its normal install fails on these machines (postinstall refuses root, kerberos needs libkrb5-dev,
# @vscode/ripgrep downloads from GitHub), so this follows the steps verified by hand instead.
#
# Idempotent: skips everything when the cached code-server answers `--version` with 4.100.3.
# An install is built in a temp folder and renamed into place only at the end, so an interrupted
# install is never mistaken for a good one.
# Progress goes to stderr; the LAST line of stdout is the path of the code-server executable.
set -euo pipefail

version=4.100.3
cache="${KUBELOOP_CACHE:-$HOME/.cache/kubeloop}"
dest="$cache/code-server-$version"
exe_rel=node_modules/.bin/code-server

log() { echo "install-code-server: $*" >&2; }

# step NAME CMD...: runs CMD with its output in a log file; on failure names the step and shows the log tail.
step() {
  local name="$1" steplog start
  shift
  steplog="$(mktemp)"
  start=$SECONDS
  log "$name ..."
  if ! "$@" >"$steplog" 2>&1; then
    log "FAILED step: $name"
    log "command: $*"
    tail -n 40 "$steplog" >&2
    rm -f "$steplog"
    exit 1
  fi
  rm -f "$steplog"
  log "$name done ($((SECONDS - start))s)"
}

is_good() { # is_good DIR: the install in DIR runs and reports our version
  local out
  # Not just the first line: a first run may log "Wrote default config file" before the version.
  out="$("$1/$exe_rel" --version 2>/dev/null)" || return 1
  grep -q "^${version//./\\.} " <<<"$out"
}
version_line() { "$1/$exe_rel" --version 2>/dev/null | grep "^${version//./\\.} " || true; }

if [ -x "$dest/$exe_rel" ] && is_good "$dest"; then
  log "cached: $(version_line "$dest")"
  echo "$dest/$exe_rel"
  exit 0
fi

total_start=$SECONDS

# 1. Debian packages: libkrb5-dev (kerberos addon), ripgrep (instead of @vscode/ripgrep's download),
#    chromium (the browser the e2e tests drive). apt-get update only when something is missing.
need_apt=()
dpkg -s libkrb5-dev >/dev/null 2>&1 || need_apt+=(libkrb5-dev)
command -v rg >/dev/null 2>&1 || need_apt+=(ripgrep)
[ -x /usr/bin/chromium ] || need_apt+=(chromium)
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    log "FAILED step: Debian packages ${need_apt[*]} are missing and installing them needs root"
    exit 1
  fi
  step "apt-get update" apt-get update -qq
  step "apt-get install ${need_apt[*]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}"
fi
for tool in g++ make python3; do
  command -v "$tool" >/dev/null 2>&1 || { log "FAILED step: native rebuilds need '$tool' on PATH"; exit 1; }
done
rg_bin="$(command -v rg)"

# 2. code-server itself, in a fresh temp folder next to the destination (same filesystem: rename is atomic).
mkdir -p "$cache"
tmp="$cache/.code-server-$version.tmp.$$"
trap 'rm -rf "$tmp"' EXIT
rm -rf "$cache"/.code-server-"$version".tmp.*   # leftovers of interrupted runs
mkdir -p "$tmp"
echo '{"name":"kubeloop-code-server","private":true}' >"$tmp/package.json"
npm_quiet=(--no-audit --no-fund --loglevel=error)
step "npm install code-server@$version" npm --prefix "$tmp" install --ignore-scripts "${npm_quiet[@]}" "code-server@$version"

cs="$tmp/node_modules/code-server"
vs="$cs/lib/vscode"
[ -d "$vs" ] || { log "FAILED step: $vs not found after npm install"; exit 1; }

# 3. VS Code's own runtime dependencies, then its native addons built for this Node.
step "npm install in lib/vscode" npm --prefix "$vs" install --omit=dev --ignore-scripts "${npm_quiet[@]}"
# node-pty's install script calls `npx node-gyp`: npm_config_yes answers npx's prompt.
step "npm rebuild native modules in lib/vscode" env npm_config_yes=true \
  npm --prefix "$vs" rebuild kerberos @parcel/watcher @vscode/deviceid @vscode/spdlog native-watchdog node-pty

# 4. ripgrep from Debian where @vscode/ripgrep would have downloaded it.
mkdir -p "$vs/node_modules/@vscode/ripgrep/bin"
ln -sfn "$rg_bin" "$vs/node_modules/@vscode/ripgrep/bin/rg"
# VS Code loads some modules from node_modules.asar; the server build ships them unpacked.
ln -sfn node_modules "$vs/node_modules.asar"

# 5. The built-in extensions' dependencies, and code-server's own password hashing addon (npm hoists
#    argon2 next to code-server, so it is rebuilt from the install root; code-server loads it at start).
step "npm install in lib/vscode/extensions" npm --prefix "$vs/extensions" install --omit=dev --ignore-scripts "${npm_quiet[@]}"
step "npm rebuild argon2" npm --prefix "$tmp" rebuild argon2

# 6. Check, then move into place.
if ! is_good "$tmp"; then
  log "FAILED step: '$exe_rel --version' does not report $version; it printed:"
  "$tmp/$exe_rel" --version >&2 || true
  exit 1
fi
rm -rf "$dest"
mv "$tmp" "$dest"
trap - EXIT
log "installed $(version_line "$dest") in $((SECONDS - total_start))s"
echo "$dest/$exe_rel"
