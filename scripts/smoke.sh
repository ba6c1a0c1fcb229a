#!/usr/bin/env bash
# Smoke test of the package as npm users get it: `npm pack`, then install the tarball into a fresh
# project outside the repo (no workspace link) and use it the ways real projects do:
#   - require() from CommonJS and import from ESM, every entry;
#   - `notifykit` alone with msw absent: it loads, reads no env var, leaves no handle;
#   - TypeScript consumers compiled with moduleResolution node16 (ESM and CJS, then run) and bundler,
#     lib ES2022 without DOM, types ["node"], skipLibCheck false: no error at all, msw installed; a
#     consumer of notifykit/testing/msw, where only msw's own types may fail (they need lib DOM);
#   - an esbuild bundle (platform node) of a serverless handler, zod inside, run against the fake service on
#     127.0.0.1;
#   - the `notifykit` bin: `npx notifykit fake --port 0` starts, answers, prints and stops (then the
#     same bin under each Node version).
# Every run-time check runs on each Node version of SMOKE_NODE_VERSIONS ("current" is the node
# running this script; others come from the `node` package through npx): by default 20.18.1, the
# `engines` floor, as well as 22 and 24. On a Node without require(esm) (before 20.19), the CommonJS
# check expects `require('notifykit/testing/msw')` to fail on msw's CommonJS build, saying so, and
# nothing else to fail; the ES module import of notifykit/testing/msw works there.
#
# Needs dist/ (npm run build). SMOKE_KEEP=1 keeps the temporary project for inspection.
set -euo pipefail

REPO="$(cd "$(dirname "$0")/.." && pwd)"
NODE_VERSIONS="${SMOKE_NODE_VERSIONS:-current 20.18.1 22 24}"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/notifykit-smoke.XXXXXX")"
APP="$WORK/app"
if [ "${SMOKE_KEEP:-}" = 1 ]; then
  trap 'echo "kept: $WORK"' EXIT
else
  trap 'rm -rf "$WORK"' EXIT
fi

started=$SECONDS
step() { printf '\n== %s (at %ss)\n' "$*" "$((SECONDS - started))"; }
ok() { printf '  ok    %s\n' "$*"; }
fail() {
  printf '  FAIL  %s\n' "$*" >&2
  exit 1
}
# Runs a command quietly; prints its output only when it fails.
quiet() {
  local log="$WORK/last.log"
  if ! "$@" >"$log" 2>&1; then
    cat "$log" >&2
    fail "$*"
  fi
}
dev_version() { node -p "require('$REPO/node_modules/$1/package.json').version"; }

[ -f "$REPO/dist/index.js" ] && [ -f "$REPO/dist/testing.cjs" ] || fail 'dist/ is missing: run npm run build first'

step 'pack'
tarball="$(cd "$REPO" && npm pack --pack-destination "$WORK" --json 2>/dev/null | node -e '
  let text = ""; process.stdin.on("data", (c) => (text += c)).on("end", () => console.log(JSON.parse(text)[0].filename))')"
tarball="$WORK/$tarball"
[ -f "$tarball" ] || fail "npm pack produced no tarball"
mkdir "$WORK/unpacked"
tar -xzf "$tarball" -C "$WORK/unpacked"
files="$(cd "$WORK/unpacked/package" && find . -type f | sed 's|^\./||' | sort)"
for required in package.json dist/index.js dist/index.cjs dist/index.d.ts dist/index.d.cts \
  dist/testing.js dist/testing.cjs dist/testing.d.ts dist/testing.d.cts \
  dist/testing/msw.js dist/testing/msw.cjs dist/testing/msw.d.ts dist/testing/msw.d.cts dist/cli.js; do
  grep -qx "$required" <<<"$files" || fail "the tarball lacks $required"
done
unexpected="$(grep -Ev '^(dist/|docs/[^/]+\.md$|package\.json$|README\.md$|LICENSE$|CHANGELOG\.md$|SECURITY\.md$)' <<<"$files" || true)"
[ -z "$unexpected" ] || fail "the tarball holds files users do not need: $unexpected"
# A mention in the documentation is fine; an import or require of msw is not, but in notifykit/testing/msw.
for entry in index testing; do
  if (cd "$WORK/unpacked/package/dist" && grep -lE "(from|import|require)\(? *['\"]msw" \
    "$entry.js" "$entry.cjs" "$entry.d.ts" "$entry.d.cts" "portable/$entry.js"); then
    fail "dist/$entry loads msw or names its types"
  fi
