#!/usr/bin/env bash
# Runs every ctrlkit/client-go pair of the bench module alternately,
# each sample in a fresh process, and prints the table of medians and
# ratios ctrlkit/anchor (see README.md).
#
# Usage: bench/run.sh [-count N] [-only REGEXP] [-out FILE] [-profile DIR]
#   -count N      rounds; every benchmark runs once per round (default 5)
#   -only REGEXP  only workloads whose name matches (e.g. 'W1|W3')
#   -out FILE     keep the raw `go test -bench` output (default: a temp file)
#   -profile DIR  afterwards run the ctrlkit side of every workload once
#                 more with -cpuprofile/-memprofile into DIR (not in the table)
#
# CTRLKIT_BENCH_1M=1 adds the scale curve's 1M-pod workloads (S1M*).
#
# Within a round the sides of a pair run back to back, and the order of
# the sides flips every round, so that drift in the machine's load hits
# both sides alike. Each benchmark runs a fixed number of iterations
# (-test.benchtime=Nx), the same for both sides.
set -euo pipefail

count=5
only=.
out=
profile=
while [ $# -gt 0 ]; do
  case $1 in
    -count) count=$2; shift 2 ;;
    -only) only=$2; shift 2 ;;
    -out) out=$2; shift 2 ;;
    -profile) profile=$2; shift 2 ;;
    *) echo "usage: $0 [-count N] [-only REGEXP] [-out FILE] [-profile DIR]" >&2; exit 2 ;;
  esac
done

# workload  iterations  sides (the first is ctrlkit, the others its anchors)
pairs=(
  "W1Cycle         1000000x ctrlkit clientgo floor"
  "W2Dedup         30x      ctrlkit clientgo"
  "W3Parallel      1000000x ctrlkit clientgo floor"
  "W4aRateLimited  1000000x ctrlkit clientgo"
  "W4bAddAfter     3x       ctrlkit clientgo"
  "W5aFifoAddPop   5x       ctrlkit clientgo"
  "W5bFifoReplace  5x       ctrlkit clientgo"
  "W6Add           5x       ctrlkit clientgo"
  "W6ByNamespace   300x     ctrlkit clientgo"
  "W6ByApp         200000x  ctrlkit clientgo"
  "W6Update        3x       ctrlkit clientgo floor"
  "W6Bytes         1x       ctrlkit clientgo"
  "W7Sync          2x       ctrlkit clientgo"
  "W7Updates       2x       ctrlkit clientgo"
  "W8Cycle         200000x  ctrlkit controllerruntime"
  "W8Parallel      200000x  ctrlkit controllerruntime"
  # the scale curve (scale_test.go)
  "S10kSync        5x       ctrlkit clientgo"
  "S10kRelist      5x       ctrlkit clientgo"
  "S10kByNS        5x       ctrlkit clientgo"
  "S10kResync      3x       ctrlkit clientgo"
  "S10kSlow        3x       ctrlkit clientgo"
  "S100kSync       2x       ctrlkit clientgo"
  "S100kRelist     2x       ctrlkit clientgo"
  "S100kByNS       2x       ctrlkit clientgo"
  "S100kResync     1x       ctrlkit clientgo"
  "S100kSlow       1x       ctrlkit clientgo"
)
# The 1M sizes need about 6 GiB and a minute per sample: only on request.
if [ "${CTRLKIT_BENCH_1M:-}" = 1 ]; then
  pairs+=(
    "S1MSync         1x       ctrlkit clientgo"
    "S1MRelist       1x       ctrlkit clientgo"
    "S1MByNS         1x       ctrlkit clientgo"
    "S1MResync       1x       ctrlkit clientgo"
    "S1MSlow         1x       ctrlkit clientgo"
  )
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -n "$out" ] || out=$tmp/raw.txt
: > "$out"
out=$(cd "$(dirname "$out")" && pwd)/$(basename "$out")
if [ -n "$profile" ]; then
  mkdir -p "$profile"
  profile=$(cd "$profile" && pwd)
fi
cd "$(dirname "$0")"

echo "building the test binary..." >&2
go test -c -o "$tmp/bench.test" .
go build -o "$tmp/benchtable" ./cmd/benchtable

start=$(date +%s)
for round in $(seq 1 "$count"); do
  echo "round $round/$count ($(( $(date +%s) - start ))s)" >&2
  for pair in "${pairs[@]}"; do
    read -r workload iters sides <<<"$pair"
    [[ $workload =~ $only ]] || continue
    read -r -a order <<<"$sides"
    if (( round % 2 == 0 )); then
      # flip the order on even rounds
      reversed=()
      for (( i=${#order[@]}-1; i>=0; i-- )); do reversed+=("${order[i]}"); done
      order=("${reversed[@]}")
    fi
    for side in "${order[@]}"; do
      (cd "$tmp" && ./bench.test -test.run='^$' -test.bench="^Benchmark${workload}_${side}\$" \
        -test.benchtime="$iters" -test.count=1) | grep '^Benchmark' | tee -a "$out" >&2
    done
  done
done
if [ -n "$profile" ]; then
  # one more ctrlkit sample per workload, profiled, kept out of the table
  cp "$tmp/bench.test" "$profile/bench.test"
  for pair in "${pairs[@]}"; do
    read -r workload iters sides <<<"$pair"
    [[ $workload =~ $only ]] || continue
    (cd "$tmp" && ./bench.test -test.run='^$' -test.bench="^Benchmark${workload}_ctrlkit\$" \
      -test.benchtime="$iters" -test.count=1 \
      -test.cpuprofile="$profile/$workload.cpu" -test.memprofile="$profile/$workload.mem") \
      | grep '^Benchmark' >&2
  done
  echo "profiles in $profile (go tool pprof $profile/bench.test $profile/<workload>.cpu)" >&2
fi
echo "done in $(( $(date +%s) - start ))s" >&2

commit=${CTRLKIT_COMMIT:-$(git describe --always --dirty 2>/dev/null || echo unknown)}
echo "$(date -u +%Y-%m-%d) · $(uname -sm) · $(nproc) cores · $(go version | cut -d' ' -f3) · commit $commit · count=$count"
echo
"$tmp/benchtable" "$out"
