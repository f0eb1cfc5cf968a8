#!/usr/bin/env bash
# Runs every benchmark in scripts/bench/ (each prints a Markdown table with its
# baseline measured in the same run) against the release build.
set -euo pipefail
cd "$(dirname "$0")/.."
shopt -s nullglob
for bench in scripts/bench/*.sh; do
  bash "$bench"
  echo
done
