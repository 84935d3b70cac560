//! What a configuration parameter is: its [`Kind`] of value (with its [`Unit`] or
//! [`Special`] syntax), its flags, and the [`Param`] row of the table in `params.rs`.

/// How a numeric parameter's text is read and shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// A plain decimal integer (Redis's `string2ll`).
    Plain,
    /// A memory size: digits with an optional unit `b k kb m mb g gb` (any case).
    Memory,
    /// A memory size or a percentage `N%` (stored as `-N`, shown as `N%`).
    MemoryOrPercent,
    /// An octal number, shown in octal.
    Octal,
}

/// Parameters with a syntax of their own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Special {
    /// `save`: pairs of `<seconds> <changes>`, or `""` for none.
    Save,
    /// `notify-keyspace-events`: the class characters `KEg$lshzxetmdnA`.
    NotifyKeyspaceEvents,
    /// `bind`: a list of addresses.
    Bind,
    /// `client-output-buffer-limit`: groups of `<class> <hard> <soft> <seconds>`.
    ClientOutputBufferLimit,
    /// `oom-score-adj-values`: three integers in -2000..=2000.
    OomScoreAdjValues,
    /// `latency-tracking-info-percentiles`: floats in 0..=100.
    LatencyPercentiles,
}

/// The kind of a parameter, which decides how its value is checked and normalised.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `yes` or `no`.
    Bool,
    /// A signed integer within `min..=max`.
    Int {
        /// Lower bound.
        min: i64,
        /// Upper bound.
        max: i64,
        /// Text format.
        unit: Unit,
    },
    /// An unsigned integer within `min..=max`; a negative input wraps as in C and fails.
    Uint {
        /// Lower bound.
        min: u64,
        /// Upper bound.
        max: u64,
        /// Text format.
        unit: Unit,
    },
    /// One of the names (any case); the value shown is the first name with the same number.
    Enum(&'static [(&'static str, u32)]),
    /// Several of the names, space separated, combined as bit flags (`shutdown-on-sigint`).
    EnumFlags(&'static [(&'static str, u32)]),
    /// Any string.
    Str,
    /// A parameter with its own syntax.
    Special(Special),
}

/// `CONFIG SET` refuses it: "can't set immutable config".
pub const IMMUTABLE: u8 = 1;
/// `CONFIG SET` refuses it: "can't set protected config" (`enable-protected-configs no`).
pub const PROTECTED: u8 = 2;
/// Only an exact name finds it; patterns skip it.
pub const HIDDEN: u8 = 4;
/// The value is split on spaces into several arguments before it is checked.
pub const MULTI_ARG: u8 = 8;

/// One configuration parameter.
#[derive(Debug, Clone, Copy)]
pub struct Param {
    /// Canonical name.
    pub name: &'static str,
    /// Older name that still works (`hash-max-ziplist-entries`), if any.
    pub alias: Option<&'static str>,
    /// What values it takes.
    pub kind: Kind,
    /// Default value, normalised.
    pub default: &'static str,
    /// [`IMMUTABLE`], [`PROTECTED`], [`HIDDEN`], [`MULTI_ARG`].
    pub flags: u8,
}

impl Param {
    pub(super) const fn new(name: &'static str, kind: Kind, default: &'static str) -> Param {
        Param {
            name,
            alias: None,
            kind,
            default,
            flags: 0,
        }
    }
    pub(super) const fn alias(mut self, alias: &'static str) -> Param {
        self.alias = Some(alias);
        self
    }
    pub(super) const fn flags(mut self, flags: u8) -> Param {
        self.flags |= flags;
        self
    }
}
