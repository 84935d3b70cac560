//! Server-side scripts (EVAL): the script cache, by SHA-1, with each script's shebang
//! flags, and the Lua environment they run in (one per server, as in Redis, made when the
//! first script arrives so that a session that never scripts never pays for it).
//!
//! The commands are in [`crate::engine::cmd::scripting`]; the interpreter is the
//! `kvlab-lua` crate (Lua 5.1.5 with Redis's patches and libraries).

use indexmap::IndexMap;
use kvlab_lua::redis::Env;

use crate::engine::table::Flags;

bitflags::bitflags! {
    /// A script's flags (Redis's `SCRIPT_FLAG_*`), from its `#!lua flags=...` line.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
    pub struct ScriptFlags: u8 {
        /// `no-writes`: the script may not call write commands.
        const NO_WRITES = 1 << 0;
        /// `allow-oom`: runs even when memory is over `maxmemory`.
        const ALLOW_OOM = 1 << 1;
        /// `allow-stale`: runs on a stale replica.
        const ALLOW_STALE = 1 << 2;
        /// `no-cluster`: refused in cluster mode.
        const NO_CLUSTER = 1 << 3;
        /// `allow-cross-slot-keys`: may touch keys of several slots.
        const ALLOW_CROSS_SLOT = 1 << 4;
        /// No shebang: the rules of Redis before 7.0 (writes allowed, flags from the
        /// command).
        const EVAL_COMPAT_MODE = 1 << 5;
    }
}

/// The flag names a shebang may use, as Redis spells them.
pub const FLAG_NAMES: &[(ScriptFlags, &str)] = &[
    (ScriptFlags::NO_WRITES, "no-writes"),
    (ScriptFlags::ALLOW_OOM, "allow-oom"),
    (ScriptFlags::ALLOW_STALE, "allow-stale"),
    (ScriptFlags::NO_CLUSTER, "no-cluster"),
    (ScriptFlags::ALLOW_CROSS_SLOT, "allow-cross-slot-keys"),
];

/// One cached script.
#[derive(Debug, Clone)]
pub struct Script {
    /// Its source, as sent.
    pub body: Vec<u8>,
    /// Its shebang flags.
    pub flags: ScriptFlags,
}

/// The scripting state of a server.
#[derive(Default)]
pub struct Scripts {
    /// The Lua environment, made on first use and dropped by `SCRIPT FLUSH`.
    env: Option<Env>,
    /// Cached scripts by lowercase SHA-1, in load order.
    pub cache: IndexMap<String, Script>,
}

impl std::fmt::Debug for Scripts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scripts")
            .field("cache", &self.cache.len())
            .finish()
    }
}

impl Scripts {
    /// The environment, made now if there is none.
    /// `deprecated_api` is `lua-enable-deprecated-api`, which only matters the first time
    /// (it is immutable once the server runs).
    pub fn env(&mut self, deprecated_api: bool) -> &mut Env {
        self.env
            .get_or_insert_with(|| Env::with_deprecated_api(deprecated_api))
    }

    /// Takes the environment out for a run (the run needs the server mutably); give it
    /// back with [`Scripts::put_env`].
    pub fn take_env(&mut self, deprecated_api: bool) -> Env {
        self.env
            .take()
            .unwrap_or_else(|| Env::with_deprecated_api(deprecated_api))
    }

    /// Puts the environment back after a run.
    pub fn put_env(&mut self, env: Env) {
        self.env = Some(env);
    }

    /// `SCRIPT FLUSH`: forgets every script and starts a fresh environment (Redis's
    /// `scriptingReset`), dropping whatever globals scripts left behind.
    pub fn flush(&mut self) {
        self.cache.clear();
        self.env = None;
    }

    /// The flags of `EVAL script …` (`by_sha`: `EVALSHA sha1 …`) as processCommand sees
    /// them (Redis's `evalGetCommandFlags`), `cmd` being its row's: a cached script's, or
    /// the shebang of a body not cached yet; the row's for a script without a shebang
    /// (or one unknown, or unreadable). O(length of the body) to hash it: asked only by
    /// the checks that need it (CLIENT PAUSE, maxmemory, min-replicas-to-write).
    pub fn eval_flags(&self, cmd: Flags, argv: &[Vec<u8>], by_sha: bool) -> Flags {
        let Some(arg) = argv.get(1) else {
            return cmd;
        };
        if by_sha && arg.len() != 40 {
            return cmd;
        }
        let sha = if by_sha {
            String::from_utf8_lossy(arg).to_ascii_lowercase()
        } else {
            sha1hex(arg)
        };
        let flags = match self.cache.get(&sha) {
            Some(s) => s.flags,
            None if by_sha => return cmd,
            None => match shebang(arg) {
                Ok((flags, _)) => flags,
                Err(_) => return cmd,
            },
        };
        if flags.contains(ScriptFlags::EVAL_COMPAT_MODE) {
            return cmd;
        }
        script_command_flags(cmd, flags)
    }

    /// Bytes the interpreter holds (`used_memory_lua`); a server that never ran a script
    /// reports what a fresh environment would hold, as Redis does from start-up.
    pub fn lua_memory(&self) -> usize {
        self.env.as_ref().map_or(FRESH_ENV_BYTES, |e| e.memory())
    }

