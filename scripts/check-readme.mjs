#!/usr/bin/env node
// Every `ts` block of the README and of the guides (docs/*.md; not docs/api/, TypeDoc's output) compiles
// against the built package, as a user's project would compile it: strict, `node16` module resolution,
// no DOM lib, `notifykit` resolved through the package's own `exports` map to dist/. A line whose comment
// says `compile error` must fail to compile (the document promises it does); every other line must
// compile. All blocks of all documents are one TypeScript program, compiled once. Needs dist/ (npm run
// build). With `--exact-optional`, also under `exactOptionalPropertyTypes` and
// `noUncheckedIndexedAccess`, as the strictest projects compile.
//
// Also holds the README to its length: at most README_MAX_LINES lines, as `wc -l` counts them. The
// README is the ten-minute path; what does not fit goes to a guide in docs/.
//
// Every block stands alone, as a user copies it: it imports and declares every name it uses. No name is
// declared around the blocks (only the shapes of pino, winston and the OpenTelemetry Node SDK, which
// are not our dependencies, as the modules those packages are), so a block that uses an undeclared
// `client` fails here. The one exception is a block that says it is the next part of the example
// before it, with `<!-- continues the ts block above -->` and a blank line just above it: it is
// compiled as the end of that block's module.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

const repo = join(dirname(fileURLToPath(import.meta.url)), '..')
const README_MAX_LINES = 500
if (!existsSync(join(repo, 'dist/index.d.ts'))) {
  console.error('check-readme: dist/index.d.ts is missing: run `npm run build` first')
  process.exit(1)
}

// Inside the repository, so that `notifykit` resolves to the package itself (self-reference through
// `exports`) and zod, msw and vitest resolve from its node_modules; .tmp/ is git-ignored.
const work = join(repo, '.tmp/readme-blocks')
rmSync(work, { recursive: true, force: true })
mkdirSync(work, { recursive: true })

// The OpenTelemetry SDK for Node is not a dependency (its 2.x test packages are): the Observability
// setup needs only the shape of NodeSDK.
const SDK_NODE = `declare module '@opentelemetry/sdk-node' {
  export class NodeSDK {
    constructor(configuration?: { serviceName?: string })
    start(): void
  }
}
`

// pino and winston are not dependencies of ours; the logging examples need only the shape of their
// loggers, as their own type declarations give it (pino 10, winston 3).
const LOGGERS = `declare module 'pino' {
  interface LogFn {
    <T extends object>(object: T, message?: string, ...args: unknown[]): void
    (message: string, ...args: unknown[]): void
  }
  interface PinoLogger {
    debug: LogFn
    info: LogFn
    warn: LogFn
    error: LogFn
  }
  export default function pino(options?: { level?: string }): PinoLogger
}
declare module 'winston' {
  namespace winston {
    interface LeveledLogMethod {
      (message: string, ...meta: any[]): Logger
      (message: any): Logger
      (infoObject: object): Logger
    }
    interface Logger {
      error: LeveledLogMethod
      warn: LeveledLogMethod
      info: LeveledLogMethod
      debug: LeveledLogMethod
    }
    interface Format {}
    const format: { json(): Format }
    const transports: { Console: new () => object }
    function createLogger(options?: { level?: string; format?: Format; transports?: object[] }): Logger
  }
  export = winston
}
`

// The README, then the guides: docs/*.md only (docs/api/ is TypeDoc's output, and git-ignored).
const documents = [
  'README.md',
  ...readdirSync(join(repo, 'docs'), { withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.md'))
    .map((entry) => `docs/${entry.name}`)
    .sort(),
]

const CONTINUES = '<!-- continues the ts block above -->\n\n'
const problems = []
const blocks = []
for (const document of documents) {
  const text = readFileSync(join(repo, document), 'utf8')
  if (document === 'README.md') {
    // As `wc -l` counts: newline characters.
    const lines = text.split('\n').length - 1
    if (lines > README_MAX_LINES) {
      problems.push(
        `README.md: ${lines} lines, over its ${README_MAX_LINES}: move what a first-time user does not need to a guide in docs/`,
      )
    }
  }
  for (const match of text.matchAll(/^```ts\n([\s\S]*?)^```$/gm)) {
    const line = text.slice(0, match.index).split('\n').length + 1
    const name = `${document.replace(/\.md$/, '').replace(/[^A-Za-z0-9]+/g, '-')}-at-line-${line}.ts`
    const previous = blocks.at(-1)
    if (text.slice(0, match.index).endsWith(CONTINUES) && previous?.document === document) {
      // The previous block's module goes on: this block's lines come after its lines.
      const offset = previous.offset + previous.source.split('\n').length - 1
      blocks.push({ document, line, source: match[1], file: previous.file, offset })
    } else {
      blocks.push({ document, line, source: match[1], file: join(work, name), offset: 0 })
    }
  }
}
if (!blocks.some((block) => block.document === 'README.md')) {
  console.error('check-readme: no ts block found in README.md')
  process.exit(1)
}

writeFileSync(join(work, 'loggers.d.ts'), LOGGERS)
writeFileSync(join(work, 'sdk-node.d.ts'), SDK_NODE)
const modules = new Map()
for (const block of blocks) modules.set(block.file, (modules.get(block.file) ?? '') + block.source)
for (const [file, source] of modules) {
  // `export {}` makes every block a module of its own: nothing one declares is seen by another.
  writeFileSync(file, `${source}export {}\n`)
}

const program = ts.createProgram({
  rootNames: [join(work, 'loggers.d.ts'), join(work, 'sdk-node.d.ts'), ...modules.keys()],
  options: {
    strict: true,
    ...(process.argv.includes('--exact-optional')
      ? { exactOptionalPropertyTypes: true, noUncheckedIndexedAccess: true }
      : {}),
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.Node16,
    moduleResolution: ts.ModuleResolutionKind.Node16,
    lib: ['lib.es2022.d.ts'],
    types: ['node'],
    // msw's own declaration files need the DOM lib; ours are checked without it by the smoke tests.
    skipLibCheck: true,
    noEmit: true,
  },
})

const diagnostics = ts.getPreEmitDiagnostics(program)
const blockFiles = new Set(blocks.map((block) => block.file))
for (const diagnostic of diagnostics) {
  if (diagnostic.file === undefined || !blockFiles.has(diagnostic.file.fileName)) {
    problems.push(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'))
  }
}

let checkedLines = 0
for (const block of blocks) {
  const lines = block.source.split('\n')
  const failing = new Map()
  for (const diagnostic of diagnostics) {
    if (diagnostic.file?.fileName !== block.file || diagnostic.start === undefined) continue
    const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start)
    failing.set(line - block.offset, ts.flattenDiagnosticMessageText(diagnostic.messageText, ' '))
  }
  lines.forEach((text, index) => {
    if (text.trim() === '') return
    checkedLines++
    const promisedError = /\/\/.*\bcompile error\b/.test(text)
    const where = `${block.document}:${block.line + index}`
    if (promisedError && !failing.has(index))
      problems.push(`${where}: promised a compile error, compiles\n  ${text}`)
    if (!promisedError && failing.has(index)) problems.push(`${where}: ${failing.get(index)}\n  ${text}`)
  })
}

if (problems.length > 0) {
  console.error(`check-readme: ${problems.length} problem(s) in the README and the guides:\n`)
  for (const problem of problems) console.error(`${problem}\n`)
  process.exit(1)
}
console.log(
  `check-readme: ${blocks.length} ts blocks (${checkedLines} lines) of ${documents.length} documents compile as they say`,
)
