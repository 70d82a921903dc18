'use strict'
// A request as UTF-8 JSON text, written into one reusable byte buffer that the addon reads in
// place: no JS string is built, flattened or converted to UTF-8 on the way.

const OBJECT_PROTOTYPE = Object.prototype
const hasOwn = Object.prototype.hasOwnProperty

/** Nesting (counting the request) past which a value is left to the addon's own walk. */
const TEXT_DEPTH = 32
/** The most bytes of request text written: the addon's request limit (1 MiB). */
const TEXT_BYTES = 1 << 20
/** A buffer grown past this for one large request is dropped after it. */
const KEEP_BYTES = 1 << 16

/** The buffer the text is written into (`requestBytes` hands it out). */
let buffer = new Uint8Array(1024)
/** `buffer` as a `DataView`, to write constants four bytes at a time. */
let view = new DataView(buffer.buffer)
/** True while a request is being written: a getter that decides again must not overwrite it. */
let writing = false

/** `s`'s characters as bytes (for ASCII constants). */
function ascii(s) {
  return Uint8Array.from(s, (c) => c.charCodeAt(0))
}

const NULL = ascii('null')
const TRUE = ascii('true')
const FALSE = ascii('false')
/**
 * The ASCII text `s` as little-endian 32-bit words (the last one padded with zeros), for
 * `putWords`: a field's key costs a few word stores instead of a store per byte.
 */
function words(s) {
  const w = new Int32Array(Math.ceil(s.length / 4))
  for (let i = 0; i < s.length; i++) w[i >> 2] |= s.charCodeAt(i) << (8 * (i & 3))
  return { length: s.length, w }
}

const KEY_ID = words(',"tool_use_id":')
const KEY_AGENT = words(',"agent":')
const KEY_TOOL = words(',"tool":')
const KEY_SERVER = words(',"server":')
const KEY_ARGS = words(',"args":')
const KEY_PERMISSIONS = words(',"permissions":')
const HEX = ascii('0123456789abcdef')

/** Makes room for `need` bytes in all; false past `TEXT_BYTES`. */
function grow(need) {
  if (need > TEXT_BYTES) return false
  let size = buffer.length * 2
  while (size < need) size *= 2
  const bigger = new Uint8Array(size)
  bigger.set(buffer)
  buffer = bigger
  view = new DataView(buffer.buffer)
  return true
}

/** Writes `bytes` at `at` (after its first byte when `skip`); the end, or -1 past the limit. */
function put(bytes, at, skip) {
  const n = bytes.length
  if (at + n > buffer.length && !grow(at + n)) return -1
  const b = buffer
  for (let i = skip ? 1 : 0; i < n; i++) b[at++] = bytes[i]
  return at
}

/**
 * Writes the constant `k` (made by `words`) at `at`: the end, or -1 past the limit. The last
 * word's padding lands past the end, where the next write (or nothing the addon reads) goes.
 */
function putWords(k, at) {
  const n = k.length
  if (at + n + 3 > buffer.length && !grow(at + n + 3)) return -1
  const v = view
  const w = k.w
  for (let i = 0; i < w.length; i++) v.setInt32(at + 4 * i, w[i], true)
  return at + n
}

/** Writes one byte at `at`; the end, or -1 past the limit. */
function put1(c, at) {
  if (at >= buffer.length && !grow(at + 1)) return -1
  buffer[at] = c
  return at + 1
}

/**
 * Writes `s` as a JSON string at `at`: the end, or -1 when `s` holds a lone surrogate (JSON
 * text cannot hold it; the addon's walk names it) or the text passes the limit. Quotes,
 * backslashes and control characters are escaped; the rest is UTF-8. The printable ASCII
 * run that most strings are whole is copied by a short loop that V8 inlines; the rest of the
 * string, from the first other character, by `writeRest`.
 */
function writeString(s, at) {
  const n = s.length
  if (at + 3 * n + 2 > buffer.length && !grow(at + 3 * n + 2)) return -1
  const b = buffer
  b[at++] = 0x22
  let i = 0
  for (; i < n; i++) {
    const c = s.charCodeAt(i)
    if (c < 0x20 || c >= 0x80 || c === 0x22 || c === 0x5c) break
    b[at++] = c
  }
  if (i < n) {
    at = writeRest(s, i, at)
    if (at < 0) return -1
  }
  buffer[at++] = 0x22
  return at
}

/**
 * Writes `s` from its `i`th character on (the string's body, without the closing quote) at
 * `at`, where room for 3 bytes per character and the quote was made: the end, or -1 as
 * `writeString`.
 */
function writeRest(s, i, at) {
  const n = s.length
  let b = buffer
  for (; i < n; i++) {
    const c = s.charCodeAt(i)
    if (c < 0x80) {
      if (c >= 0x20 && c !== 0x22 && c !== 0x5c) {
        b[at++] = c
        continue
      }
      // Up to 6 bytes for this character, where 3 were reserved.
      const need = at + 6 + 3 * (n - i - 1) + 1
      if (need > b.length) {
        if (!grow(need)) return -1
        b = buffer
      }
      b[at++] = 0x5c
      if (c === 0x22 || c === 0x5c) {
        b[at++] = c
      } else {
        b[at++] = 0x75
        b[at++] = 0x30
        b[at++] = 0x30
        b[at++] = HEX[c >> 4]
        b[at++] = HEX[c & 15]
      }
    } else if (c < 0x800) {
      b[at++] = 0xc0 | (c >> 6)
      b[at++] = 0x80 | (c & 0x3f)
    } else if (c < 0xd800 || c > 0xdfff) {
      b[at++] = 0xe0 | (c >> 12)
      b[at++] = 0x80 | ((c >> 6) & 0x3f)
      b[at++] = 0x80 | (c & 0x3f)
    } else {
      const d = c <= 0xdbff && i + 1 < n ? s.charCodeAt(i + 1) : 0
      if (d < 0xdc00 || d > 0xdfff) return -1
      const p = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00)
      b[at++] = 0xf0 | (p >> 18)
      b[at++] = 0x80 | ((p >> 12) & 0x3f)
      b[at++] = 0x80 | ((p >> 6) & 0x3f)
      b[at++] = 0x80 | (p & 0x3f)
      i++
    }
  }
  return at
}

