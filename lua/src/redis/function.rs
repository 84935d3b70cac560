//! The Lua engine of Redis 7.0's functions (`function_lua.c`): a state of its own, set
//! up as `luaEngineInitEngine` does. Its real globals (the libraries and the runtime
//! `redis` table) hide behind an empty, read-only globals table whose metatable's
//! `__index` points at them; while a library loads, `__index` points at the library API
//! instead, which holds only `redis.register_function`, `redis.log` and the version, so
//! a library's top level can do nothing but register its functions.
use super::api::{self, raise_error_table, set_fn, set_num, shared};
use super::convert::push_error_buff;
use super::{protect, run, Host, Interp, ScriptError, Shared, Step, Value};
use crate::cstr;
use crate::ffi::*;
use crate::state::{self, to_bytes};
use std::ffi::{c_char, c_int};

/// The flag names `redis.register_function{flags=...}` takes, in Redis's order; bit `i`
/// of [`Registered::flags`] is name `i`.
pub const FLAG_NAMES: &[&str] = &[
    "no-writes",
    "allow-oom",
    "allow-stale",
    "no-cluster",
    "allow-cross-slot-keys",
];

/// One function a library registered while it loaded.
#[derive(Debug, Clone, PartialEq)]
pub struct Registered {
    /// Its name.
    pub name: Vec<u8>,
    /// `description=`, if given.
    pub description: Option<Vec<u8>>,
    /// Its flags: bit `i` is `FLAG_NAMES``[i]`.
    pub flags: u8,
    /// Where its callback is kept in this environment (for [`FunctionEnv::call`]).
    pub id: i32,
}

/// A library load in progress (Redis's `loadCtx`).
pub(crate) struct LoadCtx {
    functions: Vec<Registered>,
    clock: *const (dyn Fn() -> u64 + 'static),
    start_ms: u64,
    timeout_ms: u64,
}

/// The functions' Lua state.
pub struct FunctionEnv(Interp);

impl std::ops::Deref for FunctionEnv {
    type Target = Interp;
    fn deref(&self) -> &Interp {
        &self.0
    }
}

impl std::ops::DerefMut for FunctionEnv {
    fn deref_mut(&mut self) -> &mut Interp {
        &mut self.0
    }
}

const LIBRARY_API: *const c_char = cstr!("kvlab_library_api");
const GLOBALS_API: *const c_char = cstr!("kvlab_globals_api");
const CALLBACKS: *const c_char = cstr!("kvlab_callbacks");
const NEXT_ID: *const c_char = cstr!("kvlab_next_id");

impl FunctionEnv {
    /// A fresh engine (Redis's `luaEngineInitEngine`).
    pub fn new() -> FunctionEnv {
        FunctionEnv(Interp::new(setup_functions, false, "the functions engine"))
    }

