//! What running a step produced: each SQL statement's reply and each KV command's reply and
//! cost, with what the file expected.

use super::sql::SqlReply;
use crate::walk::cost::KvCost;

/// One SQL statement run.
#[derive(Clone)]
pub(crate) struct SqlRun {
    pub(crate) sql: String,
    pub(crate) reply: SqlReply,
    pub(crate) expect: Option<String>,
}

/// One KV command run.
#[derive(Clone)]
pub(crate) struct KvRun {
    pub(crate) command: String,
    pub(crate) reply: String,
    pub(crate) expect: Option<String>,
    pub(crate) cost: KvCost,
}

/// The results of one step (or one free-play run).
#[derive(Clone, Default)]
pub(crate) struct StepRun {
    /// 1-based step number; 0 for free play.
    pub(crate) step: usize,
    pub(crate) sql: Vec<SqlRun>,
    pub(crate) kv: Vec<KvRun>,
}
