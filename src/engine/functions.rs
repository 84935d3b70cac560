//! Server-side functions (Redis 7.0's `functions.c`): libraries of named functions,
//! loaded with `FUNCTION LOAD`, called with `FCALL`. Each library keeps its code (it is
//! data, like keys: `FUNCTION DUMP` and the snapshot carry it); the callbacks live in
//! the functions' own Lua state ([`FunctionEnv`]), made when the first library loads.
//!
//! The commands are in [`crate::engine::cmd::functions`].

use indexmap::IndexMap;
use kvlab_lua::redis::FunctionEnv;

use crate::engine::scripting::{script_command_flags, ScriptFlags};
use crate::engine::table::Flags;

/// One function of a library.
#[derive(Debug, Clone)]
pub struct Function {
    /// Its name (letters, digits, `_`).
    pub name: String,
    /// `description=`, if the library gave one.
    pub description: Option<Vec<u8>>,
    /// Its flags.
    pub flags: ScriptFlags,
    /// Its callback's place in the engine.
    pub id: i32,
}

/// A library: its code, as loaded (shebang included), and its functions in the order
/// they were registered.
#[derive(Debug, Clone)]
pub struct Library {
    /// Its name, from `#!lua name=...`.
    pub name: String,
    /// The code, as sent to `FUNCTION LOAD`.
    pub code: Vec<u8>,
    /// Its functions.
    pub functions: Vec<Function>,
}

/// The server's libraries.
#[derive(Default)]
pub struct Functions {
    env: Option<FunctionEnv>,
    /// Libraries by name, in load order.
    pub libraries: IndexMap<String, Library>,
    /// Function name, lowercase (Redis looks functions up ignoring case), to its
    /// library's name.
    pub index: IndexMap<String, String>,
}

impl std::fmt::Debug for Functions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Functions")
            .field("libraries", &self.libraries.len())
            .finish()
    }
}

/// `used_memory_vm_functions` of a fresh redis-server 7.0.15 (33 KB; a fresh
/// [`FunctionEnv`] holds the same, tested below).
pub const FRESH_VM_BYTES: usize = 33_792;

/// `FUNCTION LOAD`'s timeout (Redis's `LOAD_TIMEOUT_MS`).
pub const LOAD_TIMEOUT_MS: u64 = 500;

const BAD_NAME: &str = "Library names can only contain letters, numbers, or underscores(_) and must be at least one character long";

/// A library's name and the code after its shebang line (`functionExtractLibMetaData`).
/// The error is Redis's text (without `ERR `).
pub fn metadata(code: &[u8]) -> Result<(String, usize), String> {
    if !code.starts_with(b"#!") {
        return Err("Missing library metadata".into());
    }
    let Some(end) = code.iter().position(|&b| b == b'\n') else {
        return Err("Invalid library metadata".into());
    };
    let parts = match crate::engine::cli::split_args_bytes(&code[..end]) {
        Some(p) if !p.is_empty() => p,
        _ => return Err("Invalid library metadata".into()),
    };
    let engine = &parts[0][2..];
    let mut name = None;
    for part in &parts[1..] {
        if part.len() >= 5 && part[..5].eq_ignore_ascii_case(b"name=") {
            if name.is_some() {
                return Err(
                    "Invalid metadata value, name argument was given multiple times".into(),
                );
            }
            name = Some(part[5..].to_vec());
            continue;
        }
        return Err(format!(
            "Invalid metadata value given: {}",
            String::from_utf8_lossy(c_str(part))
        ));
    }
    let Some(name) = name else {
        return Err("Library name was not given".into());
    };
    if !kvlab_lua::redis::function_name_ok(&name) {
        return Err(BAD_NAME.into());
    }
    if engine != b"lua" && !engine.eq_ignore_ascii_case(b"lua") {
        return Err(format!(
            "Engine '{}' not found",
            String::from_utf8_lossy(engine)
        ));
    }
    Ok((String::from_utf8(name).unwrap_or_default(), end))
}

fn c_str(s: &[u8]) -> &[u8] {
    s.iter().position(|&b| b == 0).map_or(s, |n| &s[..n])
}

impl Functions {
    fn env(&mut self) -> &mut FunctionEnv {
        self.env.get_or_insert_with(FunctionEnv::new)
    }

    /// Takes the engine out for a call; give it back with [`Functions::put_env`].
    pub fn take_env(&mut self) -> FunctionEnv {
        self.env.take().unwrap_or_default()
    }

    /// Puts the engine back after a call.
    pub fn put_env(&mut self, env: FunctionEnv) {
        self.env = Some(env);
    }

