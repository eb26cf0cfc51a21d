#!/usr/bin/env bash
# Runs every test of every module in this repository with the race detector:
# the core module and each nested module (etcd/, bench/, ...).
# Extra arguments are passed to every `go test` (for example -count=1).
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
for mod in $(find . -name go.mod -not -path '*/testdata/*' | sort); do
  dir=$(dirname "$mod")
  echo "=== module $dir"
  (cd "$dir" && go vet ./... && go test -race -timeout 15m "$@" ./...) || status=1
done
exit $status
