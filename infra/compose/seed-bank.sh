#!/bin/sh
# Registers the sample bank upstream and publishes its tools through the `estate` CLI, once the
# registry is up (docker-compose.yml runs it as the `bank-seed` one-shot in the estate image).
# Re-running it changes nothing: re-registering the same server is accepted and a version that
# is already published is skipped.
#
#   ESTATE_REGISTRY_URL  the registry (http://registry:8001)
#   ESTATE_TOKEN         a token with estate:admin and estate:publish, or else
#   ESTATE_JWT_SECRET    the HS256 secret to mint a development one from
#   BANK_URL             where the edge reaches the bank (http://bank:9100/mcp)
set -eu

estate() { node dist/apps/cli/src/main.js "$@"; }

if [ -z "${ESTATE_TOKEN:-}" ]; then
  ESTATE_TOKEN="$(estate token --sub estate-seed --scope 'estate:admin estate:publish' --clearance restricted)"
  export ESTATE_TOKEN
fi
specs="$(mktemp -d)"
trap 'rm -rf "$specs"' EXIT

estate register-server --name bank --url "${BANK_URL:-http://bank:9100/mcp}" \
  --transport streamable-http --owner payments-team >/dev/null
node dist/examples/bank/main.js --specs "$specs" >/dev/null
for spec in "$specs"/*.json; do
  if out="$(estate publish "$spec" 2>&1)"; then
    echo "published $(basename "$spec" .json)"
  elif echo "$out" | grep -q VERSION_ALREADY_PUBLISHED; then
    echo "already published: $(basename "$spec" .json)"
  else
    echo "$out" >&2
    exit 1
  fi
done
