/**
 * escapeMarkdown makes untrusted text (an error message from git or the
 * engine, a name from a payload) safe inside the comment or the job
 * summary: no HTML, no mentions or issue links, no Markdown structure, no
 * control characters, no format characters (Unicode category Cf: zero-width
 * spaces and joiners, bidirectional controls, the byte order mark, soft
 * hyphens; removed, so a name cannot look like another or read out of
 * order), one line, at most max visible characters. It follows the engine's
 * rules (engine/internal/render/escape.go).
 */
export function escapeMarkdown(text: string, max = 1200): string {
  let out = ''
  let n = 0
  for (const ch of text) {
    if (/\p{Cf}/u.test(ch)) continue
    if (n++ === max) {
      out += '…'
      break
    }
    if (ch === '\n' || ch === '\r' || ch === '\t') out += ' '
    // eslint-disable-next-line no-control-regex
    else if (/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/u.test(ch)) out += '\uFFFD'
    else if (ch === '&') out += '&amp;'
    else if (ch === '<') out += '&lt;'
    else if (ch === '>') out += '&gt;'
    else if (ch === '"') out += '&quot;'
    else if (ch === '@') out += '&#64;'
    else if (ch === '#') out += '&#35;'
    else if (ch === '|') out += '&#124;'
    else if (ch === '`') out += '&#96;'
    else if ('\\*_[]()~!{}+-.:=$^'.includes(ch)) out += `\\${ch}`
    else out += ch
  }
  return out
}
