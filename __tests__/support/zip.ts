/** claimSize rewrites an entry's uncompressed size in the zip's central directory: a lying archive. */
export function claimSize(zip: Uint8Array, name: string, size: number): Uint8Array {
  const out = zip.slice()
  const view = new DataView(out.buffer)
  for (let i = 0; i + 46 < out.length; i++) {
    if (view.getUint32(i, true) !== 0x02014b50) continue
    const nameLength = view.getUint16(i + 28, true)
    if (new TextDecoder().decode(out.subarray(i + 46, i + 46 + nameLength)) === name) view.setUint32(i + 24, size, true)
  }
  return out
}
