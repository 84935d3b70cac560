//! Key specs: where a command's keys are and what it does to them (Redis 7's
//! `key_specs`), and the legacy first/last/step range derived from them.

use bitflags::bitflags;

pub(super) use crate::engine::num::atoi_key_count as numkeys;

/// The legacy key range of `COMMAND INFO` (first key, last key, step): positions
/// `first..=last` stepping by `step`, a negative `last` counting from the end (-1 = last
/// argument); all zero for no keys. Derived from the key specs (see [`legacy_range`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyRange {
    /// Position of the first key (1 = first argument after the name).
    pub first: i32,
    /// Position of the last key; negative counts from the end.
    pub last: i32,
    /// Distance between keys.
    pub step: i32,
}

bitflags! {
    /// The flags of a key spec, as Redis 7's `COMMAND INFO` and `COMMAND GETKEYSANDFLAGS`
    /// name them: one of `RO`/`RW`/`OW`/`RM` (read-only, read-write, overwrite, remove),
    /// what is done to the value (`access`, `update`, `insert`, `delete`), and remarks on
    /// the spec itself (`not_key`: a shard channel, not a key; `incomplete`: the spec may
    /// miss keys; `variable_flags`: the flags depend on the other arguments).
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct KeyFlags: u16 {
        /// Reads the key's value, doesn't change it.
        const RO = 1 << 0;
        /// Reads and changes the value.
        const RW = 1 << 1;
        /// Overwrites the value without reading it.
        const OW = 1 << 2;
        /// Deletes the key.
        const RM = 1 << 3;
        /// Returns or uses user data from the value.
        const ACCESS = 1 << 4;
        /// Updates data in the value.
        const UPDATE = 1 << 5;
        /// Adds data to the value.
        const INSERT = 1 << 6;
        /// Removes data from the value.
        const DELETE = 1 << 7;
        /// Not a key (a shard channel), found the same way.
        const NOT_KEY = 1 << 8;
        /// The spec may not find every key.
        const INCOMPLETE = 1 << 9;
        /// The flags depend on the arguments (`SET … GET`).
        const VARIABLE_FLAGS = 1 << 10;
    }
}

/// Key-spec flag names in Redis's reply order.
const KEY_FLAG_NAMES: &[(KeyFlags, &str)] = &[
    (KeyFlags::RO, "RO"),
    (KeyFlags::RW, "RW"),
    (KeyFlags::OW, "OW"),
    (KeyFlags::RM, "RM"),
    (KeyFlags::ACCESS, "access"),
    (KeyFlags::UPDATE, "update"),
    (KeyFlags::INSERT, "insert"),
    (KeyFlags::DELETE, "delete"),
    (KeyFlags::NOT_KEY, "not_key"),
    (KeyFlags::INCOMPLETE, "incomplete"),
    (KeyFlags::VARIABLE_FLAGS, "variable_flags"),
];

impl KeyFlags {
    /// Parses space-separated flag names (`"RW access delete"`) at compile time; an unknown
    /// name stops the build.
    pub const fn of(names: &str) -> KeyFlags {
        let b = names.as_bytes();
        let mut flags = KeyFlags::empty();
        let mut i = 0;
        while i < b.len() {
            if b[i] == b' ' {
                i += 1;
                continue;
            }
            let mut j = i;
            while j < b.len() && b[j] != b' ' {
                j += 1;
            }
            let mut k = 0;
            let mut found = false;
            while k < KEY_FLAG_NAMES.len() {
                let n = KEY_FLAG_NAMES[k].1.as_bytes();
                if n.len() == j - i {
                    let mut m = 0;
                    while m < n.len() && n[m] == b[i + m] {
                        m += 1;
                    }
                    if m == n.len() {
                        flags = flags.union(KEY_FLAG_NAMES[k].0);
                        found = true;
                    }
                }
                k += 1;
            }
            assert!(found, "unknown key-spec flag");
            i = j;
        }
        flags
    }

    /// The flag names, in Redis's order.
    pub fn names(self) -> Vec<&'static str> {
        KEY_FLAG_NAMES
            .iter()
            .filter(|(f, _)| self.contains(*f))
            .map(|(_, n)| *n)
            .collect()
    }
}

/// Where a key spec starts looking (Redis's `begin_search`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BeginSearch {
    /// At a fixed argument position (1 = first argument after the name).
    Index(i32),
    /// Right after the first `keyword` found scanning from `startfrom` (a negative start
    /// counts from the end and scans backwards); the spec finds nothing without it.
    Keyword {
        /// The keyword, as Redis spells it (compared ignoring case).
        keyword: &'static str,
        /// Where the scan starts.
        startfrom: i32,
    },
    /// The arguments alone don't say (SORT's `BY`/`GET`/`STORE`).
    Unknown,
}

