#!/usr/bin/env bash
# End-to-end suite: the packed package installed into a real n8n (headless, SQLite, loopback
# only), one n8n shared by the test files (test/e2e/run.js), driven through its REST API,
# platforms answered by loopback stand-ins.
#   npm run test:e2e        n8n 1.123.81 on this machine's Node (20)
#   npm run test:e2e:n8n2   LEAD_CAPI_N8N_VERSION=2.x: the tested n8n 2.x (scripts/n8n/install.sh)
#                           on Node 24 from npm (scripts/n8n/install-node.sh); the system Node stays
# n8n is installed on first use into a cache folder outside the repository (1.8 GB for 1.123,
# 2.9 GB for 2.x, a few minutes once). Extra arguments select files as jest would (e.g. a
# path pattern); other jest flags go to the lanes.
set -euo pipefail
cd "$(dirname "$0")/../.."
# n8n 2.36+ refuses Node < 24: unless a Node was chosen, 2.x runs on the one from npm.
if [[ "${LEAD_CAPI_N8N_VERSION:-}" == 2* ]] && [ -z "${LEAD_CAPI_NODE:-}" ]; then
	LEAD_CAPI_NODE="$(bash scripts/n8n/install-node.sh)"
	export LEAD_CAPI_NODE
fi
LEAD_CAPI_N8N_HOME="$(bash scripts/n8n/install.sh)"
export LEAD_CAPI_N8N_HOME
npm run build --silent
mkdir -p .e2e
rm -f .e2e/*.tgz
npm pack --pack-destination .e2e --silent >/dev/null
LEAD_CAPI_PACKAGE_TGZ="$(ls "$PWD"/.e2e/n8n-nodes-lead-capi-*.tgz)"
export LEAD_CAPI_PACKAGE_TGZ
N8N_VERSION="$(node -p "require('$LEAD_CAPI_N8N_HOME/node_modules/n8n/package.json').version")"
echo "e2e: n8n $N8N_VERSION from $LEAD_CAPI_N8N_HOME on Node $("${LEAD_CAPI_NODE:-node}" -v)," \
	"package $(basename "$LEAD_CAPI_PACKAGE_TGZ")"
exec node test/e2e/run.js "$@"
