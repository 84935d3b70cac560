//! LZF, the compression of RDB strings, as Redis's copy of liblzf 3.6 builds it (a
//! 65,536-slot hash of the next three bytes, "very fast" mode, back references of 3 to
//! 264 bytes up to 8 KiB behind, literal runs of up to 32 bytes), so that a dump made here
//! is byte for byte the one redis-server makes.

const HSIZE: usize = 1 << 16;
const MAX_LIT: usize = 1 << 5;
const MAX_OFF: usize = 1 << 13;
const MAX_REF: usize = (1 << 8) + (1 << 3);

fn slot(h: u32) -> usize {
    ((h >> 8).wrapping_sub(h.wrapping_mul(5)) as usize) & (HSIZE - 1)
}

/// The hash table of positions, kept from call to call so that a call does not pay for
/// 64K empty slots (a `DUMP` of a million short strings tries LZF a million times): each
/// slot holds the number of the call that wrote it beside the position, and a slot of an
/// earlier call reads as empty.
struct Table {
    call: u32,
    slots: Vec<(u32, u32)>,
}

impl Table {
    fn new() -> Table {
        Table {
            call: 0,
            slots: vec![(0, 0); HSIZE],
        }
    }

    /// Starts a call: every slot empty.
    fn start(&mut self) {
        self.call = self.call.wrapping_add(1);
        if self.call == 0 {
            self.slots.fill((0, 0));
            self.call = 1;
        }
    }

    /// Position + 1 last stored at slot `s` in this call, 0 if none.
    fn get(&self, s: usize) -> u32 {
        match self.slots[s] {
            (call, pos) if call == self.call => pos,
            _ => 0,
        }
    }

    fn set(&mut self, s: usize, pos: u32) {
        self.slots[s] = (self.call, pos);
    }
}

thread_local! {
    static TABLE: std::cell::RefCell<Option<Table>> = const { std::cell::RefCell::new(None) };
}

/// Compresses `input` into at most `limit` bytes; `None` if it does not fit (Redis's
/// `lzf_compress` returning 0).
pub fn compress(input: &[u8], limit: usize) -> Option<Vec<u8>> {
    if input.is_empty() || limit == 0 {
        return None;
    }
    TABLE.with(|cell| match cell.try_borrow_mut() {
        Ok(mut kept) => {
            let table = kept.get_or_insert_with(Table::new);
            table.start();
            compress_with(table, input, limit)
        }
        Err(_) => {
            let mut table = Table::new();
            table.start();
            compress_with(&mut table, input, limit)
        }
    })
}

