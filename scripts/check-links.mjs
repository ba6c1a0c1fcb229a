#!/usr/bin/env node
// Every link in a file the package ships resolves inside the package: a user reading the README or a
// guide from node_modules, or on the npm page, has only what `npm pack` puts in the tarball. The files
// are those `npm pack --dry-run --json` lists (package.json's `files`, so dist/ must be built). A
// relative link must name a packed file, and its `#fragment` a heading of that file (GitHub's anchors);
// an absolute link (https:, mailto:) is left alone. Markdown files and the type declarations (TSDoc
// may hold markdown links) are read.
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { dirname, join, normalize } from 'node:path'
import { fileURLToPath } from 'node:url'

const repo = join(dirname(fileURLToPath(import.meta.url)), '..')
const [pack] = JSON.parse(
  execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: repo, encoding: 'utf8' }),
)
const packed = new Set(pack.files.map((file) => file.path))
if (!packed.has('dist/index.d.ts')) {
  console.error('check-links: dist/ is not in the packed files: run `npm run build` first')
  process.exit(1)
}

const read = (path) => readFileSync(join(repo, path), 'utf8')
const anchorsOf = new Map()
/** GitHub's heading anchors: lower case, punctuation dropped, spaces to `-`, repeats numbered. */
function anchors(path) {
  if (!anchorsOf.has(path)) {
    const seen = new Map()
    const found = new Set()
    const text = read(path).replace(/^```[\s\S]*?^```$/gm, '')
    for (const [, heading] of text.matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
      const base = heading
        .replace(/`/g, '')
        .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, '')
        .replace(/\s/g, '-')
      const count = seen.get(base) ?? 0
      seen.set(base, count + 1)
      found.add(count === 0 ? base : `${base}-${count}`)
    }
    anchorsOf.set(path, found)
  }
  return anchorsOf.get(path)
}

/** Markdown links `[text](target)` and `[label]: target`, outside code blocks and code spans. */
function linksIn(text) {
  const prose = text.replace(/^```[\s\S]*?^```$/gm, '').replace(/`[^`\n]*`/g, '')
  return [
    ...[...prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((match) => match[1]),
    ...[...prose.matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/gm)].map((match) => match[1]),
  ]
}

const problems = []
const checked = [...packed].filter(
  (path) => path.endsWith('.md') || path.endsWith('.d.ts') || path.endsWith('.d.cts'),
)
let count = 0
for (const file of checked) {
  // In type declarations, only the TSDoc comments are prose.
  const text = file.endsWith('.md') ? read(file) : (read(file).match(/\/\*\*[\s\S]*?\*\//g) ?? []).join('\n')
  for (const link of linksIn(text)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue
    count++
    const [target, fragment] = link.split('#')
    const path =
      target === '' ? file : normalize(join(dirname(file), decodeURI(target))).replaceAll('\\', '/')
    if (!packed.has(path)) {
      problems.push(`${file}: ${link}: ${path} is not in the package`)
    } else if (fragment !== undefined && path.endsWith('.md') && !anchors(path).has(fragment)) {
      problems.push(`${file}: ${link}: ${path} has no heading #${fragment}`)
    }
  }
}

if (problems.length > 0) {
  console.error(
    `check-links: ${problems.length} link(s) in the packed files resolve to nothing in the package:\n`,
  )
  for (const problem of problems) console.error(problem)
  process.exit(1)
}
console.log(`check-links: ${count} relative links of ${checked.length} packed files resolve in the package`)
