#!/usr/bin/env bash
# Runs every test of every module in this repository with the race detector:
# the core module and each nested module (etcd/, bench/, ...), after
# checking that each module's go.mod and go.sum are tidy.
# Extra arguments are passed to every `go test` (for example -count=1).
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
# tidy fails when go.mod or go.sum would change under `go mod tidy`.
tidy() {
  if ! go mod tidy -diff >/dev/null; then
    echo "$1: go.mod or go.sum is not tidy; run 'go mod tidy' in $1:" >&2
    go mod tidy -diff >&2 || true
    return 1
  fi
}
for mod in $(find . -name go.mod -not -path '*/testdata/*' | sort); do
  dir=$(dirname "$mod")
  echo "=== module $dir"
  # vet with -race so that it reuses the dependencies the race-enabled test
  # build compiles (plain `go vet` would compile every dependency twice).
  (cd "$dir" && tidy "$dir" && go vet -race ./... && go test -race -timeout 15m "$@" ./...) || status=1
done
exit $status
