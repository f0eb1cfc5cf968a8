#!/usr/bin/env bash
# Is the suite reliable under load? RUNS (default 10) consecutive `make test` in one fresh clone of HEAD while
# stress-ng keeps one CPU busy all along (a busy Pi, a shared CI machine). Prints one line per run (result, wall
# time, the failed tests) and a summary; keeps each failed run's log in .build/stress/. Exits 1 when a run failed.
# The latest record is in docs/testing.md.
set -euo pipefail
runs=${RUNS:-10}
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/install-deps.sh"
command -v stress-ng >/dev/null || { echo "stress-ng is missing (scripts/install-deps.sh installs it)" >&2; exit 2; }

work="$(mktemp -d)"
logs="$root/.build/stress"
mkdir -p "$logs"
stress=""
cleanup() {
  [ -z "$stress" ] || kill "$stress" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
git clone -q "$root" "$work/tagrouter"
cd "$work/tagrouter"
commit="$(git rev-parse --short HEAD)"
stress-ng --cpu 1 --timeout 0 --quiet &
stress=$!

echo "stress: $runs × make test of $commit from a fresh clone, stress-ng --cpu 1 beside it ($(nproc) CPUs)"
failed=0
for run in $(seq 1 "$runs"); do
  log="$work/run-$run.log"
  start=$(date +%s)
  if make test >"$log" 2>&1; then result=passed; else result=FAILED; failed=$((failed + 1)); fi
  seconds=$(( $(date +%s) - start ))
  tests="$(grep -o 'Test run with [0-9]* tests' "$log" | tail -1 | grep -o '[0-9]*' || echo '?')"
  echo "run $run: $result in ${seconds} s ($tests tests)"
  if [ "$result" = FAILED ]; then
    cp "$log" "$logs/run-$run-$commit.log"
    grep -E '^✘ Test .* failed' "$log" | sed 's/^/    /' | head -20 || true
  fi
done
echo "stress: $((runs - failed)) of $runs runs passed ($commit)"
[ "$failed" -eq 0 ]
