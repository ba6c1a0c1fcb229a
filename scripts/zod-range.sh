#!/usr/bin/env bash
# The zod range at both ends: the types, and the tests that run zod (schemas, request and response
# checks, workflow payload schemas, the README's examples), against the lowest version package.json
# allows and the newest 4.x on the registry; then the locked version is put back.
set -euo pipefail
cd "$(dirname "$0")/.."

range="$(node -p "require('./package.json').dependencies.zod")"
locked="$(node -p "require('./node_modules/zod/package.json').version")"
# `npm view` prints one version as a string and several as a list.
first_and_last='const v = JSON.parse(require("fs").readFileSync(0, "utf8")); const l = [v].flat(); console.log(l[0], l[l.length - 1])'
read -r lowest _ <<<"$(npm view "zod@$range" version --json | node -e "$first_and_last")"
read -r _ newest <<<"$(npm view 'zod@4' version --json | node -e "$first_and_last")"

restore() { npm install --no-save --no-audit --no-fund --loglevel=error "zod@$locked" >/dev/null; }
trap restore EXIT

for version in $(printf '%s\n' "$lowest" "$newest" | sort -u); do
  printf '\n::: zod %s (range %s; locked %s)\n' "$version" "$range" "$locked"
  npm install --no-save --no-audit --no-fund --loglevel=error "zod@$version" >/dev/null
  actual="$(node -p "require('./node_modules/zod/package.json').version")"
  [ "$actual" = "$version" ] || { echo "zod $actual installed instead of $version" >&2; exit 1; }
  npx tsc --noEmit -p .
  # The shared project leaves out deferred-schemas, which counts schema constructions through a hook
  # of zod's that older 4.x lack (it runs in the own-modules project: vitest.config.ts).
  npx vitest run --project shared test/schemas test/internal/request test/resources \
    test/security/prototype-pollution.test.ts test/testing/fake/sdk.test.ts test/client.test.ts test/readme
done
