#!/usr/bin/env bash
# Runs the real models on the real-server suite's tasks and writes
# docs/real-models.md from the results (TestRealModels in e2e/realserver).
# Builds llama-server and extracts the models first when they are missing
# (scripts/llama-server.sh install; cached).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/llama-server.sh install
DEV_REAL_SERVER=required DEV_REAL_MODELS_REPORT="$PWD/docs/real-models.md" \
  go test -count=1 -timeout 60m -run 'TestRealModels$' -v ./e2e/realserver
echo "wrote docs/real-models.md" >&2
