#!/usr/bin/env bash
# The README's two commands:  scripts/dev.sh demo   |   scripts/dev.sh test [pytest args]
# Both set up everything first on a fresh machine (jq, a .venv with torch CPU, this package),
# and skip what is already in place on later runs.   scripts/dev.sh setup  only sets up.
# Afterwards: source .venv/bin/activate   (puts evalscope and evalscope-phys on PATH)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
VENV="${EVALSCOPE_PHYS_VENV:-$ROOT/.venv}"
PY="$VENV/bin/python"

log() { printf '[evalscope-phys] %s\n' "$*" >&2; }
usage() { sed -n '2,5p' "$0" | sed 's/^# \{0,1\}//'; }
# run a set-up step, saying what it does and how long it took
step() {
  local what="$1" start=$SECONDS; shift
  log "$what ..."
  "$@"
  log "$what: done in $((SECONDS - start)) s"
}
pip_quiet() { "$PY" -m pip install -q --disable-pip-version-check "$@" 2>&1 | grep -v '^WARNING: Location' || true; }

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
  local start=$SECONDS
  log "setting up $VENV (first time: a few minutes; pip's cache makes later runs faster)"
  [ -x "$PY" ] || step "creating the venv" python3 -m venv "$VENV"
  # torch first, pinned, so nothing later pulls the multi-GB CUDA build
  step "installing torch 2.13.0 (CPU build, ~200 MB)" pip_quiet torch==2.13.0
  step "installing evalscope-phys (editable) with evalscope 1.14.1 and the test, audit, rl and ray extras" \
    pip_quiet -e '.[test,audit,rl,ray]'
  "$PY" -c 'import evalscope, evalscope_phys, torch, sentence_transformers, trl, ray' \
    || { log "installation failed; see pip output above"; exit 1; }
  echo "$want" > "$stamp"
  log "set-up finished in $((SECONDS - start)) s; to use the commands directly: source $VENV/bin/activate"
}

setup() { ensure_jq; ensure_venv; }

cmd="${1:-}"; shift || true
case "$cmd" in
  setup) setup ;;
  demo) setup; exec "$VENV/bin/evalscope-phys" demo "$@" ;;
  test)
    setup
    export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 TOKENIZERS_PARALLELISM=false
    exec "$PY" -m pytest -q -p no:cacheprovider "$@" ;;
  -h|--help|help) usage ;;
  *) usage >&2; exit 2 ;;
esac