    /// Bytes the cache holds (`used_memory_scripts_eval`): bodies and names.
    pub fn cache_memory(&self) -> usize {
        self.cache.values().map(|s| s.body.len() + 40 + 64).sum()
    }
}

/// What a fresh environment holds: the 31,744 bytes a fresh redis-server reports; kvlab's
/// measures 32,332 (the tests check it stays within 2 KiB).
pub const FRESH_ENV_BYTES: usize = 31 * 1024;

/// The SHA-1 of a script body, lowercase hex (its name in the cache).
pub fn sha1hex(body: &[u8]) -> String {
    kvlab_lua::sha1hex(body)
}

/// Reads a script's `#!` line (Redis's `evalExtractShebangFlags`): the flags and how many
/// bytes the line takes (the line feed after it stays, so line numbers hold). A body with
/// no shebang gets [`ScriptFlags::EVAL_COMPAT_MODE`]. The error is Redis's text.
pub fn shebang(body: &[u8]) -> Result<(ScriptFlags, usize), String> {
    if !body.starts_with(b"#!") {
        return Ok((ScriptFlags::EVAL_COMPAT_MODE, 0));
    }
    let Some(end) = body.iter().position(|&b| b == b'\n') else {
        return Err("Invalid script shebang".into());
    };
    let line = &body[..end];
    let Some(parts) = crate::engine::splitargs::split_args_bytes(line) else {
        return Err("Invalid engine in script shebang".into());
    };
    let Some(engine) = parts.first() else {
        return Err("Invalid engine in script shebang".into());
    };
    if engine.as_slice() != b"#!lua" {
        return Err(format!(
            "Unexpected engine in script shebang: {}",
            String::from_utf8_lossy(c_str(engine))
        ));
    }
    let mut flags = ScriptFlags::empty();
    for part in &parts[1..] {
        let Some(list) = part.strip_prefix(b"flags=") else {
            return Err(format!(
                "Unknown lua shebang option: {}",
                String::from_utf8_lossy(c_str(part))
            ));
        };
        if list.is_empty() {
            continue;
        }
        for name in list.split(|&b| b == b',') {
            match FLAG_NAMES.iter().find(|(_, n)| n.as_bytes() == name) {
                Some((f, _)) => flags |= *f,
                None => {
                    return Err(format!(
                        "Unexpected flag in script shebang: {}",
                        String::from_utf8_lossy(c_str(name))
                    ))
                }
            }
        }
    }
    Ok((flags, end))
}

fn c_str(s: &[u8]) -> &[u8] {
    s.iter().position(|&b| b == 0).map_or(s, |n| &s[..n])
}

/// The flags a command that runs a script with `script` flags has for the checks before
/// it runs (Redis's `scriptFlagsToCmdFlags`): the script's flags replace the command's
/// `write`, `denyoom` and `stale` (`no-writes` implies `allow-oom`), and the command no
/// longer "may replicate": the flags tell.
pub fn script_command_flags(cmd: Flags, script: ScriptFlags) -> Flags {
    let mut flags = cmd.difference(
        Flags::STALE
            .union(Flags::DENYOOM)
            .union(Flags::WRITE)
            .union(Flags::MAY_REPLICATE),
    );
    if !script.intersects(ScriptFlags::ALLOW_OOM | ScriptFlags::NO_WRITES) {
        flags |= Flags::DENYOOM;
    }
    if !script.contains(ScriptFlags::NO_WRITES) {
        flags |= Flags::WRITE;
    }
    if script.contains(ScriptFlags::ALLOW_STALE) {
        flags |= Flags::STALE;
    }
    flags
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fresh_environment_holds_about_what_is_reported_before_one_exists() {
        let bytes = Env::new().memory() as i64;
        assert!((bytes - FRESH_ENV_BYTES as i64).abs() < 2048, "{bytes}");
    }

    #[test]
    fn shebangs_read_as_redis_reads_them() {
        assert_eq!(shebang(b"return 1"), Ok((ScriptFlags::EVAL_COMPAT_MODE, 0)));
        assert_eq!(shebang(b"#!lua\nreturn 1"), Ok((ScriptFlags::empty(), 5)));
        assert_eq!(
            shebang(b"#!lua flags=no-writes,allow-oom\nreturn 1"),
            Ok((ScriptFlags::NO_WRITES | ScriptFlags::ALLOW_OOM, 31))
        );
        assert_eq!(shebang(b"#!lua flags=\nx"), Ok((ScriptFlags::empty(), 12)));
        assert_eq!(shebang(b"#!lua"), Err("Invalid script shebang".into()));
        assert_eq!(
            shebang(b"#!py\n"),
            Err("Unexpected engine in script shebang: #!py".into())
        );
        assert_eq!(
            shebang(b"#!lua name=x\n"),
            Err("Unknown lua shebang option: name=x".into())
        );
        assert_eq!(
            shebang(b"#!lua flags=no-writes,bad\n"),
            Err("Unexpected flag in script shebang: bad".into())
        );
    }
}
