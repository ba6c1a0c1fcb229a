// What the SDK may learn of the runtime it runs in, without touching a Node-only global: the portable
// build runs where `process` is missing (workerd, edge) or guarded by permissions (Deno).

interface RuntimeGlobals {
  Bun?: { version?: string }
  Deno?: { version?: { deno?: string } }
  EdgeRuntime?: unknown
  navigator?: { userAgent?: string }
  process?: { versions?: { node?: string }; env?: Record<string, string | undefined> }
  document?: unknown
  window?: unknown
}

const runtimeGlobals = globalThis as RuntimeGlobals

/** `node/v20.18.1`, `bun/1.4.4`, `deno/2.9.6`, `workerd`, `edge-runtime`: the runtime part of the user-agent. */
export function runtimeName(): string {
  const { Bun, Deno, EdgeRuntime, navigator, process } = runtimeGlobals
  // Bun and Deno also provide `process.versions.node` for compatibility: ask for them first.
  if (Bun?.version) return `bun/${Bun.version}`
  if (Deno?.version?.deno) return `deno/${Deno.version.deno}`
  if (typeof EdgeRuntime === 'string') return 'edge-runtime'
  if (navigator?.userAgent === 'Cloudflare-Workers') return 'workerd'
  if (process?.versions?.node) return `node/v${process.versions.node}`
  return 'unknown-runtime'
}

/**
 * One environment variable, or `undefined` where the runtime has no environment (workerd, edge) or
 * forbids reading it (Deno without `--allow-env` throws `NotCapable`): a missing permission means "not
 * set", never a crash at construction.
 */
export function readEnv(name: string): string | undefined {
  try {
    const value = runtimeGlobals.process?.env?.[name]
    return typeof value === 'string' ? value : undefined
  } catch {
    return undefined
  }
}

/** A page in a browser, where anything the SDK holds (the API key) is readable by every visitor. */
export function isBrowser(): boolean {
  return typeof runtimeGlobals.window !== 'undefined' && typeof runtimeGlobals.document !== 'undefined'
}
