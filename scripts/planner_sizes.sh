#!/bin/bash
# Default VarioPath plans against the best baseline per message size
# (docs/planner.md "Default plans against the baselines"):
#   scripts/planner_sizes.sh VP_SIM CATALOG_DIR OUT_DIR [vp-sim options...]
# runs VP_SIM on CATALOG_DIR/{pcie-1n,hgx-h20-2n-switch,pcie-4n-switch,
# aws-g5-4n-switch}.vpcat (scripts/evaluate.sh writes them in
# build-eval/evaluation/catalogs), uniform and Zipf-1.2 MoE traffic at 1 KiB,
# 16 KiB, 128 KiB, 1 MiB, 16 MiB and 64 MiB per pair (vp-sim --sizes takes
# bytes per rank: n x the pair size), under --model contention (the committed
# table) and --model ideal, one JSON per case in OUT_DIR (kept when present);
# scripts/planner_sizes_table.py BEFORE_DIR AFTER_DIR prints the tables.
set -uo pipefail
SIM=$1; CAT=$2; OUT=$3; shift 3
mkdir -p "$OUT"
for p in pcie-1n:8 hgx-h20-2n-switch:16 pcie-4n-switch:32 aws-g5-4n-switch:32; do
  name=${p%%:*}; n=${p##*:}
  for w in uniform moe:zipf=1.2,hidden=2048; do
    for model in contention ideal; do
      for x in 1024 16384 131072 1048576 16777216 67108864; do
        s=$((x * n))
        f="$OUT/$name.${w%%:*}.$model.$x.json"
        [ -s "$f" ] && continue
        "$SIM" --catalog "$CAT/$name.vpcat" --workload "$w" --sizes "$s:$s" --model "$model" --json "$@" >"$f" 2>"$f.err" ||
          echo "FAILED: $f (see $f.err)"
      done
    done
  done
done
