// The layers of src/, checked by `npm run check:layers` (dependency-cruiser) in CI. Type-only imports
// count as imports: they are what a reader follows.
//
// From the top down: index.ts → client.ts → resources/ → internal/ → core/ and schemas/. Inside
// internal/, by job: pipeline/ (a call: request core, retries, rate limit, hooks, reading the
// result) over platform/ (Node or fetch) over transport/ (one attempt on the wire) over the leaf
// helpers: validation/ (zod), http/ (the wire's rules: headers, paths, base URL, response headers)
// and text/ (redaction, log lines, messages). core/ and schemas/ use the leaf helpers only.
// testing/ and otel/ sit beside the client: nothing in its graph imports them. testing/msw/ is an entry
// of its own too, the only one that loads msw: the rest of testing/ never imports it.

const INTERNAL = '^src/internal/'
const LEAF_HELPERS = '^src/internal/(validation|http|text)/'

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycle',
      comment: 'No import cycle, type-only imports included.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'below-the-resources',
      comment: 'internal/, core/ and schemas/ never import the resources, the client or the entry.',
      severity: 'error',
      from: { path: '^src/(internal|core|schemas)/' },
      to: { path: '^src/(resources/|client\\.ts$|index\\.ts$)' },
    },
    {
      name: 'resources-below-the-client',
      comment: 'Resources are built by the client and never import it or the entry.',
      severity: 'error',
      from: { path: '^src/resources/' },
      to: { path: '^src/(client|index)\\.ts$' },
    },
    {
      name: 'core-and-schemas-use-leaf-helpers-only',
      comment: 'The public types and the schemas sit under the pipeline, the transports and the platform.',
      severity: 'error',
      from: { path: '^src/(core|schemas)/' },
      to: { path: INTERNAL, pathNot: LEAF_HELPERS },
    },
    {
      name: 'leaf-helpers-are-leaves',
      comment: 'validation/, http/ and text/ import no other group of internal/.',
      severity: 'error',
      from: { path: LEAF_HELPERS },
      to: { path: INTERNAL, pathNot: LEAF_HELPERS },
    },
    {
      name: 'transport-below-platform-and-pipeline',
      severity: 'error',
      from: { path: '^src/internal/transport/' },
      to: { path: '^src/internal/(platform|pipeline)/' },
    },
    {
      name: 'platform-below-pipeline',
      severity: 'error',
      from: { path: '^src/internal/platform/' },
      to: { path: '^src/internal/pipeline/' },
    },
    {
      name: 'entries-beside-the-client',
      comment: 'notifykit/testing and notifykit/otel are entries of their own, outside the client graph.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(testing|otel)/' },
      to: { path: '^src/(testing|otel)/' },
    },
    {
      name: 'msw-plug-ins-apart',
      comment:
        'notifykit/testing/msw holds everything that loads msw or names its types: the rest of notifykit/testing never imports it.',
      severity: 'error',
      from: { path: '^src/testing/', pathNot: '^src/testing/msw/' },
      to: { path: '^src/testing/msw/' },
    },
  ],
  options: {
    includeOnly: '^src/',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
}