/** Writes the ASCII text `s` (a number's) at `at`; the end, or -1 past the limit. */
function writeAscii(s, at) {
  const n = s.length
  if (at + n > buffer.length && !grow(at + n)) return -1
  const b = buffer
  for (let i = 0; i < n; i++) b[at++] = s.charCodeAt(i)
  return at
}

/**
 * Writes the JSON text of `v`, `depth` containers deep, at `at`, when that text is exactly
 * `v` as the addon's walk reads it: well-formed strings, finite numbers, booleans, null,
 * arrays without `undefined` or holes, and plain objects (own enumerable string keys,
 * `undefined` values left out). The end, or -1 for anything else (the addon's walk then
 * answers and names the culprit) and past the limit. Each property is read once, and no
 * `toJSON` is called.
 */
function writeValue(v, depth, at) {
  switch (typeof v) {
    case 'string':
      return writeString(v, at)
    case 'number':
      // A finite number's JSON text is its string form (-0 is "0").
      return Number.isFinite(v) ? writeAscii('' + v, at) : -1
    case 'boolean':
      return put(v ? TRUE : FALSE, at, false)
    case 'object':
      if (v === null) return put(NULL, at, false)
      if (depth >= TEXT_DEPTH) return -1
      return Array.isArray(v) ? writeArray(v, depth, at) : writeObject(v, depth, at)
    default:
      return -1
  }
}

function writeArray(v, depth, at) {
  at = put1(0x5b, at)
  for (let i = 0, n = v.length; i < n && at >= 0; i++) {
    const item = v[i]
    if (item === undefined) return -1
    if (i > 0) at = put1(0x2c, at)
    if (at >= 0) at = writeValue(item, depth + 1, at)
  }
  return at < 0 ? -1 : put1(0x5d, at)
}

function writeObject(v, depth, at) {
  const proto = Object.getPrototypeOf(v)
  if (proto !== OBJECT_PROTOTYPE && proto !== null) return -1
  const start = at
  at = put1(0x7b, at)
  if (at < 0) return -1
  // `for...in` with an own-property check is V8's fast path for a plain object's own
  // enumerable keys (its enum cache; no array of keys is made).
  for (const key in v) {
    if (!hasOwn.call(v, key)) continue
    const item = v[key]
    if (item === undefined) continue
    if (at > start + 1) at = put1(0x2c, at)
    if (at >= 0) at = writeString(key, at)
    if (at >= 0) at = put1(0x3a, at)
    if (at >= 0) at = writeValue(item, depth + 1, at)
    if (at < 0) return -1
  }
  return put1(0x7d, at)
}

/**
 * Writes `,"key":value` (without the comma right after the opening brace: the key is then
 * written over the brace, which is put back); the end or -1.
 */
function writeField(key, v, at) {
  if (v === undefined || at < 0) return at
  if (at === 1) {
    at = putWords(key, 0)
    buffer[0] = 0x7b
  } else {
    at = putWords(key, at)
  }
  return at < 0 ? -1 : writeValue(v, 1, at)
}

/**
 * Writes a request's JSON text from its fields' values (`undefined` for an absent field), with
 * the id under `tool_use_id`: its length in `requestBytes()`, or -1 when a value's JSON form
 * would not be exact, the text would pass 1 MiB, or a request is being written already (by a
 * getter of this one). A getter that throws throws here.
 */
function writeRequest(id, agent, tool, server, args, permissions) {
  if (writing) return -1
  writing = true
  try {
    buffer[0] = 0x7b
    let at = 1
    at = writeField(KEY_ID, id, at)
    at = writeField(KEY_AGENT, agent, at)
    at = writeField(KEY_TOOL, tool, at)
    at = writeField(KEY_SERVER, server, at)
    at = writeField(KEY_ARGS, args, at)
    at = writeField(KEY_PERMISSIONS, permissions, at)
    return at < 0 ? -1 : put1(0x7d, at)
  } finally {
    writing = false
  }
}

/** Writes `null` (the text of a request that is no object); its length, or -1 as above. */
function writeNotObject() {
  return writing ? -1 : put(NULL, 0, false)
}

/** The buffer the last text was written into. */
function requestBytes() {
  return buffer
}

/** The `ArrayBuffer` the last text was written into, from its first byte (what the addon reads). */
function requestBuffer() {
  return buffer.buffer
}

/** Drops a buffer grown large for one request (call once its text was read). */
function trimBuffer() {
  if (buffer.length > KEEP_BYTES) buffer = new Uint8Array(1024)
}

module.exports = { writeRequest, writeNotObject, requestBytes, requestBuffer, trimBuffer }
