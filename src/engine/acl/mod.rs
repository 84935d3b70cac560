//! ACL users, as Redis 7.0's `acl.c` keeps them (without selectors): the users table, each
//! user's passwords (SHA-256, hex), the commands it may run (a set of table rows), its key
//! patterns with read/write permissions and its channel patterns; the check dispatch and
//! `redis.acl_check_cmd` make; and the rules string `ACL LIST` prints.
//!
//! The `default` user starts on, `nopass`, `~* &* +@all`; `requirepass` sets its password
//! ([`Users::set_requirepass`]). While every user may run everything on every key and
//! channel, [`Users::all_open`] is true and dispatch checks nothing.
//!
//! # Layout
//! - [`rules`]: the `ACL SETUSER` rules and their error texts.
//! - `describe`: the rules string of a user (`ACL LIST`, `ACL GETUSER`).

mod describe;
pub mod rules;

use std::collections::{BTreeMap, HashSet};

use crate::engine::glob;
use crate::engine::table::row::Table as RowTable;
use crate::engine::table::{CommandRow, Flags, Group, KeyFlags};

/// The ACL categories in Redis's order (`ACL CAT`), without `@` (the table's list).
pub use crate::engine::table::row::ACL_CATEGORIES as CATEGORIES;

/// What a command row's handler must be for the table to be walked (the engine's
/// handler type is one; the module stays below the engine's core this way).
pub trait RowHandler: Copy + Sync + Send + 'static {}
impl<T: Copy + Sync + Send + 'static> RowHandler for T {}

/// A row's identity in a user's command set: its address in the static table.
fn row_id<H: RowHandler>(c: &CommandRow<H>) -> usize {
    c as *const CommandRow<H> as usize
}

/// Every row of the table with its full name (`config|get`), each container followed by
/// its subcommands, as Redis walks its command dict.
pub fn rows<H: RowHandler>(table: &'static RowTable<H>) -> Vec<(&'static CommandRow<H>, String)> {
    let mut out = Vec::new();
    for c in table.all() {
        out.push((c, c.name.to_string()));
        for s in c.subcommands {
            out.push((s, format!("{}|{}", c.name, s.name)));
        }
    }
    out
}

/// A key pattern and what it permits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyPattern {
    /// The glob-style pattern.
    pub pattern: Vec<u8>,
    /// `%R~`: reading keys that match.
    pub read: bool,
    /// `%W~`: writing keys that match.
    pub write: bool,
}

/// One ACL user.
#[derive(Debug, Clone)]
pub struct User {
    /// The user's name.
    pub name: Vec<u8>,
    /// `on`: it may authenticate.
    pub enabled: bool,
    /// `nopass`: any password authenticates it.
    pub nopass: bool,
    /// `sanitize-payload` (`Some(true)`) or `skip-sanitize-payload` (`Some(false)`), as
    /// last set (`reset` sets the first); only shown, payloads are always checked here.
    pub sanitize: Option<bool>,
    /// SHA-256 hashes (lowercase hex) of its passwords, in the order they were added.
    pub passwords: Vec<String>,
    /// Redis's `ALLCOMMANDS` flag: set by `+@all`, cleared when any command is removed.
    all_commands: bool,
    /// Redis's reserved "future commands" bit: set by `+@all`, cleared by `-@all`; the
    /// rules string starts from `+@all` when it is set.
    future: bool,
    /// The rows (by [`row_id`]) it may run.
    allowed: HashSet<usize>,
    /// `allkeys` / `~*`.
    pub all_keys: bool,
    /// Its key patterns (when not `all_keys`).
    pub keys: Vec<KeyPattern>,
    /// `allchannels` / `&*`.
    pub all_channels: bool,
    /// Its channel patterns (when not `all_channels`).
    pub channels: Vec<Vec<u8>>,
}

/// Why a user may not run a command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Denied {
    /// The command itself.
    Command,
    /// The key at this argument position.
    Key(usize),
    /// The channel at this argument position.
    Channel(usize),
}

impl User {
    /// A user as `ACL SETUSER` creates it: off, no passwords, no keys, no channels
    /// (`acl-pubsub-default` is `resetchannels`), no commands.
    pub fn new(name: &[u8]) -> User {
        User {
            name: name.to_vec(),
            enabled: false,
            nopass: false,
            sanitize: None,
            passwords: Vec::new(),
            all_commands: false,
            future: false,
            allowed: HashSet::new(),
            all_keys: false,
            keys: Vec::new(),
            all_channels: false,
            channels: Vec::new(),
        }
    }

