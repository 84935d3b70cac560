//! Score and lexicographic intervals: [`ScoreRange`], [`LexBound`] and [`LexRange`], as parsed
//! from `(1.5`, `[a` and `-`/`+`.

/// A bound of a score interval: `min`/`max` with an exclusive flag, as parsed from `(1.5`.
/// Neither bound is NaN (parsing rejects it, as Redis does).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScoreRange {
    /// Lower bound.
    pub min: f64,
    /// Upper bound.
    pub max: f64,
    /// True when `min` itself is excluded.
    pub minex: bool,
    /// True when `max` itself is excluded.
    pub maxex: bool,
}

impl ScoreRange {
    /// True if `s` is at or above the lower bound.
    pub fn gte_min(&self, s: f64) -> bool {
        if self.minex {
            s > self.min
        } else {
            s >= self.min
        }
    }

    /// True if `s` is at or below the upper bound.
    pub fn lte_max(&self, s: f64) -> bool {
        if self.maxex {
            s < self.max
        } else {
            s <= self.max
        }
    }

    /// True when no score can be inside (Redis's `zslIsInRange` first test).
    pub fn is_empty(&self) -> bool {
        self.min > self.max || (self.min == self.max && (self.minex || self.maxex))
    }
}

/// One end of a lexicographic interval (`-`, `+`, `[member`, `(member`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LexBound {
    /// `-`: below every string.
    NegInf,
    /// `+`: above every string.
    PosInf,
    /// `[m`: `m` included.
    Incl(Vec<u8>),
    /// `(m`: `m` excluded.
    Excl(Vec<u8>),
}

impl LexBound {
    /// Compares a member with this bound as Redis's `sdscmplex` does.
    fn cmp_member(&self, m: &[u8]) -> std::cmp::Ordering {
        use std::cmp::Ordering::*;
        match self {
            LexBound::NegInf => Greater,
            LexBound::PosInf => Less,
            LexBound::Incl(b) | LexBound::Excl(b) => m.cmp(b),
        }
    }

    fn exclusive(&self) -> bool {
        !matches!(self, LexBound::Incl(_))
    }
}

/// A lexicographic interval, as `ZRANGEBYLEX` parses it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LexRange {
    /// Lower end.
    pub min: LexBound,
    /// Upper end.
    pub max: LexBound,
}

impl LexRange {
    /// True if `m` is at or above the lower end.
    pub fn gte_min(&self, m: &[u8]) -> bool {
        let c = self.min.cmp_member(m);
        if self.min.exclusive() {
            c.is_gt()
        } else {
            c.is_ge()
        }
    }

    /// True if `m` is at or below the upper end.
    pub fn lte_max(&self, m: &[u8]) -> bool {
        let c = self.max.cmp_member(m);
        if self.max.exclusive() {
            c.is_lt()
        } else {
            c.is_le()
        }
    }

    /// True when no member can be inside (Redis's `zslIsInLexRange` first test).
    pub fn is_empty(&self) -> bool {
        use std::cmp::Ordering::*;
        let cmp = match (&self.min, &self.max) {
            (LexBound::NegInf, LexBound::NegInf) | (LexBound::PosInf, LexBound::PosInf) => Equal,
            (LexBound::NegInf, _) | (_, LexBound::PosInf) => Less,
            (LexBound::PosInf, _) | (_, LexBound::NegInf) => Greater,
            (LexBound::Incl(a) | LexBound::Excl(a), LexBound::Incl(b) | LexBound::Excl(b)) => {
                a.cmp(b)
            }
        };
        cmp.is_gt() || (cmp.is_eq() && (self.min.exclusive() || self.max.exclusive()))
    }
}
