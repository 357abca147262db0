#!/usr/bin/env bash
# Install a real n8n into a cache folder outside the repository, from a committed lockfile.
#   scripts/n8n/install.sh            -> prints the install folder on stdout
# Env: LEAD_CAPI_N8N_VERSION (default: the 1.x below; "2.x" = the n8n 2.x the suite is tested
#                            with; 2.36+ needs Node >= 24: set LEAD_CAPI_NODE)
#      LEAD_CAPI_N8N_HOME    (default ${XDG_CACHE_HOME:-$HOME/.cache}/n8n-nodes-lead-capi/n8n-<version>)
#      LEAD_CAPI_NODE        node binary to install and run n8n with (default: node on PATH),
#                            e.g. "$(scripts/n8n/install-node.sh)" for Node 24
#
# Every n8n the project runs has its own package.json + package-lock.json under
# scripts/n8n/runtimes/<version>/ (regenerate them with `npm run n8n:lock`). The install is
# `npm ci` from that lockfile: nothing is resolved at install time, so a package published after
# the n8n release cannot slip in (it did: @langchain/langgraph-checkpoint 1.2.2 beside the
# @langchain/core n8n 1.123.81 pins, and `n8n start` was "not found"). None of this repository's
# npm settings reach the install (npm run hands them down as npm_config_* variables).
#
# The folder is marked installed only after n8n has started once and answered its readiness
# probe (scripts/n8n/probe.js). A folder without that mark (a broken or interrupted install, a
# lockfile that changed) is wiped and installed again. n8n is ~1.8 GB (1.123) or ~2.9 GB (2.x)
# and takes a few minutes the first time; a second call returns at once.
#
# What npm and the native builds print goes to install.log in the install folder; the terminal
# (stderr) gets one line per step with its elapsed time, and on a failure the log's last 40
# lines and its path. stdout carries only the install folder (its last line), for the callers.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# The n8n versions the project runs (each has scripts/n8n/runtimes/<version>/).
N8N1_VERSION=1.123.81
# The n8n 2.x the end-to-end suite runs (`npm run test:e2e:n8n2`). Not 2.41.3 (npm's "latest"
# when this was written): it pins @n8n/agents@0.26.2, a version the registry does not have.
N8N2_VERSION=2.41.1
VERSION="${LEAD_CAPI_N8N_VERSION:-$N8N1_VERSION}"
case "$VERSION" in
  2.x) VERSION="$N8N2_VERSION" ;;
  1.x) VERSION="$N8N1_VERSION" ;;
esac
# LEAD_CAPI_N8N_RUNTIMES: another folder of runtimes (the install script's own tests).
RUNTIMES="${LEAD_CAPI_N8N_RUNTIMES:-$HERE/runtimes}"
RUNTIME="$RUNTIMES/$VERSION"
DIR="${LEAD_CAPI_N8N_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/n8n-nodes-lead-capi/n8n-$VERSION}"
log() { echo "n8n-install: $*" >&2; }
LOG="$DIR/install.log"
STEP_PID=
# step <what> <command…>: the command runs with its output appended to $LOG. On a terminal one
# line counts its seconds in place; elsewhere (CI, a file) a line when it starts and one when it
# ends. Returns the command's status; a failure prints the log's last 40 lines and its path.
step() {
  local what="$1" t0=$SECONDS status=0
  shift
  printf '== %s (%s): %s\n' "$what" "$(date -u +%FT%TZ)" "$*" >>"$LOG"
  "$@" >>"$LOG" 2>&1 &
  STEP_PID=$!
  if [ -t 2 ]; then
    while kill -0 "$STEP_PID" 2>/dev/null; do
      printf '\rn8n-install: %s … %d s' "$what" $((SECONDS - t0)) >&2
      sleep 1
    done
    printf '\r\033[K' >&2
  else
    log "$what …"
  fi
  wait "$STEP_PID" || status=$?
  STEP_PID=
  if [ "$status" -eq 130 ] || [ "$status" -eq 143 ]; then
    log "$what: stopped (Ctrl-C or kill); the next run installs again"
    return "$status"
  elif [ "$status" -ne 0 ]; then
    log "$what failed (exit $status) after $((SECONDS - t0)) s; the last 40 lines of $LOG:"
    tail -n 40 "$LOG" | sed 's/^/  | /' >&2
    log "full log: $LOG"
    return "$status"
  fi
  log "$what: done in $((SECONDS - t0)) s"
}
# Ctrl-C or a kill during a step stops that step's command and what it started (a compiler
# under npm rebuild): a background command of a script does not get the terminal's SIGINT.
kill_tree() {
  local child
  for child in $(pgrep -P "$1" 2>/dev/null); do kill_tree "$child"; done
  kill "$1" 2>/dev/null || true
}
stop_step() { [ -z "$STEP_PID" ] || kill_tree "$STEP_PID"; }
trap 'stop_step; exit 130' INT
trap 'stop_step; exit 143' TERM

