#!/usr/bin/env node
// action-docs writes the inputs and outputs tables of docs/action.md (the
// Action's reference, linked from the README) from action.yml, so the
// documentation cannot drift from what the action accepts.
//
//   node scripts/action-docs.mjs            rewrite the tables in docs/action.md
//   node scripts/action-docs.mjs --check    exit 1, naming the difference, when docs/action.md is out of date
//
// The tables go between marker lines in docs/action.md:
//
//   <!-- action-docs:inputs -->  ...  <!-- action-docs:end -->
//   <!-- action-docs:outputs --> ...  <!-- action-docs:end -->
//
// Options --action FILE and --readme FILE read other files (default:
// action.yml and docs/action.md of the repository).
import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const END = '<!-- action-docs:end -->'

/** markdownText makes a description one table cell: one line, no cell breaks, no HTML. */
function markdownText(text) {
  return String(text ?? '')
    .trim()
    .replace(/\s+/g, ' ')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\|/g, '\\|')
}

/** code wraps a value in a code span that its own backticks cannot end. */
function code(value) {
  const text = String(value).replace(/\|/g, '\\|')
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length))
  const fence = '`'.repeat(longest + 1)
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : ''
  return `${fence}${pad}${text}${pad}${fence}`
}

/** inputsTable renders action.yml's inputs in the order they are declared. */
export function inputsTable(inputs) {
  const rows = ['| input | description | default |', '|---|---|---|']
  for (const [name, spec] of Object.entries(inputs ?? {})) {
    const required = spec?.required === true || spec?.required === 'true' ? ' (required)' : ''
    const fallback = spec?.default === undefined || spec.default === '' ? '' : code(spec.default)
    rows.push(`| ${code(name)}${required} | ${markdownText(spec?.description)} | ${fallback} |`)
  }
  return rows.join('\n')
}

/** outputsTable renders action.yml's outputs in the order they are declared. */
export function outputsTable(outputs) {
  const rows = ['| output | description |', '|---|---|']
  for (const [name, spec] of Object.entries(outputs ?? {})) {
    rows.push(`| ${code(name)} | ${markdownText(spec?.description)} |`)
  }
  return rows.join('\n')
}

/**
 * replaceSection puts body between the start marker and the next end
 * marker, and says so when the markers are missing.
 */
export function replaceSection(readme, section, body, readmeName = 'README.md') {
  const start = `<!-- action-docs:${section} -->`
  const from = readme.indexOf(start)
  if (from < 0) {
    throw new Error(`${readmeName} has no ${start} line. Put ${start} and ${END} on lines of their own where the ${section} table belongs.`)
  }
  const bodyFrom = from + start.length
  const to = readme.indexOf(END, bodyFrom)
  if (to < 0) throw new Error(`${readmeName}: ${start} is not followed by ${END}.`)
  const eol = readme.includes('\r\n') ? '\r\n' : '\n'
  return readme.slice(0, bodyFrom) + eol + eol + body.split('\n').join(eol) + eol + eol + readme.slice(to)
}

/** sectionText is what lies between a section's markers ('' when missing). */
function sectionText(readme, section) {
  const start = `<!-- action-docs:${section} -->`
  const from = readme.indexOf(start)
  if (from < 0) return ''
  const to = readme.indexOf(END, from)
  return readme.slice(from + start.length, to < 0 ? undefined : to)
}

/** describeDifference lists the lines only one side has, at most a few of each. */
function describeDifference(current, wanted) {
  const have = current.split(/\r?\n/).filter((l) => l.trim() !== '')
  const want = wanted.split(/\r?\n/).filter((l) => l.trim() !== '')
  const out = []
  const missing = want.filter((l) => !have.includes(l))
  const stale = have.filter((l) => !want.includes(l))
  for (const l of missing.slice(0, 5)) out.push(`  + ${l}`)
  if (missing.length > 5) out.push(`  + ... ${missing.length - 5} more`)
  for (const l of stale.slice(0, 5)) out.push(`  - ${l}`)
  if (stale.length > 5) out.push(`  - ... ${stale.length - 5} more`)
  if (out.length === 0) out.push('  (the same rows in another order or spacing)')
  return out.join('\n')
}

async function loadYaml() {
  try {
    return (await import('yaml')).default
  } catch {
    throw new Error("the 'yaml' package is not in node_modules: run npm ci (it comes with the dev dependencies).")
  }
}

function parseArgs(argv) {
  const args = { check: false, action: path.join(root, 'action.yml'), readme: path.join(root, 'docs', 'action.md') }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    if (arg === '--check') args.check = true
    else if (arg === '--action' || arg === '--readme') {
      if (i + 1 >= argv.length) throw new Error(`${arg} needs a file`)
      args[arg.slice(2)] = path.resolve(argv[++i])
    } else throw new Error(`unknown argument ${JSON.stringify(arg)}; usage: node scripts/action-docs.mjs [--check] [--action FILE] [--readme FILE]`)
  }
  return args
}

async function main(argv) {
  const args = parseArgs(argv)
  const YAML = await loadYaml()
  const action = YAML.parse(readFileSync(args.action, 'utf8'))
  if (!action || typeof action !== 'object') throw new Error(`${args.action} is not a YAML mapping`)
  const readmeName = path.relative(process.cwd(), args.readme) || args.readme
  const readme = readFileSync(args.readme, 'utf8')
  const tables = { inputs: inputsTable(action.inputs), outputs: outputsTable(action.outputs) }

  let wanted = readme
  for (const [section, table] of Object.entries(tables)) wanted = replaceSection(wanted, section, table, readmeName)

  if (!args.check) {
    if (wanted !== readme) writeFileSync(args.readme, wanted)
    console.log(wanted === readme ? `${readmeName} is up to date` : `${readmeName}: inputs and outputs tables rewritten from action.yml`)
    return 0
  }
  if (wanted === readme) {
    console.log(`${readmeName}: inputs and outputs tables match action.yml`)
    return 0
  }
  for (const section of Object.keys(tables)) {
    const current = sectionText(readme, section)
    const expected = sectionText(wanted, section)
    if (current !== expected) {
      console.error(`${readmeName}: the ${section} table differs from action.yml (+ missing from the page, - not in action.yml):`)
      console.error(describeDifference(current, expected))
    }
  }
  console.error(`Run \`npm run docs\` and commit ${readmeName}.`)
  return 1
}

// Run only as a command, so the functions above can be imported.
if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  try {
    process.exitCode = await main(process.argv.slice(2))
  } catch (error) {
    console.error(`action-docs: ${error instanceof Error ? error.message : String(error)}`)
    process.exitCode = 2
  }
}
