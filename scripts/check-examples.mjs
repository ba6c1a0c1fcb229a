#!/usr/bin/env node
// Every public method, function and option of the API reference must carry an `@example`: the
// reference is where users land from their editor, and an example answers most questions there.
// Reads the TypeDoc JSON written by `npm run docs` (docs/api/api.json) and lists what lacks one.
import { readFileSync } from 'node:fs'

const KIND = {
  Function: 64,
  Class: 128,
  Interface: 256,
  Property: 1024,
  Method: 2048,
  Accessor: 262144,
}

// Promise and serialization protocol methods: what they do is fixed by the language, not by us.
const PROTOCOL_METHODS = new Set([
  'then',
  'catch',
  'finally',
  'toJSON',
  '[nodejs.util.inspect.custom]',
  '[toStringTag]',
])

// Interfaces that users implement rather than call: one example of a whole implementation, on the
// interface, says more than one per method.
const IMPLEMENTED_BY_USERS = new Set(['Logger'])

const path = process.argv[2] ?? 'docs/api/api.json'
let project
try {
  project = JSON.parse(readFileSync(path, 'utf8'))
} catch (error) {
  console.error(`Cannot read ${path} (${error.message}): run \`npm run docs\` first`)
  process.exit(1)
}

const hasExample = (comment) => Boolean(comment?.blockTags?.some((tag) => tag.tag === '@example'))
// Methods with several overloads need the example on at least one of them.
const documented = (reflection) =>
  hasExample(reflection.comment) ||
  (reflection.signatures ?? []).some((signature) => hasExample(signature.comment)) ||
  hasExample(reflection.getSignature?.comment)
// Members written elsewhere (Error, undici's Dispatcher) are documented where they are written.
const ownMember = (member) => !member.inheritedFrom && !member.overwrites && !member.implementationOf

const missing = []
let checked = 0
function check(reflection, label) {
  checked++
  if (!documented(reflection)) missing.push(label)
}

for (const module of project.children ?? []) {
  for (const item of module.children ?? []) {
    const where = `${module.name}.${item.name}`
    if (item.kind === KIND.Function) check(item, `function ${where}`)
    // Classes exported as types only (the resources) are interfaces to TypeDoc: same rule.
    if (IMPLEMENTED_BY_USERS.has(item.name)) {
      check(item, `interface ${where}`)
    } else if (item.kind === KIND.Class || item.kind === KIND.Interface) {
      for (const member of item.children ?? []) {
        if (!ownMember(member) || member.flags?.isPrivate || member.flags?.isProtected) continue
        if (PROTOCOL_METHODS.has(member.name)) continue
        if (member.kind === KIND.Method || member.kind === KIND.Accessor) {
          check(member, `method ${where}${member.flags?.isStatic ? '.' : '#'}${member.name}`)
        }
      }
    }
    if (item.kind === KIND.Interface && item.name.endsWith('Options')) {
      for (const member of item.children ?? []) {
        if (member.kind === KIND.Property && ownMember(member))
          check(member, `option ${where}.${member.name}`)
      }
    }
  }
}

if (checked === 0) {
  console.error(`No public method or option found in ${path}: is it TypeDoc's JSON output?`)
  process.exit(1)
}
if (missing.length > 0) {
  console.error(`${missing.length} of ${checked} public methods and options have no @example:`)
  for (const label of missing) console.error(`  ${label}`)
  process.exit(1)
}
console.log(`check-examples: all ${checked} public methods, functions and options have an @example`)
