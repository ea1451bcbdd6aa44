#!/usr/bin/env bash
# Builds the Python environment the interop tests use: a venv at infra/python/.venv (or
# $ESTATE_PYTHON_VENV) with the pinned packages of requirements.txt. Idempotent; prints the
# interpreter's path on stdout (progress on stderr). Needs python3 with the venv module
# (Debian: python3-venv). Tests find it there, or wherever $ESTATE_PYTHON points.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VENV="${ESTATE_PYTHON_VENV:-$HERE/.venv}"
REQUIREMENTS="$HERE/requirements.txt"

command -v python3 >/dev/null || { echo "python3 is not installed (Debian: apt-get install python3 python3-venv)" >&2; exit 1; }
if [[ ! -x "$VENV/bin/python" ]]; then
  echo "[python] creating $VENV with $(python3 --version)" >&2
  python3 -m venv "$VENV" || { echo "python3 cannot create a venv (Debian: apt-get install python3-venv)" >&2; exit 1; }
fi
# The stamp skips pip when requirements.txt has not changed since the last install.
STAMP="$VENV/.requirements.sha256"
WANT="$(sha256sum "$REQUIREMENTS" | cut -d' ' -f1)"
if [[ "$(cat "$STAMP" 2>/dev/null)" != "$WANT" ]]; then
  echo "[python] installing $(grep -v '^#' "$REQUIREMENTS" | xargs)" >&2
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -r "$REQUIREMENTS" >&2
  echo "$WANT" >"$STAMP"
fi
"$VENV/bin/python" -c 'import mcp.client.streamable_http, mcp.client.session' >&2
echo "$VENV/bin/python"
