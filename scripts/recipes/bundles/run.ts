// `npm run test:bundles`: the recipes of docs/runtimes.md for bundles, tested as they are written.
//
// "A bundled Node function": the handler `npm run bench` bundles (bench/bundle.ts), bundled as one ES
// module by esbuild's command line with the guide's banner, as CommonJS, and by tsup with the guide's
// tsup.config.ts (read from the guide); a fresh Node process loads each bundle, with
// NOTIFYKIT_API_KEY and NOTIFYKIT_BASE_URL pointing at the fake service on 127.0.0.1, and calls the
// handler twice; the fake must have both triggers. undici's CommonJS calls `require('node:assert')`
// and the like, which an ES module bundle has no `require` for unless the recipe gives it one.
//
// "Running a Worker locally": the guide's worker.ts and run-worker.mts, read from the guide and run as
// it says (`tsx run-worker.mts`); it must print a 200 and one notification.
//
// Needs dist/ (npm run build). Exits 1 on a failure.
import { execFile, execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import { createFakeService } from 'notifykit/testing'
import { notifyKitHandler } from '../../../bench/bundle.js'

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..')
const work = join(repo, '.tmp', 'bundles')
const guide = readFileSync(join(repo, 'docs/runtimes.md'), 'utf8')
const API_KEY = 'bundle-recipe-key'
const failures: string[] = []

/** The banner of docs/runtimes.md, character for character. */
const BANNER = "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);"

/** The guide's ts block that starts with `// <name>`. */
function guideFile(name: string): string {
  const block = [...guide.matchAll(/^```ts\n([\s\S]*?)^```$/gm)]
    .map((match) => match[1] as string)
    .find((source) => source.startsWith(`// ${name}`))
  if (block === undefined) throw new Error(`docs/runtimes.md has no ts block for ${name}`)
  return block
}

/** The guide's tsup.config.ts, its entry this script's. */
function tsupConfig(): string {
  const config = guideFile('tsup.config.ts')
  const entry = "entry: ['src/handler.ts'],"
  if (!config.includes(entry)) throw new Error(`the guide's tsup.config.ts has no ${entry}`)
  return config.replace(entry, "entry: ['handler.mjs'],\n  outDir: 'out-tsup',")
}

const recipes: { name: string; bundle(): string }[] = [
  {
    name: 'esbuild, ES module with the createRequire banner',
    bundle() {
      esbuild('--format=esm', `--banner:js=${BANNER}`, '--outfile=out/handler.mjs')
      return join(work, 'out/handler.mjs')
    },
  },
  {
    name: 'esbuild, CommonJS',
    bundle() {
      esbuild('--format=cjs', '--outfile=out/handler.cjs')
      return join(work, 'out/handler.cjs')
    },
  },
  {
    name: 'tsup, ES module with the createRequire banner',
    bundle() {
      writeFileSync(join(work, 'tsup.config.ts'), tsupConfig())
      execFileSync(join(repo, 'node_modules/.bin/tsup'), ['--silent'], { cwd: work, stdio: 'inherit' })
      return join(work, 'out-tsup/handler.mjs')
    },
  },
]

function esbuild(...args: string[]): void {
  const common = ['handler.mjs', '--bundle', '--platform=node', '--target=node20', '--log-level=warning']
  execFileSync(join(repo, 'node_modules/.bin/esbuild'), [...common, ...args], { cwd: work, stdio: 'inherit' })
}

// The guide's esbuild commands, with this script's file names.
for (const flags of [
  '--bundle --platform=node --target=node20 --format=esm',
  `--banner:js="${BANNER}"`,
  '--bundle --platform=node --target=node20 --format=cjs',
]) {
  if (!guide.includes(flags)) failures.push(`docs/runtimes.md no longer shows the esbuild flags ${flags}`)
}

rmSync(work, { recursive: true, force: true })
mkdirSync(work, { recursive: true })
// An application of its own, with notifykit as its dependency (tsup leaves a dependency out of the
// bundle unless told otherwise) installed as a link to this package; and a tsconfig of its own: the
// repository's maps `notifykit` to src/, a user's does not.
writeFileSync(join(work, 'package.json'), '{ "private": true, "dependencies": { "notifykit": "*" } }\n')
writeFileSync(join(work, 'tsconfig.json'), '{}\n')
mkdirSync(join(work, 'node_modules'))
symlinkSync(repo, join(work, 'node_modules', 'notifykit'), 'dir')
writeFileSync(join(work, 'handler.mjs'), `${notifyKitHandler('notifykit')}\n`)

const fake = createFakeService({
  apiKey: API_KEY,
  workflows: [{ identifier: 'order-shipped', steps: [{ type: 'in_app' }] }],
})
const server = await fake.listen()
try {
  for (const recipe of recipes) {
    fake.reset()
    try {
      const file = recipe.bundle()
      const bundle = readFileSync(file, 'utf8')
      if (/(from|require\()\s*["'](notifykit|undici|zod)/.test(bundle))
        throw new Error('the bundle imports notifykit, undici or zod instead of holding them')
      const script = `const { handler } = await import(${JSON.stringify(pathToFileURL(file).href)})
for (const userId of ['user-1', 'user-2']) {
  const result = await handler({ userId, orderId: 'o-42' })
  if (!result.acknowledged) throw new Error('not acknowledged: ' + JSON.stringify(result))
}
process.exit(0)`
      // Not synchronous: the fake answers from this process.
      await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
        cwd: work,
        env: { PATH: process.env.PATH, NOTIFYKIT_API_KEY: API_KEY, NOTIFYKIT_BASE_URL: server.baseUrl },
        timeout: 30_000,
      })
      const sent = fake.notifications.map((notification) => notification.subscriber?.subscriberId)
      if (sent.join() !== 'user-1,user-2') throw new Error(`the fake got ${JSON.stringify(sent)}`)
      console.log(`ok   ${recipe.name}: ${(bundle.length / 1024).toFixed(0)} KB, 2 triggers received`)
    } catch (error) {
      const stderr = (error as { stderr?: string }).stderr?.trim()
      failures.push(`${recipe.name}: ${stderr || (error as Error).message}`)
      console.log(`FAIL ${recipe.name}`)
    }
  }
} finally {
  await server.close()
}

try {
  const dir = join(work, 'worker')
  mkdirSync(dir)
  writeFileSync(join(dir, 'worker.ts'), guideFile('worker.ts'))
  writeFileSync(join(dir, 'run-worker.mts'), guideFile('run-worker.mts'))
  const { stdout } = await promisify(execFile)(join(repo, 'node_modules/.bin/tsx'), ['run-worker.mts'], {
    cwd: dir,
    timeout: 60_000,
  })
  if (!/^200 [\s\S]*acknowledged: true[\s\S]* 1\n$/.test(stdout)) throw new Error(`it printed ${stdout}`)
  console.log('ok   the Worker in miniflare against the fake: 200, 1 notification')
} catch (error) {
  const stderr = (error as { stderr?: string }).stderr?.trim()
  failures.push(`the Worker in miniflare: ${stderr || (error as Error).message}`)
  console.log('FAIL the Worker in miniflare')
}
if (failures.length > 0) {
  console.error(`\n${failures.join('\n\n')}`)
  process.exit(1)
}
