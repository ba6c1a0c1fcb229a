// Node, Bun and Deno: the scenario's config as the first argument, its report as JSON on stdout.
import type { ScenarioConfig } from '../protocol.js'
import { runScenario } from '../scenario.js'

interface CliGlobals {
  Deno?: { args: string[] }
  process?: { argv: string[] }
}

// Deno with `--allow-net` alone: `Deno.args` needs no permission, and `process` is not touched.
const { Deno, process } = globalThis as CliGlobals
const argument = Deno ? Deno.args[0] : process?.argv[2]
if (argument === undefined) throw new Error('usage: cli.mjs <scenario config as JSON>')
const report = await runScenario(JSON.parse(argument) as ScenarioConfig)
console.log(JSON.stringify(report))
