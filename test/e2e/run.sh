#!/usr/bin/env bash
# End-to-end suite: the packed package installed into a real n8n 1.123.x (headless, SQLite,
# loopback only), workflows run with `n8n execute`, platforms answered by loopback stand-ins.
# n8n is installed on first use into a cache folder outside the repository (~1.8 GB, a few
# minutes once): see scripts/n8n/install.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
LEAD_CAPI_N8N_HOME="$(bash scripts/n8n/install.sh)"
export LEAD_CAPI_N8N_HOME
npm run build --silent
mkdir -p .e2e
rm -f .e2e/*.tgz
npm pack --pack-destination .e2e --silent >/dev/null
LEAD_CAPI_PACKAGE_TGZ="$(ls "$PWD"/.e2e/n8n-nodes-lead-capi-*.tgz)"
export LEAD_CAPI_PACKAGE_TGZ
echo "e2e: n8n $(node -p "require('$LEAD_CAPI_N8N_HOME/node_modules/n8n/package.json').version") from $LEAD_CAPI_N8N_HOME, package $(basename "$LEAD_CAPI_PACKAGE_TGZ")"
exec npx jest -c jest.e2e.config.js "$@"
