#!/usr/bin/env bash
# Every benchmark in bench/, run in this tree and in another checkout (the "before"), side by side, at a scale that
# fits a shared 2-core VM (about 40 minutes in all). Each bench runs in one tree and then the other, both under the
# exclusive benchmark lock, so the machine's state moves both sides alike; the full output of each run is kept in
# var/bench/before_after/<bench>.<side>.txt and the lines that carry the figures are printed.
#
#   git worktree add --detach var/base <commit> && ln -s ../../.venv var/base/.venv && cp analytics/_phout_fast*.so var/base/analytics/
#   cp -r frontend/dist var/base/frontend/      # report_burst serves the built page (else every page is a 503)
#   bench/before_after.sh var/base                 # every bench
#   bench/before_after.sh var/base tank_cpu report_api   # some of them (names below)
#
# upload_bomb and phout_parse_block measure both trees within one run of their own (--baseline-tree, --build).
# Benches that hold a baseline of their own inside one run (phout_parse: C against pyarrow; phout_upload: against
# clickhouse-client; tank_push/run.py: against a bare WSGI app; report_burst: against a static file) keep it.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BASE="$(cd "${1:?usage: bench/before_after.sh BASE_TREE [bench...]}" && pwd)"
shift
OUT="$ROOT/var/bench/before_after"
DATA="$ROOT/var/bench/before_after/data"
LOCK=/tmp/tankodrom-bench.lock
mkdir -p "$OUT" "$DATA"
PY="$ROOT/.venv/bin/python"

PHOUT="$DATA/2000000.phout"
[[ -s "$PHOUT" ]] || "$PY" "$ROOT/bench/gen_phout.py" --lines 2000000 --duration 400 --output "$PHOUT" >/dev/null

# name | command (run with the tree as the working directory) | grep pattern of the lines that carry the figures
BENCHES=(
  "aggregate_pieces|.venv/bin/python bench/aggregate_pieces.py $PHOUT --lines 2000000 --repeat 3|\"kernel\"|\"numpy\"|over_kernel"
  "phout_parse|.venv/bin/python bench/phout_parse.py $PHOUT --rounds 3|\"cpu_s\"|cpu_ratio"
  "phout_upload|.venv/bin/python bench/phout_upload/run.py --file $PHOUT --rounds 3|lines/s|ratio|RSS"
  "tank_cpu|.venv/bin/python bench/tank_push/cpu.py --pushes 640 --rounds 5|µs|us"
  "tank_run|.venv/bin/python bench/tank_push/run.py --tanks 100,300 --seconds 15|p50|p99|lost|503|ceiling"
  "report_api|.venv/bin/python bench/report_api/run.py --samples 1000000 --other-tests 20 --other-samples 50000|p50|p95"
  "report_burst|.venv/bin/python bench/report_burst/run.py --lines 1000000 --users 200 --spread-s 5|p50|p95|page|static"
  "compare_run|.venv/bin/python bench/compare/run.py --lines 1000000|cold_s|cached_ms|median|python_cpu|load_average"
  "compare_fp|.venv/bin/python bench/compare/false_positives.py --ar 0.7 --trials 200|same|pairs|level"
  "compare_power|.venv/bin/python bench/compare/power.py --trials 100|A/A|p50 x|p99 x|slow|trials per cell"
  "imbalance|.venv/bin/python bench/diagnosis/imbalance.py --trials 100|hit|false|within|median"
  "upload_bomb|.venv/bin/python bench/faults/upload_bomb.py --timeout 120 --baseline-tree $BASE|tree|baseline"
  "parse_block|.venv/bin/python bench/phout_parse_block.py $PHOUT --mb 140 $(for t in "$ROOT" "$BASE"; do echo --build "$(ls "$t"/analytics/_phout_fast*.so)"; done)|MB/s|ns"
  "sharding|.venv/bin/python bench/cluster/sharding.py --rows 2000000 --rounds 5|single|by_test|spread"
)

want() {  # want NAME [chosen...]: every bench when none is chosen
  local name=$1 n; shift
  [[ $# -eq 0 ]] && return 0
  for n in "$@"; do [[ "$n" == "$name" ]] && return 0; done
  return 1
}

for entry in "${BENCHES[@]}"; do
  IFS='|' read -r name cmd patterns <<<"$entry"
  want "$name" "$@" || continue
  for side in before after; do
    tree="$ROOT"; [[ $side == before ]] && tree="$BASE"
    log="$OUT/$name.$side.txt"
    if [[ $name == upload_bomb || $name == parse_block ]]; then
      # these measure both trees in one run of their own (the child code is this tree's, the reading path each one's)
      [[ $side == before ]] && continue
      echo "== $name (this tree beside $(git -C "$BASE" rev-parse --short HEAD))"
    else
      echo "== $name ($side: $(git -C "$tree" rev-parse --short HEAD))"
    fi
    # The tree's own packages first: the .venv's editable install points at the checkout it was made in, and a
    # bench that does not put its tree on sys.path itself would otherwise measure that checkout's code.
    export PYTHONPATH="$tree"
    if [[ $name == sharding ]]; then
      # the cluster's settings are what sharding.py reads; the cluster itself is started by deploy/cluster.sh
      (cd "$tree" && source <("$ROOT/deploy/cluster.sh" env) && flock -x "$LOCK" bash -c "$cmd") >"$log" 2>&1 || echo "   (exit $?: see $log)"
    elif [[ $name == report_burst ]]; then
      (cd "$tree" && bash -c "$cmd") >"$log" 2>&1 || echo "   (exit $?: see $log)"  # it takes the lock itself
    else
      (cd "$tree" && flock -x "$LOCK" bash -c "$cmd") >"$log" 2>&1 || echo "   (exit $?: see $log)"
    fi
    grep -E "$patterns" "$log" | tail -20 | sed 's/^/   /' || true
  done
done