if [ ! -f "$RUNTIME/package-lock.json" ] || [ ! -f "$RUNTIME/package.json" ]; then
  log "no committed lockfile for n8n $VERSION ($RUNTIME/)."
  log "Known: $(ls "$RUNTIMES" | tr '\n' ' ')— add one with: npm run n8n:lock -- $VERSION"
  exit 1
fi
if [ -n "${LEAD_CAPI_NODE:-}" ]; then
  # npm finds its global npmrc under the prefix of the node that runs it: with another node first
  # on PATH it would read that node's (empty) one and lose this machine's registry settings — a
  # cafile for a TLS-inspecting proxy among them (SELF_SIGNED_CERT_IN_CHAIN on the first package
  # not in the cache). Keep the machine's global npmrc.
  if [ -z "${npm_config_globalconfig:-}" ] && command -v npm >/dev/null 2>&1; then
    npm_config_globalconfig="$(npm config get globalconfig 2>/dev/null || true)"
    if [ -f "$npm_config_globalconfig" ]; then export npm_config_globalconfig; else unset npm_config_globalconfig; fi
  fi
  PATH="$(cd "$(dirname "$LEAD_CAPI_NODE")" && pwd):$PATH"; export PATH
fi

# Only npm settings that say where and how to reach the registry pass through; the rest
# (this repository's legacy-peer-deps, ignore-scripts…, handed down by `npm run`) are dropped.
for name in $(compgen -e); do
  case "$(printf '%s' "$name" | tr '[:upper:]' '[:lower:]')" in
    npm_config_registry | npm_config_cache | npm_config_userconfig | npm_config_globalconfig | \
      npm_config_proxy | npm_config_https_proxy | npm_config_noproxy | npm_config_cafile | \
      npm_config_strict_ssl | npm_config_nodedir | npm_config_@*:registry) ;;
    npm_config_* | npm_package_* | npm_lifecycle_* | npm_command | npm_execpath | npm_node_execpath | init_cwd) unset "$name" ;;
  esac
done

MARK="$DIR/.installed"
LOCK_SUM="$(sha256sum "$RUNTIME/package-lock.json" | cut -c1-16)"
WANT="n8n@$VERSION abi=$(node -p process.versions.modules) lock=$LOCK_SUM"
installed() { [ -f "$MARK" ] && [ "$(cat "$MARK")" = "$WANT" ] && [ -f "$DIR/node_modules/n8n/bin/n8n" ]; }
if installed; then
  echo "$DIR"
  exit 0
fi

mkdir -p "$DIR"
# One install at a time per folder: a second caller (the bench while an e2e run installs, two
# checkouts) waits for the first and then finds n8n installed.
if command -v flock >/dev/null 2>&1; then
  exec 9>"$DIR.lock"
  flock -n 9 || { log "waiting for another install into $DIR to finish ($DIR.lock)"; flock 9; }
  if installed; then
    echo "$DIR"
    exit 0
  fi
fi
cd "$DIR"
if [ -e "$MARK" ] || [ -d node_modules ]; then
  log "repairing $DIR (not marked installed for this lockfile and Node: $(cat "$MARK" 2>/dev/null || echo 'no mark'))"
fi
rm -f "$MARK"
rm -rf node_modules
cp "$RUNTIME/package.json" "$RUNTIME/package-lock.json" .
# node-gyp must not download Node headers (offline machines): use the local ones.
NODE_PREFIX="$(cd "$(dirname "$(command -v node)")/.." && pwd)"
if [ -z "${npm_config_nodedir:-}" ] && [ -f "$NODE_PREFIX/include/node/node.h" ]; then
  export npm_config_nodedir="$NODE_PREFIX"
fi
SECONDS=0
: >"$LOG"
PACKAGES="$(node -p "Object.keys(require('./package-lock.json').packages).length - 1")"
log "installing n8n@$VERSION into $DIR from $RUNTIME/package-lock.json (first time only, several minutes)"
log "what npm and the native builds print: $LOG"
# --ignore-scripts: isolated-vm does not compile on Node 20 and would roll back the whole
# install; the only native module n8n needs here is sqlite3 (below).
step "npm ci ($PACKAGES packages in the lockfile)" npm ci --ignore-scripts=true --no-audit --no-fund --loglevel=error
# With scripts, explicitly: a rebuild that skips the scripts builds nothing and still says
# "rebuilt dependencies successfully".
step "building sqlite3 (native module)" npm rebuild sqlite3 --ignore-scripts=false --foreground-scripts --loglevel=error
node -e "require('$DIR/node_modules/sqlite3')" || { log "sqlite3 native module does not load (build output: $LOG)"; exit 1; }
step "starting n8n once (readiness probe)" node "$HERE/probe.js" "$DIR" || {
  log "n8n@$VERSION did not start from $DIR: not marked installed (the next run installs again)"
  exit 1
}
echo "$WANT" > "$MARK"
log "n8n@$VERSION ready in $SECONDS s"
echo "$DIR"