    /// Runs a library's code (what follows its shebang line, the line feed included)
    /// so it registers its functions (Redis's `luaEngineCreate`). `clock` reads
    /// milliseconds for the load timeout (`timeout_ms`, 0 for none). The error is the
    /// reply's text without `ERR `.
    pub fn load(
        &mut self,
        code: &[u8],
        timeout_ms: u64,
        clock: &dyn Fn() -> u64,
    ) -> Result<Vec<Registered>, Vec<u8>> {
        let l = self.lua.raw();
        // SAFETY: erasing the clock's lifetime: the pointer is dropped before we return.
        let clock: *const (dyn Fn() -> u64 + 'static) =
            unsafe { std::mem::transmute(clock as *const dyn Fn() -> u64) };
        let mut ctx = LoadCtx {
            functions: Vec::new(),
            clock,
            // SAFETY: the closure is alive for this call.
            start_ms: unsafe { (*clock)() },
            timeout_ms,
        };
        // SAFETY: raw stores into our own tables; the code runs protected.
        let out = unsafe {
            set_globals_index(l, LIBRARY_API);
            if luaL_loadbuffer(
                l,
                code.as_ptr() as *const c_char,
                code.len(),
                cstr!("@user_function"),
            ) != 0
            {
                let mut msg = b"Error compiling function: ".to_vec();
                msg.extend(to_bytes(l, -1).unwrap_or_default());
                lua_pop(l, 1);
                Err(msg)
            } else {
                self.shared.loading = Some(&mut ctx);
                kvlab_sethook(l, Some(load_hook), LUA_MASKCOUNT, 100_000);
                if lua_pcall(l, 0, 0, 0) != 0 {
                    let mut msg = b"Error registering functions: ".to_vec();
                    msg.extend(error_message(l));
                    lua_pop(l, 1);
                    Err(msg)
                } else {
                    Ok(())
                }
            }
        };
        // SAFETY: as above.
        unsafe {
            set_globals_index(l, GLOBALS_API);
            kvlab_sethook(l, None, 0, 0);
        }
        self.shared.loading = None;
        match out {
            Ok(()) => Ok(ctx.functions),
            Err(e) => {
                self.forget(ctx.functions.iter().map(|f| f.id));
                Err(e)
            }
        }
    }

    /// Drops the callbacks of functions no longer wanted.
    pub fn forget(&mut self, ids: impl IntoIterator<Item = i32>) {
        let l = self.lua.raw();
        // SAFETY: raw stores into the callbacks table.
        unsafe {
            lua_getfield(l, LUA_REGISTRYINDEX, CALLBACKS);
            for id in ids {
                lua_pushnil(l);
                lua_rawseti(l, -2, id);
            }
            lua_pop(l, 1);
        }
    }

    /// Calls function `id` (named `name` in errors) with its keys and arguments as its
    /// two table arguments (Redis's `luaEngineCall`), to its end.
    pub fn call(
        &mut self,
        id: i32,
        name: &str,
        keys: &[&[u8]],
        args: &[&[u8]],
        host: &mut dyn Host,
    ) -> Result<Value, ScriptError> {
        let mut step = self.start_call(id, name, keys, args, host);
        loop {
            match step {
                Step::Done(out) => return out,
                Step::Paused => step = self.resume(host),
            }
        }
    }

    /// Starts function `id`; like [`Env::start_script`](super::Env::start_script), it may
    /// pause, and then nothing else may run here until [`Interp::resume`] ended it.
    pub fn start_call(
        &mut self,
        id: i32,
        name: &str,
        keys: &[&[u8]],
        args: &[&[u8]],
        host: &mut dyn Host,
    ) -> Step {
        let l = self.lua.raw();
        // SAFETY: the host pointer lives for the step only; the run is protected.
        unsafe {
            lua_checkstack(l, 6);
            lua_getfield(l, LUA_REGISTRYINDEX, CALLBACKS);
            lua_rawgeti(l, -1, id);
            lua_remove(l, -2);
            if lua_isnil(l, -1) {
                lua_pop(l, 1);
                return Step::Done(Err(ScriptError(b"ERR Function not found".to_vec())));
            }
            push_array(l, keys);
            push_array(l, args);
            run::start(l, &mut self.shared, host, 2, name)
        }
    }
}

impl Default for FunctionEnv {
    fn default() -> Self {
        FunctionEnv::new()
    }
}

unsafe fn push_array(l: *mut lua_State, items: &[&[u8]]) {
    // SAFETY: raw stores into a new table.
    unsafe {
        lua_createtable(l, items.len() as c_int, 0);
        for (i, item) in items.iter().enumerate() {
            lua_pushlstring(l, item.as_ptr() as *const c_char, item.len());
            lua_rawseti(l, -2, i as c_int + 1);
        }
    }
}

/// Points the globals' `__index` at the registry table `which`.
unsafe fn set_globals_index(l: *mut lua_State, which: *const c_char) {
    // SAFETY: raw access to the globals' metatable, protection lifted for the store.
    unsafe {
        lua_getmetatable(l, LUA_GLOBALSINDEX);
        lua_enablereadonlytable(l, -1, 0);
        lua_pushstring(l, cstr!("__index"));
        lua_getfield(l, LUA_REGISTRYINDEX, which);
        lua_rawset(l, -3);
        lua_enablereadonlytable(l, -1, 1);
        lua_pop(l, 1);
    }
}

/// Redis's `luaExtractErrorInformation`'s message: a string error as `ERR <it>`, a
/// table's `err` field.
unsafe fn error_message(l: *mut lua_State) -> Vec<u8> {
    // SAFETY: raw reads of the error on top.
    unsafe {
        if lua_type(l, -1) == LUA_TSTRING || lua_type(l, -1) == LUA_TNUMBER {
            let mut m = b"ERR ".to_vec();
            m.extend(to_bytes(l, -1).unwrap_or_default());
            return m;
        }
        if lua_istable(l, -1) {
            lua_pushstring(l, cstr!("err"));
            lua_rawget(l, -2);
            let m = if lua_isstring(l, -1) != 0 {
                to_bytes(l, -1)
            } else {
                None
            };
            lua_pop(l, 1);
            if let Some(m) = m {
                return m;
            }
        }
        Vec::new()
    }
}

/// The load timeout (`luaEngineLoadHook`): past it, every line raises.
unsafe extern "C" fn load_hook(l: *mut lua_State, _ar: *mut lua_Debug) -> c_int {
    // SAFETY: the registry holds the Shared pointer; the load context lives for the load.
    unsafe {
        lua_getfield(l, LUA_REGISTRYINDEX, cstr!("kvlab_shared"));
        let s = lua_touserdata(l, -1) as *mut Shared;
        lua_pop(l, 1);
        let Some(ctx) = s.as_ref().and_then(|s| s.loading) else {
            return 0;
        };
        let ctx = &*ctx;
        let now = (*ctx.clock)();
        if ctx.timeout_ms > 0 && now.saturating_sub(ctx.start_ms) > ctx.timeout_ms {
            kvlab_sethook(l, Some(load_hook), LUA_MASKLINE, 0);
            push_error_buff(l, b"FUNCTION LOAD timeout");
            return HOOK_RAISE;
        }
        0
    }
}

/// `functionsVerifyName`: letters, digits and `_`, at least one.
pub fn valid_name(name: &[u8]) -> bool {
    !name.is_empty() && name.iter().all(|&c| c.is_ascii_alphanumeric() || c == b'_')
}

/// A string argument as Redis's `luaGetStringSds` reads it (strings and numbers).
unsafe fn string_at(l: *mut lua_State, idx: c_int) -> Option<Vec<u8>> {
    // SAFETY: a read of one slot.
    unsafe {
        if lua_isstring(l, idx) != 0 {
            to_bytes(l, idx)
        } else {
            None
        }
    }
}

/// Keeps the function on top in the callbacks table; returns its id. Pops it.
unsafe fn keep_callback(l: *mut lua_State) -> i32 {
    // SAFETY: raw access to two registry entries.
    unsafe {
        lua_getfield(l, LUA_REGISTRYINDEX, NEXT_ID);
        let id = lua_tointeger(l, -1) as i32 + 1;
        lua_pop(l, 1);
        lua_pushinteger(l, id as _);
        lua_setfield(l, LUA_REGISTRYINDEX, NEXT_ID);
        lua_getfield(l, LUA_REGISTRYINDEX, CALLBACKS);
        lua_insert(l, -2);
        lua_rawseti(l, -2, id);
        lua_pop(l, 1);
        id
    }
}

/// The flags table of the named form (`luaRegisterFunctionReadFlags`), on top.
unsafe fn read_flags(l: *mut lua_State) -> Option<u8> {
    // SAFETY: raw reads of the array part.
    unsafe {
        let mut flags = 0u8;
        let mut j = 1;
        loop {
            lua_rawgeti(l, -1, j);
            j += 1;
            if lua_isnil(l, -1) {
                lua_pop(l, 1);
                return Some(flags);
            }
            let name = string_at(l, -1);
            lua_pop(l, 1);
            let bit = FLAG_NAMES.iter().position(|f| {
                name.as_deref()
                    .is_some_and(|n| f.as_bytes().eq_ignore_ascii_case(n))
            })?;
            flags |= 1 << bit;
        }
    }
}

/// Reads `redis.register_function`'s arguments; `Err` is the message to raise.
unsafe fn read_args(l: *mut lua_State) -> Result<Registered, &'static str> {
    // SAFETY: raw reads of the arguments and of the named-arguments table.
    unsafe {
        let argc = lua_gettop(l);
        if !(1..=2).contains(&argc) {
            return Err("wrong number of arguments to redis.register_function");
        }
        if argc == 2 {
            let Some(name) = string_at(l, 1) else {
                return Err("first argument to redis.register_function must be a string");
            };
            if !lua_isfunction(l, 2) {
                return Err("second argument to redis.register_function must be a function");
            }
            let id = keep_callback(l);
            return Ok(Registered {
                name,
                description: None,
                flags: 0,
                id,
            });
        }
        if !lua_istable(l, 1) {
            return Err("calling redis.register_function with a single argument is only applicable to Lua table (representing named arguments).");
        }
        let (mut name, mut description, mut flags, mut id) = (None, None, 0, None);
        let forget = |l: *mut lua_State, id: Option<i32>| {
            if let Some(id) = id {
                lua_getfield(l, LUA_REGISTRYINDEX, CALLBACKS);
                lua_pushnil(l);
                lua_rawseti(l, -2, id);
                lua_pop(l, 1);
            }
        };
        lua_pushnil(l);
        while lua_next(l, 1) != 0 {
            let err = if lua_isstring(l, -2) == 0 {
                Some("named argument key given to redis.register_function is not a string")
            } else {
                let key = to_bytes(l, -2).unwrap_or_default().to_ascii_lowercase();
                match key.as_slice() {
                    b"function_name" => {
                        name = string_at(l, -1);
                        name.is_none().then_some(
                            "function_name argument given to redis.register_function must be a string",
                        )
                    }
                    b"description" => {
                        description = string_at(l, -1);
                        description.is_none().then_some(
                            "description argument given to redis.register_function must be a string",
                        )
                    }
                    b"callback" => {
                        if lua_isfunction(l, -1) {
                            forget(l, id);
                            id = Some(keep_callback(l));
                            continue;
                        }
                        Some(
                            "callback argument given to redis.register_function must be a function",
                        )
                    }
                    b"flags" => {
                        if !lua_istable(l, -1) {
                            Some("flags argument to redis.register_function must be a table representing function flags")
                        } else {
                            match read_flags(l) {
                                Some(f) => {
                                    flags = f;
                                    None
                                }
                                None => Some("unknown flag given"),
                            }
                        }
                    }
                    _ => Some("unknown argument given to redis.register_function"),
                }
            };
            if let Some(err) = err {
                forget(l, id);
                return Err(err);
            }
            lua_pop(l, 1);
        }
        let Some(name) = name else {
            forget(l, id);
            return Err("redis.register_function must get a function name argument");
        };
        let Some(id) = id else {
            return Err("redis.register_function must get a callback argument");
        };
        Ok(Registered {
            name,
            description,
            flags,
            id,
        })
    }
}

/// `redis.register_function(name, callback)` or `redis.register_function{...}`.
unsafe extern "C" fn register_function(l: *mut lua_State) -> c_int {
    // SAFETY: the load context lives for the load; stack use as documented.
    unsafe {
        let s = shared(l);
        let Some(ctx) = s.loading else {
            return raise_error_table(
                l,
                b"redis.register_function can only be called on FUNCTION LOAD command",
            );
        };
        let ctx = &mut *ctx;
        let f = match read_args(l) {
            Ok(f) => f,
            Err(msg) => return raise_error_table(l, msg.as_bytes()),
        };
        let err: Option<&[u8]> = if !valid_name(&f.name) {
            Some(b"Library names can only contain letters, numbers, or underscores(_) and must be at least one character long")
        } else if ctx.functions.iter().any(|g| g.name == f.name) {
            Some(b"Function already exists in the library")
        } else {
            None
        };
        if let Some(err) = err {
            lua_getfield(l, LUA_REGISTRYINDEX, CALLBACKS);
            lua_pushnil(l);
            lua_rawseti(l, -2, f.id);
            lua_pop(l, 1);
            return raise_error_table(l, err);
        }
        ctx.functions.push(f);
        0
    }
}

/// `luaEngineInitEngine`: runs inside `lua_cpcall`.
unsafe extern "C" fn setup_functions(l: *mut lua_State) -> c_int {
    // SAFETY: protected; `ud` is the Box<Shared> of the engine being built.
    unsafe {
        let shared = lua_touserdata(l, 1);
        lua_pop(l, 1);
        lua_pushlightuserdata(l, shared);
        lua_setfield(l, LUA_REGISTRYINDEX, cstr!("kvlab_shared"));
        lua_newtable(l);
        lua_setfield(l, LUA_REGISTRYINDEX, CALLBACKS);
        protect::allow_list_globals(l, false);
        state::open_standard_libs(l);
        crate::libs_open(l);
        api::register(l, shared);

        // The library API: { redis = { register_function, log, LOG_*, versions } }.
        lua_newtable(l);
        lua_newtable(l);
        set_fn(l, cstr!("register_function"), register_function, shared);
        set_fn(l, cstr!("log"), api::log, shared);
        set_num(l, cstr!("LOG_DEBUG"), 0.0);
        set_num(l, cstr!("LOG_VERBOSE"), 1.0);
        set_num(l, cstr!("LOG_NOTICE"), 2.0);
        set_num(l, cstr!("LOG_WARNING"), 3.0);
        lua_getglobal(l, cstr!("redis"));
        lua_getfield(l, -1, cstr!("REDIS_VERSION_NUM"));
        lua_setfield(l, -3, cstr!("REDIS_VERSION_NUM"));
        lua_getfield(l, -1, cstr!("REDIS_VERSION"));
        lua_setfield(l, -3, cstr!("REDIS_VERSION"));
        lua_pop(l, 1);
        protect::set_error_metatable(l);
        lua_setfield(l, -2, cstr!("redis"));
        protect::set_error_metatable(l);
        protect::protect_recursively(l);
        lua_setfield(l, LUA_REGISTRYINDEX, LIBRARY_API);

        // The error handler, kept in the registry rather than the globals.
        let code = concat!(
            "local dbg = debug\n",
            "debug = nil\n",
            "local error_handler = function (err)\n",
            "  local i = dbg.getinfo(2,'nSl')\n",
            "  if i and i.what == 'C' then\n",
            "    i = dbg.getinfo(3,'nSl')\n",
            "  end\n",
            "  if type(err) ~= 'table' then\n",
            "    err = {err='ERR ' .. tostring(err)}",
            "  end",
            "  if i then\n",
            "    err['source'] = i.source\n",
            "    err['line'] = i.currentline\n",
            "  end",
            "  return err\n",
            "end\n",
            "return error_handler",
        );
        let status = luaL_loadbuffer(
            l,
            code.as_ptr() as *const c_char,
            code.len(),
            cstr!("@err_handler_def"),
        );
        debug_assert_eq!(status, 0);
        lua_call(l, 0, 1);
        lua_setfield(l, LUA_REGISTRYINDEX, run::ERROR_HANDLER);
        run::setup(l);

        protect::lock_globals(l);
        lua_pushvalue(l, LUA_GLOBALSINDEX);
        lua_setfield(l, LUA_REGISTRYINDEX, GLOBALS_API);

        // The empty globals the code sees, reading through to the real ones.
        lua_newtable(l);
        lua_newtable(l);
        lua_pushstring(l, cstr!("__index"));
        lua_pushvalue(l, LUA_GLOBALSINDEX);
        lua_rawset(l, -3);
        lua_enablereadonlytable(l, -1, 1);
        lua_setmetatable(l, -2);
        lua_enablereadonlytable(l, -1, 1);
        lua_replace(l, LUA_GLOBALSINDEX);
    }
    0
}
