#!/usr/bin/env bash
# Runs the web app at http://127.0.0.1:8080, rebuilding on every change.
#
#   bash scripts/serve.sh              # debug build: quick to rebuild
#   bash scripts/serve.sh --release    # the size-optimised build that ships
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"

bash scripts/setup.sh
say "trunk serve on http://127.0.0.1:8080 (Ctrl+C stops)"
exec trunk serve "$@"
