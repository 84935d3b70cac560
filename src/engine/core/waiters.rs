//! The hook a family of blocking commands implements so that the engine can serve its
//! blocked clients ([`super::blocked`] is the one path that calls it).

use crate::engine::blocking::BlockOp;
use crate::engine::error::Error;
use crate::engine::reply::Reply;

use super::ctx::Site;
use super::server::Server;

/// What a ready key means for one client blocked on it.
#[derive(Debug, Clone, PartialEq)]
pub enum Readiness {
    /// The key can serve it now.
    Serve,
    /// Not yet (another type, or nothing new): it keeps waiting.
    Wait,
    /// The key is gone: neither this client nor those after it in the key's queue can be
    /// served from it now (lists and sorted sets stop looking at the queue).
    Gone,
    /// The client is unblocked with this error (a stream or group deleted under an
    /// `XREADGROUP`).
    Fail(Error),
}

/// One family of blocking commands: how a key that became ready serves its waiters.
pub trait Waiters: Sync {
    /// True if this family serves clients blocked with `op`.
    fn serves(&self, op: &BlockOp) -> bool;
    /// Whether `key` of database `db` (already lazily expired) can serve a client blocked
    /// with `op`. Reads only.
    fn readiness(&self, srv: &Server, db: usize, key: &[u8], op: &BlockOp) -> Readiness;
    /// Serves the (already unblocked) client at `site` from `key`, as its command would
    /// have replied had the data been there, and returns that reply. Called only after
    /// [`Waiters::readiness`] said [`Readiness::Serve`].
    fn serve(&self, site: Site<'_>, key: &[u8], op: &BlockOp) -> Reply;
}