    /// The `default` user: on, `nopass`, `~* &* +@all`.
    pub fn default_user<H: RowHandler>(table: &'static RowTable<H>) -> User {
        let mut u = User::new(b"default");
        u.enabled = true;
        u.nopass = true;
        u.all_keys = true;
        u.all_channels = true;
        u.allow_all(table);
        u
    }

    /// `+@all`: every command, now and (the future bit) later.
    fn allow_all<H: RowHandler>(&mut self, table: &'static RowTable<H>) {
        self.allowed = rows(table).into_iter().map(|(c, _)| row_id(c)).collect();
        self.all_commands = true;
        self.future = true;
    }

    /// May run everything on every key and channel: dispatch need not look.
    pub fn open(&self) -> bool {
        self.all_commands && self.all_keys && self.all_channels
    }

    /// Its flags as `ACL GETUSER` and `ACL LIST` name them, in Redis's order.
    pub fn flags(&self) -> Vec<&'static str> {
        let mut out = vec![if self.enabled { "on" } else { "off" }];
        if self.nopass {
            out.push("nopass");
        }
        match self.sanitize {
            Some(false) => out.push("skip-sanitize-payload"),
            Some(true) => out.push("sanitize-payload"),
            None => {}
        }
        out
    }

    /// True when `pass` authenticates this user (on, and `nopass` or a matching hash).
    pub fn accepts(&self, pass: &[u8]) -> bool {
        self.enabled && (self.nopass || self.passwords.contains(&sha256_hex(pass)))
    }

    /// Allows (or denies) one row, and a container's subcommands with it (Redis's
    /// `ACLChangeSelectorPerm`).
    fn set_row<H: RowHandler>(&mut self, c: &'static CommandRow<H>, allow: bool) {
        for r in std::iter::once(c).chain(c.subcommands.iter()) {
            if allow {
                self.allowed.insert(row_id(r));
            } else {
                self.allowed.remove(&row_id(r));
                self.all_commands = false;
            }
        }
    }

    /// Allows or denies every row in category `cat`, each with its subcommands.
    fn set_category<H: RowHandler>(&mut self, table: &'static RowTable<H>, cat: &str, allow: bool) {
        for (c, _) in rows(table) {
            if c.acl_categories().contains(&cat) {
                self.set_row(c, allow);
            }
        }
    }

    /// Checks `argv` for the row `cmd` that runs it, as Redis's `ACLSelectorCheckCmd`:
    /// the command, then each key against the patterns that permit what the key spec
    /// does with it (read for `access`, write for `insert`/`delete`/`update`), then the
    /// channels of the pub/sub commands. O(arguments × patterns).
    pub fn check<H: RowHandler>(
        &self,
        cmd: &'static CommandRow<H>,
        argv: &[Vec<u8>],
    ) -> Result<(), Denied> {
        if !self.all_commands
            && !cmd.flags.contains(Flags::NO_AUTH)
            && !self.allowed.contains(&row_id(cmd))
        {
            return Err(Denied::Command);
        }
        if !self.all_keys && cmd.has_keys() && cmd.arity_ok(argv.len()) {
            for (pos, f) in cmd.keys_and_flags(argv, false).unwrap_or_default() {
                let read = f.contains(KeyFlags::ACCESS);
                let write = f.intersects(KeyFlags::INSERT | KeyFlags::DELETE | KeyFlags::UPDATE);
                let key = argv.get(pos).map(Vec::as_slice).unwrap_or_default();
                let ok = self.keys.iter().any(|p| {
                    (p.read || !read)
                        && (p.write || !write)
                        && glob::matches(&p.pattern, key, false)
                });
                if !ok {
                    return Err(Denied::Key(pos));
                }
            }
        }
        if !self.all_channels && cmd.group == Group::Pubsub && cmd.subcommands.is_empty() {
            let (last, pattern) = match cmd.name {
                "publish" | "spublish" => (2, false),
                "subscribe" | "ssubscribe" => (argv.len(), false),
                "psubscribe" => (argv.len(), true),
                _ => (0, false),
            };
            for (pos, ch) in argv.iter().enumerate().take(last).skip(1) {
                let ok = self.channels.iter().any(|p| {
                    if pattern {
                        p == ch
                    } else {
                        glob::matches(p, ch, false)
                    }
                });
                if !ok {
                    return Err(Denied::Channel(pos));
                }
            }
        }
        Ok(())
    }
}

