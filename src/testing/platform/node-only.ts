import { NotifyKitError } from '../../core/errors.js'

/**
 * What a Node-only plug-in throws in the portable build (see ./fetch.ts): what it needs, and that
 * `fake.fetch` works everywhere.
 *
 * @param feature The plug-in, as the user wrote it.
 * @param needs What it needs that the portable build does not load.
 * @param entry The entry the user imported it from.
 */
export function nodeOnly(feature: string, needs: string, entry = 'notifykit/testing'): NotifyKitError {
  return new NotifyKitError(
    `${feature} needs Node (${needs}), which this build of ${entry}, for runtimes without Node sockets, does not load: use fake.fetch, which works everywhere (new NotificationClient({ fetch: fake.fetch }))`,
  )
}
