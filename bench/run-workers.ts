// `npm run bench:workers` (add `--quick` for fewer rounds): the Cloudflare Worker section of
// `npm run bench` on its own.
import { ensureDist, log, root } from './harness.js'
import { measureWorkers, workersTable } from './workers.js'

const rounds = process.argv.includes('--quick') ? 5 : 15
ensureDist(!process.argv.includes('--no-build'))
log(`Workers: bundle sizes, then ${rounds} rounds of workerd starts`)
process.stdout.write(`\n${workersTable(await measureWorkers(root, rounds))}\n`)
