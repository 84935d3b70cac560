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

#[cfg(test)]
mod tests {
    use crate::engine::testing::{engine, run};
    use crate::engine::Reply;

    /// The ids `CLIENT LIST` shows, in order.
    fn listed(reply: &Reply) -> Vec<String> {
        let Reply::Verbatim(_, text) = reply else {
            panic!("{reply:?}")
        };
        String::from_utf8_lossy(text)
            .lines()
            .map(|l| l.split(' ').next().unwrap_or("").to_string())
            .collect()
    }

    /// Whichever way a command runs — directly, served after blocking, queued in a
    /// transaction, or from inside another's check-out — its handler sees every client
    /// once: the caller as itself, the others through the view, never the spare box.
    #[test]
    fn every_client_is_seen_once_however_the_command_runs() {
        let (mut e, _clock) = engine();
        let [a, b, c] = [e.connect(), e.connect(), e.connect()];
        let all = vec!["id=1", "id=2", "id=3"];
        for id in [a, b, c] {
            assert_eq!(listed(&run(&mut e, id, "CLIENT LIST")), all);
        }
        let Reply::Verbatim(_, info) = run(&mut e, b, "INFO clients") else {
            panic!("INFO")
        };
        let info = String::from_utf8_lossy(&info).into_owned();
        assert!(info.contains("connected_clients:3\r\n"), "{info}");
        run(&mut e, b, "CLIENT SETNAME bee");
        // By id, in the order asked, the caller among them.
        let by_id = listed(&run(&mut e, a, "CLIENT LIST ID 2 1 9"));
        assert_eq!(by_id, vec!["id=2", "id=1"]);
        // In a transaction: EXEC runs CLIENT LIST from inside its own command.
        run(&mut e, c, "MULTI");
        run(&mut e, c, "CLIENT LIST");
        let Reply::Array(items) = run(&mut e, c, "EXEC") else {
            panic!("EXEC")
        };
        assert_eq!(listed(&items[0]), all);
        // Served after blocking: the blocked client is checked out by the writer's command.
        run(&mut e, a, "BLPOP q 0");
        assert!(e.is_blocked(a));
        run(&mut e, b, "RPUSH q x");
        assert!(!e.is_blocked(a));
        assert_eq!(listed(&run(&mut e, c, "CLIENT LIST")), all);
        assert_eq!(run(&mut e, a, "CLIENT GETNAME"), Reply::Nil);
        assert_eq!(run(&mut e, b, "CLIENT GETNAME"), Reply::bulk(b"bee"));
        // Killing another client finds it through the view; the caller is found as itself.
        assert_eq!(run(&mut e, b, "CLIENT KILL ID 3"), Reply::Integer(1));
        assert_eq!(
            run(&mut e, b, "CLIENT KILL ID 2 SKIPME no"),
            Reply::Integer(1)
        );
        e.disconnect(c);
        e.disconnect(b);
        assert_eq!(listed(&run(&mut e, a, "CLIENT LIST")), vec!["id=1"]);
    }
}