impl Denied {
    /// What a script's `redis.call` says after "The user executing the script " (Redis's
    /// `getAclErrorMessage`).
    pub fn script_reason(self) -> &'static str {
        match self {
            Denied::Command => "can't run this command or subcommand",
            Denied::Key(_) => {
                "can't access at least one of the keys mentioned in the command arguments"
            }
            Denied::Channel(_) => "can't publish to the channel mentioned in the command",
        }
    }
}

/// The users table.
#[derive(Debug, Clone)]
pub struct Users {
    users: BTreeMap<Vec<u8>, User>,
    /// Every user is [`User::open`].
    all_open: bool,
}

impl Users {
    /// The table of a new server: `default` alone.
    pub fn new<H: RowHandler>(table: &'static RowTable<H>) -> Users {
        let mut users = BTreeMap::new();
        users.insert(b"default".to_vec(), User::default_user(table));
        Users {
            users,
            all_open: true,
        }
    }

    /// True while no user is restricted in anything: dispatch's fast path.
    #[inline]
    pub fn all_open(&self) -> bool {
        self.all_open
    }

    /// Whether `user` may run `argv` (row `cmd`, full name `fullname`), as dispatch asks:
    /// `NOPERM` in Redis's words when not. A user that no longer exists may run nothing.
    pub fn permit<H: RowHandler>(
        &self,
        user: &[u8],
        cmd: &'static CommandRow<H>,
        fullname: &str,
        argv: &[Vec<u8>],
    ) -> Result<(), crate::engine::error::Error> {
        use crate::engine::error::Error;
        let Some(u) = self.users.get(user) else {
            return Err(Error::NoPermCommand(fullname.to_string()));
        };
        match u.check(cmd, argv) {
            Ok(()) => Ok(()),
            Err(Denied::Command) => Err(Error::NoPermCommand(fullname.to_string())),
            Err(Denied::Key(_)) => Err(Error::NoPermKey),
            Err(Denied::Channel(_)) => Err(Error::NoPermChannel),
        }
    }

    /// A user by name.
    pub fn get(&self, name: &[u8]) -> Option<&User> {
        self.users.get(name)
    }

    /// The `default` user (always present).
    pub fn default_user(&self) -> &User {
        &self.users[&b"default"[..]]
    }

    /// A new client must authenticate (Redis's `authRequired` for a fresh client): the
    /// default user has passwords or is off.
    pub fn auth_required(&self) -> bool {
        let d = self.default_user();
        !d.nopass || !d.enabled
    }

    /// The users in name order.
    pub fn iter(&self) -> impl Iterator<Item = &User> {
        self.users.values()
    }

    /// Stores `user` (replacing one of its name).
    pub fn put(&mut self, user: User) {
        self.users.insert(user.name.clone(), user);
        self.recount();
    }

    /// Removes a user; `default` cannot be removed (the caller refuses it first).
    pub fn remove(&mut self, name: &[u8]) -> bool {
        let gone = name != b"default" && self.users.remove(name).is_some();
        self.recount();
        gone
    }

    fn recount(&mut self) {
        self.all_open = self.users.values().all(User::open);
    }

    /// `requirepass` changed: the default user's passwords become that one, or `nopass`
    /// when it is empty (Redis's `ACLUpdateDefaultUserPassword`).
    pub fn set_requirepass(&mut self, pass: &str) {
        if let Some(d) = self.users.get_mut(&b"default"[..]) {
            d.passwords.clear();
            d.nopass = pass.is_empty();
            if !pass.is_empty() {
                d.passwords.push(sha256_hex(pass.as_bytes()));
            }
        }
    }
}

/// The SHA-256 of `data` in lowercase hex, as Redis stores passwords.
pub fn sha256_hex(data: &[u8]) -> String {
    use sha2::Digest;
    let digest = sha2::Sha256::digest(data);
    let mut out = String::with_capacity(64);
    for b in digest.iter() {
        out.push_str(&format!("{b:02x}"));
    }
    out
}
