#!/usr/bin/env bash
# One-time set-up on a fresh machine (idempotent, safe to re-run): Debian packages the test tiers
# need, then the npm packages from the lock file. Later steps (code-server, kube-apiserver) cache
# their results under ${KUBELOOP_CACHE:-$HOME/.cache/kubeloop} and are run by the test tiers themselves.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
command -v rg >/dev/null 2>&1 || need_apt+=(ripgrep)
dpkg -s libkrb5-dev >/dev/null 2>&1 || need_apt+=(libkrb5-dev)
command -v unzip >/dev/null 2>&1 || need_apt+=(unzip)
[ -x /usr/bin/time ] || need_apt+=(time)  # GNU time: peak memory figures in npm run bench
# venv + ensurepip: the Python client's venv (scripts/setup-python-client.sh; Debian splits them out)
python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || need_apt+=(python3-venv)
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "setup: installing Debian packages: ${need_apt[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
  else
    echo "setup: please install these Debian packages (needs root): ${need_apt[*]}" >&2
  fi
fi

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup: npm ci"
  npm ci --no-audit --no-fund
fi