done
ok "$(basename "$tarball"): $(wc -l <<<"$files") files, $(du -k "$tarball" | cut -f1) KiB; notifykit and notifykit/testing free of msw imports"

step 'install the tarball into a temporary project'
mkdir "$APP"
cd "$APP"
echo '{ "name": "notifykit-smoke-app", "version": "0.0.0", "private": true }' >package.json
quiet npm install --no-audit --no-fund --prefer-offline --loglevel=error "$tarball" undici zod msw \
  "typescript@$(dev_version typescript)" "@types/node@$(dev_version @types/node)" "esbuild@$(dev_version esbuild)"
[ -L node_modules/notifykit ] && fail 'node_modules/notifykit is a link, not an install'
installed="$(node -p "['notifykit','undici','zod','msw'].map((n) => n + '@' + require('./node_modules/' + n + '/package.json').version).join(' ')")"
ok "$installed"
cp "$REPO"/scripts/smoke/*.cjs "$REPO"/scripts/smoke/*.mjs .
cp -R "$REPO/scripts/smoke/ts" ts

step 'TypeScript consumers (lib ES2022, no DOM, types [node], skipLibCheck false)'
MSW_TYPES='msw,@mswjs/interceptors,rettime'
for args in 'ts/tsconfig.bundler.json' 'ts/tsconfig.node16.json' "ts/tsconfig.msw.json --allow-errors-in $MSW_TYPES"; do
  # shellcheck disable=SC2086 # the arguments are split on purpose
  report="$(node tsc-check.mjs $args 2>&1)" || {
    printf '%s\n' "$report" >&2
    fail "tsc -p $args"
  }
  ok "$report"
done

step 'esbuild bundle of a serverless handler (platform node, CommonJS)'
quiet npx esbuild handler.mjs --bundle --platform=node --target=node20 --format=cjs \
  --outfile=out/handler.cjs --log-level=warning
ok "out/handler.cjs, $(du -k out/handler.cjs | cut -f1) KiB"

# Each check prints one line describing what it verified.
run_check() {
  local node_bin="$1" label="$2"
  shift 2
  local output
  if ! output="$("$node_bin" "$@" 2>&1)"; then
    printf '%s\n' "$output" >&2
    fail "[$label] $*"
  fi
  ok "[$label] $(tail -n 1 <<<"$output")"
}

declare -A NODE_BINS=()
for version in $NODE_VERSIONS; do
  if [ "$version" = current ]; then
    NODE_BINS[$version]="$(command -v node)"
  else
    NODE_BINS[$version]="$(npx -y "node@$version" -p process.execPath 2>/dev/null)" ||
      fail "could not get node@$version through npx"
  fi
done

for version in $NODE_VERSIONS; do
  bin="${NODE_BINS[$version]}"
  label="node $("$bin" --version)"
  step "run on $label"
  run_check "$bin" "$label" cjs.cjs
  run_check "$bin" "$label" esm.mjs
  run_check "$bin" "$label" ts/out/consumer.mjs
  run_check "$bin" "$label" ts/out/consumer.cjs
  run_check "$bin" "$label" ts/out/consumer.msw.mjs
  run_check "$bin" "$label" run-handler.mjs "$APP/out/handler.cjs"
  run_check "$bin" "$label" cli-fake.mjs "$bin" node_modules/.bin/notifykit
done

step 'npx notifykit fake'
run_check node "node $(node --version)" cli-fake.mjs npx --no-install notifykit

step 'notifykit without msw installed'
mv node_modules/msw "$WORK/msw-hidden"
for version in $NODE_VERSIONS; do
  bin="${NODE_BINS[$version]}"
  label="node $("$bin" --version)"
  run_check "$bin" "$label" main-only.cjs
  run_check "$bin" "$label" main-only.mjs
done

printf '\nsmoke: all checks passed on %s in %ss\n' "$NODE_VERSIONS" "$((SECONDS - started))"
