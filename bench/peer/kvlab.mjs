// kvlab's engine for JavaScript, as bench/peer.mjs calls it: `call(argv)` runs one
// command and returns its reply as a client library gives one (strings, numbers, null,
// arrays; an error as an `Error`).
//
// A call crosses into wasm once each way with numbers only: the words are packed into
// the engine's input buffer (a 4-byte little-endian length, then the UTF-8 bytes), and
// the reply comes back RESP2-encoded in its output buffer, decoded here. Passing each
// word as a JavaScript string (wasm-bindgen's `Vec<String>`) costs a call back into
// JavaScript and an allocation per word, and a reply string a TextDecoder call: in
// Chromium, about half the time of a GET.

const encoder = new TextEncoder();
const decoder = new TextDecoder(); // not fatal: invalid UTF-8 becomes U+FFFD, as in Rust's from_utf8_lossy

export class Kvlab {
  /** `wasm`: what the wasm-bindgen module's init resolved to (its `memory`). */
  constructor(wasm, BenchEngine) {
    this.engine = new BenchEngine();
    this.memory = wasm.memory;
    this.u8 = new Uint8Array(this.memory.buffer);
    this.ptr = 0;
    this.capacity = 0;
  }

  bytes() {
    // A grown wasm memory detaches the old buffer, and a detached view has no length.
    if (this.u8.length === 0) this.u8 = new Uint8Array(this.memory.buffer);
    return this.u8;
  }

  /** Runs `argv` on the engine; its reply as a client library gives one. */
  call(argv) {
    return this.reply(this.engine.run(this.pack(argv)));
  }

  /**
   * The same crossing without the engine: the words packed and read on the wasm side, the
   * last one sent back as a bulk reply and decoded (the benchmark's floor).
   */
  echo(argv) {
    return this.reply(this.engine.echo(this.pack(argv)));
  }

  /** Packs `argv` into the engine's input buffer; returns the number of words. */
  pack(argv) {
    let words = argv;
    if (!argv.every((w) => typeof w === 'string')) words = argv.map(String);
    let need = 0;
    for (const w of words) need += 4 + 3 * w.length; // UTF-8 needs at most 3 bytes per UTF-16 unit
    if (need > this.capacity) {
      this.ptr = this.engine.input(need);
      this.capacity = need;
    }
    const u8 = this.bytes();
    let o = this.ptr;
    for (const w of words) {
      const start = o + 4;
      const n = w.length;
      let p = start;
      let i = 0;
      for (; i < n; i++) {
        const c = w.charCodeAt(i);
        if (c >= 0x80) break;
        u8[p++] = c;
      }
      if (i < n) p += encoder.encodeInto(w.substring(i), u8.subarray(p, start + 3 * n)).written;
      const len = p - start;
      u8[o] = len & 0xff;
      u8[o + 1] = (len >>> 8) & 0xff;
      u8[o + 2] = (len >>> 16) & 0xff;
      u8[o + 3] = len >>> 24;
      o = p;
    }
    return words.length;
  }

  /** The reply of `len` bytes in the engine's output buffer, decoded. */
  reply(len) {
    const at = this.engine.output();
    if (len === 0) return null; // nothing written: a blocked command
    return new Resp(this.bytes(), at, at + len).value();
  }
}

/**
 * A RESP2 reader over `u8[from..to]`. It reads a string of the whole reply — one char per
 * byte, so offsets are byte offsets — and cuts the replies' texts out of it: one string
 * made per reply, substrings for the rest (for LRANGE's ten items, half the time of a
 * string made per item). Only a text with bytes of 0x80 and above is decoded as UTF-8.
 */
class Resp {
  constructor(u8, from, to) {
    let high = 0;
    for (let p = from; p < to; p++) high |= u8[p];
    this.ascii = high < 0x80;
    if (this.ascii && to - from <= 32) {
      // Short replies (OK, an integer, a short value): cheaper than a TextDecoder call.
      let s = '';
      for (let p = from; p < to; p++) s += String.fromCharCode(u8[p]);
      this.s = s;
    } else if (this.ascii) {
      this.s = decoder.decode(u8.subarray(from, to));
    } else {
      let s = '';
      for (let p = from; p < to; p += 8192) {
        s += String.fromCharCode.apply(null, u8.subarray(p, Math.min(p + 8192, to)));
      }
      this.s = s;
    }
    this.pos = 0;
  }

  /** The integer up to the next CRLF, past it. */
  int() {
    const s = this.s;
    let p = this.pos;
    let neg = false;
    if (s.charCodeAt(p) === 45) {
      neg = true;
      p++;
    }
    let n = 0;
    for (let c = s.charCodeAt(p); c !== 13; c = s.charCodeAt(++p)) n = n * 10 + (c - 48);
    this.pos = p + 2;
    return neg ? -n : n;
  }

  /** The text of `s[from..to]`. */
  text(from, to) {
    const t = this.s.substring(from, to);
    if (this.ascii || !/[\x80-\xff]/.test(t)) return t;
    return decoder.decode(Uint8Array.from(t, (c) => c.charCodeAt(0)));
  }

  /** The text up to the next CRLF, past it. */
  line() {
    const end = this.s.indexOf('\r', this.pos);
    const t = this.text(this.pos, end);
    this.pos = end + 2;
    return t;
  }

  value() {
    const type = this.s.charCodeAt(this.pos++);
    switch (type) {
      case 43: // +
        return this.line();
      case 45: // -
        return new Error(this.line());
      case 58: // :
        return this.int();
      case 36: { // $
        const len = this.int();
        if (len < 0) return null;
        const t = this.text(this.pos, this.pos + len);
        this.pos += len + 2;
        return t;
      }
      case 42: { // *
        const len = this.int();
        if (len < 0) return null;
        const items = new Array(len);
        for (let i = 0; i < len; i++) items[i] = this.value();
        return items;
      }
      default:
        throw new Error(`unexpected RESP type byte ${type}`);
    }
  }
}