fn compress_with(table: &mut Table, input: &[u8], limit: usize) -> Option<Vec<u8>> {
    let n = input.len();
    // Positions + 1 (0: empty).
    let mut out = vec![0u8; limit + 8];
    let mut op = 1usize;
    let mut lit = 0usize;
    let mut ip = 0usize;
    let first = |p: usize| ((input[p] as u32) << 8) | input[p + 1] as u32;
    let next = |h: u32, p: usize| (h << 8) | input[p + 2] as u32;
    let mut h = if n >= 2 { first(0) } else { 0 };
    while ip + 2 < n {
        h = next(h, ip);
        let s = slot(h);
        let candidate = table.get(s);
        table.set(s, ip as u32 + 1);
        let found = candidate > 1 && {
            let r = candidate as usize - 1;
            ip - r - 1 < MAX_OFF
                && input[r + 2] == input[ip + 2]
                && input[r..r + 2] == input[ip..ip + 2]
        };
        if found {
            let r = candidate as usize - 1;
            let off = ip - r - 1;
            let maxlen = (n - ip - 2).min(MAX_REF);
            if op + 4 >= limit && op - usize::from(lit == 0) + 4 >= limit {
                return None;
            }
            out[op - lit - 1] = (lit as u8).wrapping_sub(1);
            op -= usize::from(lit == 0);
            // The match's length: liblzf checks 16 bytes unbounded when more than 16
            // remain, then goes on byte by byte up to `maxlen`.
            let mut len = 2;
            let mut done = false;
            if maxlen > 16 {
                for _ in 0..16 {
                    len += 1;
                    if input[r + len] != input[ip + len] {
                        done = true;
                        break;
                    }
                }
            }
            if !done {
                loop {
                    len += 1;
                    if !(len < maxlen && input[r + len] == input[ip + len]) {
                        break;
                    }
                }
            }
            len -= 2;
            ip += 1;
            if len < 7 {
                out[op] = ((off >> 8) + (len << 5)) as u8;
                op += 1;
            } else {
                out[op] = ((off >> 8) + (7 << 5)) as u8;
                out[op + 1] = (len - 7) as u8;
                op += 2;
            }
            out[op] = off as u8;
            op += 2;
            lit = 0;
            ip += len + 1;
            if ip + 2 >= n {
                break;
            }
            ip -= 2;
            h = first(ip);
            h = next(h, ip);
            table.set(slot(h), ip as u32 + 1);
            ip += 1;
            h = next(h, ip);
            table.set(slot(h), ip as u32 + 1);
            ip += 1;
        } else {
            if op >= limit {
                return None;
            }
            push_literal(&mut out, &mut op, &mut lit, input[ip]);
            ip += 1;
        }
    }
    if op + 3 > limit {
        return None;
    }
    while ip < n {
        push_literal(&mut out, &mut op, &mut lit, input[ip]);
        ip += 1;
    }
    out[op - lit - 1] = (lit as u8).wrapping_sub(1);
    op -= usize::from(lit == 0);
    out.truncate(op);
    Some(out)
}

/// Copies one literal byte to `out` at `op`, in the run of `lit` literals whose length
/// byte sits just before it; a full run (`MAX_LIT`) is closed and the next one opened.
#[inline(always)]
fn push_literal(out: &mut [u8], op: &mut usize, lit: &mut usize, byte: u8) {
    *lit += 1;
    out[*op] = byte;
    *op += 1;
    if *lit == MAX_LIT {
        out[*op - *lit - 1] = (*lit - 1) as u8;
        *lit = 0;
        *op += 1;
    }
}

/// Decompresses `input` that should expand to exactly `len` bytes; `None` if it is
/// damaged.
pub fn decompress(input: &[u8], len: usize) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(len);
    let mut ip = 0;
    while ip < input.len() {
        let ctrl = input[ip] as usize;
        ip += 1;
        if ctrl < 32 {
            let run = input.get(ip..ip + ctrl + 1)?;
            if out.len() + run.len() > len {
                return None;
            }
            out.extend_from_slice(run);
            ip += ctrl + 1;
        } else {
            let mut n = ctrl >> 5;
            if n == 7 {
                n += *input.get(ip)? as usize;
                ip += 1;
            }
            let back = ((ctrl & 0x1f) << 8) + *input.get(ip)? as usize + 1;
            ip += 1;
            if back > out.len() || out.len() + n + 2 > len {
                return None;
            }
            let from = out.len() - back;
            for i in 0..n + 2 {
                out.push(out[from + i]);
            }
        }
    }
    (out.len() == len).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        let samples: Vec<Vec<u8>> = vec![
            b"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa".to_vec(),
            (0..5000u32).map(|i| (i * 7 % 13) as u8).collect(),
            (0..3000u32).map(|i| (i.wrapping_mul(2654435761) >> 13) as u8).collect(),
            b"#!lua name=lib\nredis.register_function('f', function() return 1 end)\nredis.register_function('g', function() return 1 end)".to_vec(),
        ];
        for s in samples {
            if let Some(c) = compress(&s, s.len() + 64) {
                assert_eq!(decompress(&c, s.len()).as_deref(), Some(&s[..]));
            }
        }
        assert_eq!(compress(b"abc", 1), None);
        assert_eq!(decompress(&[40, 0], 10), None);
    }
}
