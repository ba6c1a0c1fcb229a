// Runs tsc on a project and fails on any error, except errors located inside the type files of the
// packages named by --allow-errors-in (msw's own .d.ts files need lib DOM and import an ESM-only
// package from CommonJS typings). Our .d.ts files are checked in full: skipLibCheck stays false.
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'

const [project, flag, list = ''] = process.argv.slice(2)
const allowed = flag === '--allow-errors-in' ? list.split(',').filter(Boolean) : []
const tsc = createRequire(`${process.cwd()}/`).resolve('typescript/bin/tsc')
const result = spawnSync(process.execPath, [tsc, '-p', project, '--pretty', 'false'], { encoding: 'utf8' })
if (result.error) throw result.error

const errors = []
for (const line of result.stdout.split('\n')) {
  const match = /^(.+?)\(\d+,\d+\): error (TS\d+): (.*)$/.exec(line)
  if (match) errors.push({ file: match[1], code: match[2], text: line })
}
const ownedBy = (file) => allowed.find((name) => file.startsWith(`node_modules/${name}/`))
const blocking = errors.filter((error) => !ownedBy(error.file))
if (blocking.length > 0 || (errors.length === 0 && result.status !== 0)) {
  console.error(blocking.length > 0 ? blocking.map((error) => error.text).join('\n') : result.stdout)
  process.exit(1)
}
const ignored = errors.length - blocking.length
const missingNames = [...new Set(errors.map((error) => /Cannot find name '(\w+)'/.exec(error.text)?.[1]))]
  .filter(Boolean)
  .sort()
console.log(
  ignored === 0
    ? `${project}: no errors`
    : `${project}: no errors in our types; ${ignored} inside ${allowed.join(', ')} ignored ` +
        `(DOM names they need: ${missingNames.join(', ')})`,
)