/// How a key spec finds its keys from where the search began (Redis's `find_keys`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FindKeys {
    /// Keys from the start to `lastkey` (relative to the start; negative counts from the
    /// end), every `keystep`; with a `limit` > 1 and `lastkey` -1, only the first
    /// 1/`limit` of the remaining arguments (XREAD's `STREAMS a b 0 0`).
    Range {
        /// Last key, relative to the start, or from the end when negative.
        lastkey: i32,
        /// Distance between keys.
        keystep: i32,
        /// Divides the remaining arguments (0 = all of them).
        limit: i32,
    },
    /// A key count at start + `keynumidx`, the keys from start + `firstkey` every `keystep`
    /// (`ZUNION 2 a b`). The count must be an integer from 1 to the keys present. Every
    /// such command also has a Redis `getkeys_proc`, used when the count isn't a strict
    /// integer: it reads the count as C's `atoi` does (`2x` is 2) and reports the counted
    /// keys, then any others (a `…STORE` destination), all without flags.
    Keynum {
        /// Where the count is, relative to the start.
        keynumidx: i32,
        /// Where the first key is, relative to the start.
        firstkey: i32,
        /// Distance between keys.
        keystep: i32,
    },
    /// The arguments alone don't say.
    Unknown,
}

/// One of a command's key specs, as Redis 7's `COMMAND INFO` describes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeySpec {
    /// What the command does with these keys.
    pub flags: KeyFlags,
    /// Redis's remark on the spec (empty for none).
    pub notes: &'static str,
    /// Where the search starts.
    pub begin: BeginSearch,
    /// How keys are found from there.
    pub find: FindKeys,
}

impl KeySpec {
    /// One key at position `pos` (extend with [`KeySpec::range`] or [`KeySpec::keynum`]).
    pub const fn index(pos: i32, flags: &str) -> KeySpec {
        KeySpec {
            flags: KeyFlags::of(flags),
            notes: "",
            begin: BeginSearch::Index(pos),
            find: FindKeys::Range {
                lastkey: 0,
                keystep: 1,
                limit: 0,
            },
        }
    }

    /// One key after `keyword`, searched for from `startfrom`.
    pub const fn keyword(keyword: &'static str, startfrom: i32, flags: &str) -> KeySpec {
        KeySpec {
            begin: BeginSearch::Keyword { keyword, startfrom },
            ..KeySpec::index(0, flags)
        }
    }

    /// Keys the arguments alone don't locate (found by a [`GetKeys`] procedure if at all).
    pub const fn unknown(flags: &str) -> KeySpec {
        KeySpec {
            begin: BeginSearch::Unknown,
            find: FindKeys::Unknown,
            ..KeySpec::index(0, flags)
        }
    }

    /// Finds a range of keys from the start.
    pub const fn range(mut self, lastkey: i32, keystep: i32, limit: i32) -> KeySpec {
        self.find = FindKeys::Range {
            lastkey,
            keystep,
            limit,
        };
        self
    }

    /// Finds a counted run of keys from the start.
    pub const fn keynum(mut self, keynumidx: i32, firstkey: i32, keystep: i32) -> KeySpec {
        self.find = FindKeys::Keynum {
            keynumidx,
            firstkey,
            keystep,
        };
        self
    }

    /// Adds Redis's note.
    pub const fn notes(mut self, notes: &'static str) -> KeySpec {
        self.notes = notes;
        self
    }

    /// The positions this spec finds in `argv` (command name at 0), or `Err` when the
    /// spec can't tell (unknown spec, bad key count). Redis's `getKeysUsingKeySpecs` for
    /// one spec. O(number of arguments).
    pub(super) fn find_in(&self, argv: &[Vec<u8>], arity: i32) -> Result<Vec<usize>, ()> {
        let argc = argv.len() as i64;
        let first = match self.begin {
            BeginSearch::Index(pos) => i64::from(pos),
            BeginSearch::Keyword { keyword, startfrom } => {
                let (mut i, end, dir) = if startfrom > 0 {
                    (i64::from(startfrom), argc - 1, 1)
                } else {
                    (argc + i64::from(startfrom), 1, -1)
                };
                let mut hit = None;
                while (dir > 0 && i <= end) || (dir < 0 && i >= end) {
                    if i >= argc || i < 1 {
                        break;
                    }
                    if word_is(&argv[i as usize], keyword) {
                        hit = Some(i + 1);
                        break;
                    }
                    i += dir;
                }
                match hit {
                    Some(f) => f,
                    None => return Ok(Vec::new()),
                }
            }
            BeginSearch::Unknown => return Err(()),
        };
        let (first, last, step) = match self.find {
            FindKeys::Range {
                lastkey,
                keystep,
                limit,
            } => {
                let last = if lastkey >= 0 {
                    first + i64::from(lastkey)
                } else if limit <= 1 {
                    argc + i64::from(lastkey)
                } else {
                    first + ((argc - first) / i64::from(limit) + i64::from(lastkey))
                };
                (first, last, i64::from(keystep))
            }
            FindKeys::Keynum {
                keynumidx,
                firstkey,
                keystep,
            } => {
                let at = first + i64::from(keynumidx);
                let count = argv
                    .get(at as usize)
                    .and_then(|a| crate::engine::num::parse_i64(a))
                    .ok_or(())?;
                let start = first + i64::from(firstkey);
                let step = i64::from(keystep.max(1));
                if count < 1 || start.saturating_add((count - 1).saturating_mul(step)) >= argc {
                    return Err(());
                }
                (start, start + (count - 1) * step, step)
            }
            FindKeys::Unknown => return Err(()),
        };
        let mut out = Vec::new();
        let mut i = first;
        while step > 0 && i <= last {
            if i >= argc || i < 1 {
                // Past the end: a variadic command reports the arity itself.
                if arity < 0 {
                    i += step;
                    continue;
                }
                return Err(());
            }
            out.push(i as usize);
            i += step;
        }
        Ok(out)
    }
}

