#!/usr/bin/env bash
# Install a real n8n into a cache folder outside the repository (idempotent).
#   scripts/n8n/install.sh            -> prints the install folder on stdout
# Env: LEAD_CAPI_N8N_VERSION (default 1.123.81; "2.x" = the n8n 2.x the suite is tested with,
#                            below; 2.36+ needs Node >= 24: set LEAD_CAPI_NODE)
#      LEAD_CAPI_N8N_HOME    (default ${XDG_CACHE_HOME:-$HOME/.cache}/n8n-nodes-lead-capi/n8n-<version>)
#      LEAD_CAPI_NODE        node binary to install and run n8n with (default: node on PATH),
#                            e.g. "$(scripts/n8n/install-node.sh)" for Node 24
# n8n is ~1.8 GB (1.123) or ~2.9 GB (2.x) and needs ~4-6 minutes the first time; a second call
# returns at once.
set -euo pipefail
VERSION="${LEAD_CAPI_N8N_VERSION:-1.123.81}"
# The n8n 2.x the end-to-end suite runs (`npm run test:e2e:n8n2`): the newest 2.x that installs.
# Not 2.41.3 (npm's "latest" when this was written): it pins @n8n/agents@0.26.2, a version the
# registry does not have, so `npm install n8n@2.41.3` fails with ETARGET. 2.41.1 installs.
N8N2_VERSION=2.41.1
if [ "$VERSION" = 2.x ]; then VERSION="$N8N2_VERSION"; fi
DIR="${LEAD_CAPI_N8N_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/n8n-nodes-lead-capi/n8n-$VERSION}"
log() { echo "n8n-install: $*" >&2; }
if [ -n "${LEAD_CAPI_NODE:-}" ]; then
  PATH="$(cd "$(dirname "$LEAD_CAPI_NODE")" && pwd):$PATH"; export PATH
fi

MARK="$DIR/.installed"
WANT="n8n@$VERSION abi=$(node -p process.versions.modules)"
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
  flock 9
  if installed; then
    echo "$DIR"
    exit 0
  fi
fi
cd "$DIR"
# n8n-nodes-base depends on xlsx from cdn.sheetjs.com, a tarball outside the npm
# registry; machines that only reach the registry fail there, so pin the last
# xlsx published on npm instead.
cat > package.json <<JSON
{
  "name": "lead-capi-n8n-runtime",
  "private": true,
  "dependencies": { "n8n": "$VERSION" },
  "overrides": { "xlsx": "0.18.5" }
}
JSON
# node-gyp must not download Node headers (offline machines): use the local ones.
NODE_PREFIX="$(cd "$(dirname "$(command -v node)")/.." && pwd)"
if [ -z "${npm_config_nodedir:-}" ] && [ -f "$NODE_PREFIX/include/node/node.h" ]; then
  export npm_config_nodedir="$NODE_PREFIX"
fi
t0=$(date +%s)
log "installing n8n@$VERSION into $DIR (first time only, several minutes)"
# --ignore-scripts: isolated-vm does not compile on Node 20 and would roll back
# the whole install; the only native module n8n needs here is sqlite3 (below).
npm install --no-audit --no-fund --loglevel=error --ignore-scripts >&2
# Explicitly with scripts: under `npm run …` (and with this repository's .npmrc) npm hands
# ignore-scripts=true down to child npm processes, and a rebuild that skips the scripts builds
# nothing and still says "rebuilt dependencies successfully".
npm rebuild sqlite3 --ignore-scripts=false --foreground-scripts --loglevel=error >&2
node -e "require('$DIR/node_modules/sqlite3')" || { log "sqlite3 native module does not load"; exit 1; }
echo "$WANT" > "$MARK"
log "n8n@$VERSION installed in $(( $(date +%s) - t0 )) s"
echo "$DIR"
