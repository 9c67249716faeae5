import { describe, expect, it } from 'vitest'
import { escapeMarkdown } from '../src/markdown.js'
import { noBaselineReport } from '../src/main.js'

describe('escapeMarkdown', () => {
  it('neutralises HTML, mentions, links, tables, fences and bidirectional tricks', () => {
    const out = escapeMarkdown('<img src=x onerror=alert(1)> @octocat #1 | `code` [x](http://e.vil)\n## h\u202Eexe\u0000')
    for (const bad of ['<img', '@octocat', ' #1 ', ' | ', '`', '](http', '\n', '\u202E', '\u0000']) expect(out).not.toContain(bad)
    expect(out).toContain('&lt;img')
  })

  it('cuts long text', () => {
    expect(escapeMarkdown('y'.repeat(5000), 100)).toBe('y'.repeat(100) + '…')
  })
})

describe('noBaselineReport', () => {
  it('starts with the marker and escapes the reason', () => {
    const md = noBaselineReport('branch <b>@main</b> not found')
    expect(md.split('\n')[0]).toBe('<!-- perfgate:report -->')
    expect(md).toContain('### perfgate: no baseline')
    expect(md).toContain('&lt;b&gt;&#64;main&lt;/b&gt;')
  })
})