/// Redis's `getkeys_proc`: key finding the key specs can't express, kept where kvlab needs
/// it (the spec has an unknown part, or its flags depend on the arguments).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GetKeys {
    /// `SORT`'s `STORE destination` (the last one counts), skipping the arguments of
    /// `LIMIT`, `GET` and `BY` as Redis's `sortGetKeys` does; the sorted key is `RO access`,
    /// the destination `OW update`.
    Sort,
    /// `SORT_RO`: just the sorted key, `RO access` (its `BY`/`GET` patterns are unknown).
    SortRo,
    /// `SET`: the key is `RW access update` with `GET`, `OW update` without.
    Set,
    /// `BITFIELD`: the key is `RW access update` when a `SET` or `INCRBY` operation is
    /// there, `RO access` otherwise.
    Bitfield,
}

/// Redis's `populateCommandLegacyRangeSpec`: the legacy (first, last, step) of a command's
/// key specs, and whether keys can be elsewhere too (`movablekeys`). A single index+range
/// spec is taken as is; otherwise consecutive index+range specs with step 1 are merged,
/// and anything else (keywords, key counts, unknown, gaps, other steps, `incomplete`)
/// makes the command movable.
pub const fn legacy_range(specs: &[KeySpec]) -> (KeyRange, bool) {
    const NONE: KeyRange = KeyRange {
        first: 0,
        last: 0,
        step: 0,
    };
    if specs.is_empty() {
        return (NONE, false);
    }
    if specs.len() == 1 {
        if let (
            BeginSearch::Index(pos),
            FindKeys::Range {
                lastkey, keystep, ..
            },
        ) = (specs[0].begin, specs[0].find)
        {
            let last = if lastkey < 0 { lastkey } else { pos + lastkey };
            return (
                KeyRange {
                    first: pos,
                    last,
                    step: keystep,
                },
                specs[0].flags.contains(KeyFlags::INCOMPLETE),
            );
        }
    }
    let mut movable = false;
    let mut first = i32::MAX;
    // Compared as unsigned, as Redis does, so a from-the-end -1 wins over any position.
    let mut last: u32 = 0;
    let mut prev_last: u32 = 0;
    let mut i = 0;
    while i < specs.len() {
        let s = &specs[i];
        i += 1;
        let (pos, lastkey, keystep) = match (s.begin, s.find) {
            (
                BeginSearch::Index(pos),
                FindKeys::Range {
                    lastkey, keystep, ..
                },
            ) => (pos, lastkey, keystep),
            _ => {
                movable = true;
                continue;
            }
        };
        if keystep != 1 || (prev_last != 0 && prev_last != (pos - 1) as u32) {
            movable = true;
            continue;
        }
        if s.flags.contains(KeyFlags::INCOMPLETE) {
            movable = true;
        }
        if pos < first {
            first = pos;
        }
        let abs = if lastkey >= 0 { lastkey + pos } else { lastkey };
        if abs as u32 > last {
            last = abs as u32;
        }
        prev_last = last;
    }
    if first == i32::MAX {
        return (NONE, true);
    }
    (
        KeyRange {
            first,
            last: last as i32,
            step: 1,
        },
        movable,
    )
}

/// `strcasecmp` as Redis's key finders use it: compares up to the argument's first NUL.
pub(super) fn word_is(arg: &[u8], word: &str) -> bool {
    let end = arg.iter().position(|&b| b == 0).unwrap_or(arg.len());
    arg[..end].eq_ignore_ascii_case(word.as_bytes())
}
