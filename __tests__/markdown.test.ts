import { describe, expect, it } from 'vitest'
import { escapeMarkdown } from '../src/markdown.js'
import { noBaselineReport } from '../src/main.js'

describe('escapeMarkdown', () => {
  it('neutralises HTML, mentions, links, tables, fences and bidirectional tricks', () => {
    const out = escapeMarkdown('<img src=x onerror=alert(1)> @octocat #1 | `code` [x](http://e.vil)\n## h\u202Eexe\u0000')
    for (const bad of ['<img', '@octocat', ' #1 ', ' | ', '`', '](http', '\n', '\u202E', '\u0000']) expect(out).not.toContain(bad)
    expect(out).toContain('&lt;img')
  })

  it('removes every format character (Unicode category Cf)', () => {
    const format = [
      '\u200B',
      '\u200C',
      '\u200D',
      '\u2060',
      '\uFEFF',
      '\u00AD',
      '\u200E',
      '\u200F',
      '\u061C',
      '\u202A',
      '\u202B',
      '\u202C',
      '\u202D',
      '\u202E',
      '\u2066',
      '\u2067',
      '\u2068',
      '\u2069',
      '\u{E0041}',
    ]
    for (const ch of format) {
      expect(ch).toMatch(/^\p{Cf}$/u)
      expect(escapeMarkdown(`main${ch}handle`)).toBe('mainhandle')
    }
    // Removed characters do not use up the limit.
    expect(escapeMarkdown('a\u200B'.repeat(10), 10)).toBe('a'.repeat(10))
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
