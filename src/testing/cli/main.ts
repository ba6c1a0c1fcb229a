#!/usr/bin/env node
// The `notifykit` command (package.json `bin`). One subcommand: `notifykit fake`.
import { VERSION } from '../../version.js'
import { parseCommand } from './args.js'
import { startFake } from './fake-command.js'
import { SeedsFileError } from './seeds-file.js'

async function main(): Promise<number> {
  const command = parseCommand(process.argv.slice(2), process.env)
  switch (command.kind) {
    case 'help':
      console.log(command.text)
      return 0
    case 'version':
      console.log(VERSION)
      return 0
    case 'error':
      console.error(`notifykit: ${command.message}\nRun \`notifykit --help\` for the options.`)
      return 2
    case 'fake':
      break
  }
  let fake: Awaited<ReturnType<typeof startFake>>
  try {
    fake = await startFake(command.options, (line) => process.stdout.write(`${line}\n`))
  } catch (error) {
    const reason =
      error instanceof SeedsFileError
        ? error.message
        : (error as NodeJS.ErrnoException).code === 'EADDRINUSE'
          ? `port ${command.options.port} is in use on ${command.options.host}; pick another with --port (0 for any free one)`
          : String((error as Error)?.message ?? error)
    console.error(`notifykit fake: ${reason}`)
    return 1
  }
  process.on('SIGHUP', () => fake.reset('SIGHUP'))
  return new Promise<number>((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      // A second Ctrl-C while connections drain ends at once.
      process.once(signal, () => resolve(130))
      fake.stop(signal).then(
        () => resolve(0),
        () => resolve(1),
      )
    }
    process.once('SIGINT', stop)
    process.once('SIGTERM', stop)
    // Only now: a script that reads this line may signal the process at once.
    fake.announce()
  })
}

main().then((code) => process.exit(code))
