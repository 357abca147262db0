#!/usr/bin/env bash
# Regenerates the lockfile of each n8n the project runs (scripts/n8n/runtimes/<version>/):
#   npm run n8n:lock                 both versions named in scripts/n8n/install.sh
#   npm run n8n:lock -- 1.123.90     one version (a new folder when bumping n8n; then change
#                                    N8N1_VERSION / N8N2_VERSION in install.sh and remove the
#                                    old folder)
# Dependencies resolve as the registry stood one day after that n8n was published (npm's
# --before): what n8n's own release was built and tested with, not whatever was published
# since (a later @langchain/langgraph-checkpoint broke `n8n start` on 1.123.81). Resolves
# metadata only (about 2 minutes per version); the next install.sh run installs from it.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
versions=("$@")
if [ ${#versions[@]} -eq 0 ]; then
  versions=(
    "$(sed -n 's/^N8N1_VERSION=//p' "$HERE/install.sh")"
    "$(sed -n 's/^N8N2_VERSION=//p' "$HERE/install.sh")"
  )
fi
for name in $(compgen -e); do
  case "$(printf '%s' "$name" | tr '[:upper:]' '[:lower:]')" in
    npm_config_registry | npm_config_cache | npm_config_userconfig | npm_config_globalconfig | \
      npm_config_proxy | npm_config_https_proxy | npm_config_noproxy | npm_config_cafile | \
      npm_config_strict_ssl) ;;
    npm_config_* | npm_package_* | npm_lifecycle_*) unset "$name" ;;
  esac
done
# Resolves n8n@$1 in folder $2 as the registry stood at $3.
resolve() {
  cat > "$2/package.json" <<JSON
{
  "name": "lead-capi-n8n-runtime",
  "private": true,
  "lockedAsOf": "$3",
  "dependencies": { "n8n": "$1" },
  "overrides": { "xlsx": "0.18.5" }
}
JSON
  (cd "$2" && npm install --package-lock-only --before="$3" --no-audit --no-fund --loglevel=error >&2)
}
for version in "${versions[@]}"; do
  published="$(npm view "n8n@$version" time --json | node -e "
    const t = JSON.parse(require('fs').readFileSync(0, 'utf8'))['$version'];
    if (!t) { console.error('n8n $version is not on the registry'); process.exit(1); }
    console.log(Date.parse(t));")"
  dir="$HERE/runtimes/$version"
  work="$(mktemp -d)"
  # n8n-nodes-base depends on xlsx from a tarball outside the npm registry (machines that
  # reach only the registry fail there): the last xlsx published on npm instead (overrides).
  # One day after the release, else the first later day at which every pinned version exists
  # (n8n 2.41.1's tree pins a package version published the day after it).
  for days in 1 2 3 4 5 6 7; do
    asof="$(node -p "new Date($published + $days * 86400000).toISOString()")"
    echo "n8n-lock: resolving n8n@$version as of $asof" >&2
    if resolve "$version" "$work" "$asof"; then break; fi
    [ "$days" -lt 7 ] || { echo "n8n-lock: n8n@$version does not resolve within 7 days of its release" >&2; exit 1; }
  done
  mkdir -p "$dir"
  cp "$work/package.json" "$work/package-lock.json" "$dir/"
  rm -rf "$work"
  count="$(node -p "Object.keys(require('$dir/package-lock.json').packages).length - 1")"
  echo "n8n-lock: scripts/n8n/runtimes/$version/package-lock.json: $count packages (as of $asof)" >&2
done
