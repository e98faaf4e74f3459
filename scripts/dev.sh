#!/usr/bin/env bash
# The README's two commands:  scripts/dev.sh demo   |   scripts/dev.sh test [pytest args]
# Both set up everything first on a fresh machine (jq, a .venv with torch CPU, this package),
# and skip what is already in place on later runs.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
VENV="${EVALSCOPE_PHYS_VENV:-$ROOT/.venv}"
PY="$VENV/bin/python"

log() { printf '[evalscope-phys] %s\n' "$*" >&2; }

ensure_jq() {
  command -v jq >/dev/null 2>&1 && return
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    log "installing jq (Debian package)"
    apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq jq >/dev/null
  else
    log "jq is missing: install it (e.g. 'sudo apt-get install jq') and re-run"; exit 1
  fi
}

ensure_venv() {
  local stamp="$VENV/.evalscope_phys_installed" want
  want=$(cat pyproject.toml setup.py | sha256sum | cut -c1-16)
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then return; fi
  [ -x "$PY" ] || { log "creating $VENV"; python3 -m venv "$VENV"; }
  log "installing torch 2.13.0 (CPU build) and evalscope-phys with test, audit, rl and ray extras"
  # torch first, pinned, so nothing later pulls the multi-GB CUDA build
  "$PY" -m pip install -q torch==2.13.0 2>&1 | grep -v '^WARNING: Location' || true
  "$PY" -m pip install -q -e '.[test,audit,rl,ray]' 2>&1 | grep -v '^WARNING: Location' || true
  "$PY" -c 'import evalscope, evalscope_phys, torch, sentence_transformers, trl, ray' \
    || { log "installation failed; see pip output above"; exit 1; }
  echo "$want" > "$stamp"
}

ensure_autoload_pth() {
  # An editable install does not carry our .pth file (a wheel does); put it where the venv reads it.
  local site
  site=$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  cmp -s evalscope_phys/evalscope_phys_autoload.pth "$site/evalscope_phys_autoload.pth" \
    || cp evalscope_phys/evalscope_phys_autoload.pth "$site/"
}

setup() { ensure_jq; ensure_venv; ensure_autoload_pth; }

cmd="${1:-}"; shift || true
case "$cmd" in
  setup) setup ;;
  demo) setup; exec "$VENV/bin/evalscope-phys" demo "$@" ;;
  test)
    setup
    export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 TOKENIZERS_PARALLELISM=false
    exec "$PY" -m pytest -q -p no:cacheprovider "$@" ;;
  *) echo "usage: scripts/dev.sh {demo|test|setup} [args]" >&2; exit 2 ;;
esac
