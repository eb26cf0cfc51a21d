#!/usr/bin/env bash
# Runs every test of every module in this repository with the race detector
# and in a shuffled order: the core module and each nested module (etcd/,
# bench/, ...), after checking that each module's go.mod and go.sum are tidy.
# Every benchmark of every module runs once (-benchtime 1x) at a small
# size, so that none of them rots: a benchmark that fails fails the run.
#
# The shuffle seed is printed first; CTRLKIT_SHUFFLE=SEED replays an order.
# Extra arguments are passed to every `go test` (for example -count=1).
# CTRLKIT_FUZZTIME=30s adds a fuzzing run of the served API at the end.
#
# CTRLKIT_STRESS=N runs the stress mode instead: every package of every
# module N times at each of GOMAXPROCS 1, 2 and 4, under -race, with a busy
# loop on every CPU beside it, reporting each failed test with the command
# that replays it (scripts/stress; its flags after the arguments, e.g.
# CTRLKIT_STRESS=3 ./scripts/test-all.sh -cpu 2,4 ./etcd).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -n "${CTRLKIT_STRESS:-}" ]; then
  exec go run ./scripts/stress -runs "$CTRLKIT_STRESS" ${CTRLKIT_SHUFFLE:+-seed "$CTRLKIT_SHUFFLE"} "$@"
fi
seed=${CTRLKIT_SHUFFLE:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
echo "=== shuffle seed $seed (replay the order with CTRLKIT_SHUFFLE=$seed)"
status=0
# The race-enabled builds of every module fill several GB of the build
# cache (the real kube-apiserver's alone is the largest part). A run that
# finds the disk short of room frees the cache between modules rather
# than failing with "no space left on device"; it costs rebuilding the
# dependencies modules share, so it happens only when room is short.
cache=$(go env GOCACHE)
# A fresh machine has no build cache yet: create it, so that df can
# measure the disk it is on (and a df that still fails reports nothing
# rather than stopping the run).
mkdir -p "$cache"
free_mb() { { df -Pm "$cache" 2>/dev/null || true; } | awk 'NR==2 {print $4}'; }
# bg is the pid of the module running in the background (realkube)
# while it runs: the cache is not emptied under its build. bgstatus is
# its exit status once waited for.
bg=
bgstatus=0
roomy() {
  local free; free=$(free_mb)
  echo "=== disk: ${free:-?} MB free for the build cache ($cache)"
  if [ -n "$free" ] && [ "$free" -lt "${CTRLKIT_MIN_FREE_MB:-6144}" ]; then
    if [ -n "$bg" ] && kill -0 "$bg" 2>/dev/null; then
      echo "=== disk: under ${CTRLKIT_MIN_FREE_MB:-6144} MB free; waiting for ./realkube before emptying the build cache"
      wait "$bg" || bgstatus=$?
      bg=
    fi
    echo "=== disk: under ${CTRLKIT_MIN_FREE_MB:-6144} MB free; emptying the build cache"
    go clean -cache
    echo "=== disk: $(free_mb) MB free after"
  fi
}
# tidy fails when go.mod or go.sum would change under `go mod tidy`.
tidy() {
  if ! go mod tidy -diff >/dev/null; then
    echo "$1: go.mod or go.sum is not tidy; run 'go mod tidy' in $1:" >&2
    go mod tidy -diff >&2 || true
    return 1
  fi
}
# module checks and tests the module in directory $1 (extra arguments go
# to `go test`).
module() {
  local dir=$1 race=-race
  shift
  # vet with -race so that it reuses the dependencies the race-enabled
  # test build compiles (plain `go vet` would compile every dependency
  # twice). realkube builds a real kube-apiserver (k8s.io/kubernetes):
  # under the race detector its build would double and its start slow
  # down several times, and the ctrlkit code it exercises (kube.Client,
  # the manager) runs under -race in the kube module's tests against
  # ctrlkit's API.
  [ "$dir" = ./realkube ] && race=
  # Every benchmark runs once (-benchtime 1x) at a small size, so that
  # none of them rots: a benchmark that fails fails the run. They run in
  # the same `go test` as the tests, so that each module's test binaries
  # are built once (a second, race-free build of etcd, the CEL libraries,
  # client-go or the core module costs minutes on a cold cache): they are
  # small by default, and those that are large shrink themselves under
  # the race detector (the scheduler's scheduler_perf shapes, the bench
  # module's workloads).
  # -vet=off: `go vet` has just checked every package, tests included.
  # -ldflags=-w: no DWARF in the test binaries, which nothing here reads
  # (stack traces and profiles use the symbol table): linking the real
  # kube-apiserver's test binary takes 9 s instead of 28.
  (cd "$dir" && tidy "$dir" && go vet $race ./... &&
    go test $race -vet=off -ldflags=-w -shuffle="$seed" -timeout 25m -bench . -benchtime 1x "$@" ./...)
}
# realkube runs in the background, beside the other modules: its build
# (the real kube-apiserver, without -race) shares no compiled package
# with theirs (all -race), and the others leave a core idle a third of
# the time (tests that wait on servers, single packages' tails). Its
# output is printed when the others are done.
roomy
bglog=$(mktemp)
trap 'rm -f "$bglog"' EXIT
# An interrupted run stops the background module too.
trap 'trap - INT TERM; kill 0' INT TERM
echo "=== module ./realkube in the background (at ${SECONDS}s)"
{ module ./realkube "$@" > "$bglog" 2>&1; echo "=== module ./realkube done (at ${SECONDS}s)" >> "$bglog"; } &
bg=$!
for mod in $(find . -name go.mod -not -path '*/testdata/*' -not -path './realkube/*' | sort); do
  dir=$(dirname "$mod")
  roomy
  echo "=== module $dir (at ${SECONDS}s)"
  module "$dir" "$@" || status=1
done
if [ -n "$bg" ]; then
  echo "=== waiting for ./realkube (at ${SECONDS}s)"
  wait "$bg" || bgstatus=$?
fi
cat "$bglog"
[ "$bgstatus" -eq 0 ] || status=1
# CTRLKIT_FUZZTIME=30s adds a fuzzing run of the served API (its seed
# corpus runs with the tests above): any generated request that gets a
# 5xx other than 504, or panics, fails. It is not part of the default
# run: the fuzzing build instruments the API server's package and its
# dependencies afresh (over a minute on 2 cores for 30 s of fuzzing).
if [ -n "${CTRLKIT_FUZZTIME:-}" ]; then
  echo "=== fuzz FuzzServeHTTP ($CTRLKIT_FUZZTIME; at ${SECONDS}s)"
  go test -run '^$' -fuzz '^FuzzServeHTTP$' -fuzztime "$CTRLKIT_FUZZTIME" ./controllers/apiserver/ || status=1
fi
echo "=== done in ${SECONDS}s"
[ $status -eq 0 ] || echo "=== FAILED; replay the order with CTRLKIT_SHUFFLE=$seed ./scripts/test-all.sh" >&2
exit $status