    /// What `redis.log` said while libraries loaded.
    pub fn take_log(&mut self) -> Vec<(i32, Vec<u8>)> {
        self.env.as_mut().map(|e| e.take_log()).unwrap_or_default()
    }

    /// Bytes the engine holds (`used_memory_vm_functions`); before the first library
    /// loads, what a fresh redis-server reports (it makes its engine at start-up).
    pub fn vm_memory(&self) -> usize {
        self.env.as_ref().map_or(FRESH_VM_BYTES, |e| e.memory())
    }

    /// Bytes the libraries take besides the engine (`used_memory_functions`), estimated
    /// as Redis counts them: a fixed overhead, each library's code and records, each
    /// function's record.
    pub fn memory(&self) -> usize {
        200 + self
            .libraries
            .values()
            .map(|l| l.code.len() + 64 + 112 * l.functions.len())
            .sum::<usize>()
    }

    /// Compiles a library without linking it (the first half of
    /// `functionsCreateWithLibraryCtx`).
    fn compile(
        &mut self,
        code: Vec<u8>,
        timeout_ms: u64,
        clock: &dyn Fn() -> u64,
    ) -> Result<Library, String> {
        let (name, end) = metadata(&code)?;
        let registered = self
            .env()
            .load(&code[end..], timeout_ms, clock)
            .map_err(|e| String::from_utf8_lossy(&e).into_owned())?;
        if registered.is_empty() {
            return Err("No functions registered".into());
        }
        let functions = registered
            .into_iter()
            .map(|r| Function {
                name: String::from_utf8(r.name).unwrap_or_default(),
                description: r.description,
                flags: ScriptFlags::from_bits_truncate(r.flags),
                id: r.id,
            })
            .collect();
        Ok(Library {
            name,
            code,
            functions,
        })
    }

    /// `FUNCTION LOAD [REPLACE] code`: the library's name, or Redis's error text.
    pub fn load(
        &mut self,
        code: Vec<u8>,
        replace: bool,
        timeout_ms: u64,
        clock: &dyn Fn() -> u64,
    ) -> Result<String, String> {
        let (name, _) = metadata(&code)?;
        if self.libraries.contains_key(&name) && !replace {
            return Err(format!("Library '{name}' already exists"));
        }
        let lib = self.compile(code, timeout_ms, clock)?;
        self.link(vec![lib], true)?;
        Ok(name)
    }

