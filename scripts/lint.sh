#!/usr/bin/env bash
# Linters, all pinned: golangci-lint from scripts/tools/golangci-lint/go.mod (.golangci.yml) over
# the engine and the example service (its govet runs go vet's own
# analyzers, so scripts/test.sh runs no separate go vet there); eslint (eslint.config.js) and
# prettier (.prettierrc.json) over the Action's src/ and __tests__/.
# Needs Go and node_modules (npm install); scripts/test.sh runs it.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

# go tool -n builds the pinned golangci-lint once (cached by Go) and prints
# its path, so the engine's own module is linted with its own go.mod.
# Static and -trimpath, the tool and the analysis, as perfgate, the
# end-to-end tests and the example services are built (scripts/test.sh,
# engine/internal/build): golangci-lint reads the dependencies' types from
# compiled export data, which then come from the build cache those filled
# (client-go's hundreds of packages among them) instead of a variant of
# their own. The engine's lint after its build, alone, from an empty
# golangci-lint cache: 30 s, against 97 s without (2026-12-07). The
# reported paths are the source's either way.
export CGO_ENABLED=0 GOFLAGS="${GOFLAGS:+$GOFLAGS }-trimpath"
golangci_lint=$(go -C "$root/scripts/tools/golangci-lint" tool -n golangci-lint)
for module in engine examples/service; do
  (cd "$root/$module" && "$golangci_lint" run --config "$root/.golangci.yml" ./...)
done

cd "$root"
npx --no-install eslint --max-warnings 0 src __tests__
npx --no-install prettier --check --log-level warn src __tests__
echo "lint: golangci-lint, eslint and prettier found nothing"
