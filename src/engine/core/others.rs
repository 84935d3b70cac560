//! Every client but the one whose command runs, as a handler sees them ([`Others`]).
//!
//! A command's caller is lent to it mutably while the handler can also reach every
//! other client (`CLIENT LIST`, `CLIENT KILL`, `ACL DELUSER`). The engine used to take
//! the caller out of its map for the command and put it back after: a hash-map removal
//! and insertion per command, about a hundred instructions of a 2,600-instruction `GET`.
//! Now it swaps the caller's box with a spare one kept for this ([`Engine::check_out`](super::engine::Engine::check_out)),
//! so the map keeps its entries, and handlers see it through this view, which hides the
//! caller's key (whose box is then the spare). A nested check-out, which finds the spare
//! in use, and the scripts' resumption take the caller out of the map as before; the view
//! hides nothing absent.

use foldhash::HashMap;

use super::client::{Client, ClientId};

/// The clients other than the caller ([`Ctx::others`](super::ctx::Ctx::others)).
pub struct Others<'a> {
    map: &'a mut HashMap<ClientId, Box<Client>>,
    caller: ClientId,
}

impl<'a> Others<'a> {
    /// The clients of `map` but `caller`.
    pub fn new(map: &'a mut HashMap<ClientId, Box<Client>>, caller: ClientId) -> Others<'a> {
        Others { map, caller }
    }

    /// The same view, borrowed for a command run from inside this one.
    pub fn reborrow(&mut self) -> Others<'_> {
        Others {
            map: &mut *self.map,
            caller: self.caller,
        }
    }

    /// The other client `id`, if connected.
    pub fn get(&self, id: ClientId) -> Option<&Client> {
        if id == self.caller {
            return None;
        }
        self.map.get(&id).map(|c| &**c)
    }

    /// The other client `id`, if connected, mutably.
    pub fn get_mut(&mut self, id: ClientId) -> Option<&mut Client> {
        if id == self.caller {
            return None;
        }
        self.map.get_mut(&id).map(|c| &mut **c)
    }

    /// Whether another client `id` is connected.
    pub fn contains(&self, id: ClientId) -> bool {
        id != self.caller && self.map.contains_key(&id)
    }

    /// How many other clients are connected.
    pub fn len(&self) -> usize {
        self.map.len() - usize::from(self.map.contains_key(&self.caller))
    }

    /// Whether no other client is connected.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The other clients, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = &Client> {
        let caller = self.caller;
        self.map
            .iter()
            .filter(move |(&id, _)| id != caller)
            .map(|(_, c)| &**c)
    }

    /// The other clients, mutably, in no particular order.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut Client> {
        let caller = self.caller;
        self.map
            .iter_mut()
            .filter(move |(&id, _)| id != caller)
            .map(|(_, c)| &mut **c)
    }
}