    /// Adds libraries (`libraryJoin`): an existing library of the same name is an error,
    /// or with `replace` is replaced; a function name another library holds is an error.
    /// On error nothing changes and the new libraries' callbacks are dropped.
    pub fn link(&mut self, libs: Vec<Library>, replace: bool) -> Result<(), String> {
        let mut err = None;
        for lib in &libs {
            if self.libraries.contains_key(&lib.name) && !replace {
                err = Some(format!("Library {} already exists", lib.name));
                break;
            }
        }
        if err.is_none() {
            'outer: for lib in &libs {
                for f in &lib.functions {
                    if let Some(owner) = self.index.get(&f.name.to_ascii_lowercase()) {
                        let replaced = libs.iter().any(|l| &l.name == owner);
                        if !replaced {
                            err = Some(format!("Function {} already exists", f.name));
                            break 'outer;
                        }
                    }
                }
            }
        }
        if let Some(err) = err {
            let ids: Vec<i32> = libs
                .iter()
                .flat_map(|l| l.functions.iter().map(|f| f.id))
                .collect();
            self.env().forget(ids);
            return Err(err);
        }
        for lib in libs {
            self.delete(&lib.name);
            for f in &lib.functions {
                self.index
                    .insert(f.name.to_ascii_lowercase(), lib.name.clone());
            }
            self.libraries.insert(lib.name.clone(), lib);
        }
        Ok(())
    }

    /// `FUNCTION DELETE`: whether the library was there.
    pub fn delete(&mut self, name: &str) -> bool {
        let Some(lib) = self.libraries.shift_remove(name) else {
            return false;
        };
        for f in &lib.functions {
            self.index.shift_remove(&f.name.to_ascii_lowercase());
        }
        if let Some(env) = self.env.as_mut() {
            env.forget(lib.functions.iter().map(|f| f.id));
        }
        true
    }

    /// `FUNCTION FLUSH`: every library gone, a fresh engine.
    pub fn flush(&mut self) {
        self.libraries.clear();
        self.index.clear();
        self.env = None;
    }

    /// The flags of `FCALL name ...` or `FCALL_RO name ...` (`cmd` its row's flags) as
    /// processCommand sees them (Redis's `fcallGetCommandFlags`): its function's, if it
    /// exists.
    pub fn fcall_flags(&self, cmd: Flags, argv: &[Vec<u8>]) -> Flags {
        match argv.get(1).and_then(|name| self.find(name)) {
            Some(f) => script_command_flags(cmd, f.flags),
            None => cmd,
        }
    }

    /// A function by name, ignoring ASCII case.
    pub fn find(&self, name: &[u8]) -> Option<&Function> {
        let name = std::str::from_utf8(name).ok()?.to_ascii_lowercase();
        let lib = self.libraries.get(self.index.get(&name)?)?;
        lib.functions
            .iter()
            .find(|f| f.name.eq_ignore_ascii_case(&name))
    }

    /// `FUNCTION RESTORE`'s libraries: compiled one by one apart from the current ones,
    /// as into Redis's fresh library context (a library or function named twice in the
    /// payload is an error), then linked by `policy` (`b'F'`lush, `b'A'`ppend,
    /// `b'R'`eplace). On error nothing changes.
    pub fn restore(
        &mut self,
        codes: Vec<Vec<u8>>,
        policy: u8,
        clock: &dyn Fn() -> u64,
    ) -> Result<(), String> {
        let mut libs: Vec<Library> = Vec::new();
        let mut err = None;
        for code in codes {
            let name = match metadata(&code) {
                Ok((name, _)) => name,
                Err(e) => {
                    err = Some(e);
                    break;
                }
            };
            if libs.iter().any(|l| l.name == name) {
                err = Some(format!("Library '{name}' already exists"));
                break;
            }
            match self.compile(code, 0, clock) {
                Ok(lib) => {
                    let twice = lib.functions.iter().find(|f| {
                        libs.iter().any(|l| {
                            l.functions
                                .iter()
                                .any(|g| g.name.eq_ignore_ascii_case(&f.name))
                        })
                    });
                    if let Some(f) = twice {
                        err = Some(format!("Function {} already exists", f.name));
                        libs.push(lib);
                        break;
                    }
                    libs.push(lib);
                }
                Err(e) => {
                    err = Some(e);
                    break;
                }
            }
        }
        if let Some(e) = err {
            let ids: Vec<i32> = libs
                .iter()
                .flat_map(|l| l.functions.iter().map(|f| f.id))
                .collect();
            self.env().forget(ids);
            return Err(e);
        }
        if policy == b'F' {
            let names: Vec<String> = self.libraries.keys().cloned().collect();
            for n in names {
                self.delete(&n);
            }
        }
        self.link(libs, policy == b'R')
    }

    /// Reloads libraries from their code (a snapshot), skipping any that fail.
    pub fn load_all(&mut self, codes: Vec<Vec<u8>>) {
        for code in codes {
            let _ = self.load(code, true, 0, &|| 0);
        }
    }

    /// Every library's code, in load order (FUNCTION DUMP, snapshots).
    pub fn codes(&self) -> Vec<Vec<u8>> {
        self.libraries.values().map(|l| l.code.clone()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIB: &[u8] = b"#!lua name=lib\nredis.register_function('f', function(k, a) return 1 end)";

    #[test]
    fn a_fresh_engine_holds_what_is_reported_before_one_exists() {
        assert_eq!(FunctionEnv::new().memory(), FRESH_VM_BYTES);
    }

    #[test]
    fn load_replace_delete() {
        let mut f = Functions::default();
        assert_eq!(f.load(LIB.to_vec(), false, 0, &|| 0), Ok("lib".into()));
        assert_eq!(
            f.load(LIB.to_vec(), false, 0, &|| 0),
            Err("Library 'lib' already exists".into())
        );
        assert_eq!(f.load(LIB.to_vec(), true, 0, &|| 0), Ok("lib".into()));
        let other = b"#!lua name=other\nredis.register_function('f', function() end)";
        assert_eq!(
            f.load(other.to_vec(), false, 0, &|| 0),
            Err("Function f already exists".into())
        );
        assert!(f.find(b"f").is_some());
        assert!(f.find(b"F").is_some(), "function names ignore case");
        assert!(f.delete("lib"));
        assert!(f.find(b"f").is_none());
        assert!(!f.delete("lib"));
    }

    #[test]
    fn metadata_errors() {
        assert_eq!(metadata(b"x"), Err("Missing library metadata".into()));
        assert_eq!(
            metadata(b"#!lua name=x"),
            Err("Invalid library metadata".into())
        );
        assert_eq!(
            metadata(b"#!lua\n"),
            Err("Library name was not given".into())
        );
        assert_eq!(metadata(b"#!lua name=a-b\n"), Err(BAD_NAME.into()));
        assert_eq!(
            metadata(b"#!lua name=a x=1\n"),
            Err("Invalid metadata value given: x=1".into())
        );
        assert_eq!(
            metadata(b"#!pyth name=a\n"),
            Err("Engine 'pyth' not found".into())
        );
    }
}
