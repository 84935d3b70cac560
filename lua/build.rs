//! Builds Lua 5.1.5 the way Redis 7.0.15 builds its `deps/lua`.
//!
//! 1. Finds the pristine 5.1.5 sources that the `lua-src` crate ships (through
//!    `cargo metadata`, so a vendored or relocated registry works too).
//! 2. Copies them to `OUT_DIR` and applies Redis's patches to the copy (see [`PATCHES`]):
//!    read-only tables, no loading of precompiled chunks, and hashing every byte of a
//!    string. Each patch must match its anchor exactly once, so a different upstream file
//!    fails the build instead of building something else.
//! 3. Compiles the patched core and the libraries Redis loads (base, table, string, math,
//!    debug; not io, os or package) with Redis's defines (`LUA_ANSI`), plus `c/glue.c`
//!    (the trampolines between Lua and Rust). For wasm32 the same sources compile with
//!    clang against the small libc in `c/libc` and with error unwinding through the host
//!    (see `src/unwind.rs`).
use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// (file, anchor, replacement): Redis 7.0.15's changes to Lua 5.1.5 (`deps/lua/src`),
/// restated as edits. An empty anchor appends the replacement to the file.
const PATCHES: &[(&str, &str, &str)] = &[
    // Read-only tables: a flag on every table, checked on every store.
    (
        "lobject.h",
        "  lu_byte flags;  /* 1<<p means tagmethod(p) is not present */ \n",
        "  lu_byte flags;  /* 1<<p means tagmethod(p) is not present */\n  int readonly;\n",
    ),
    (
        "ltable.c",
        "  t->lsizenode = 0;\n",
        "  t->lsizenode = 0;\n  t->readonly = 0;\n",
    ),
    (
        "lvm.c",
        "      Table *h = hvalue(t);\n      TValue *oldval = luaH_set(L, h, key); /* do a primitive set */\n",
        "      Table *h = hvalue(t);\n      if (h->readonly)\n        luaG_runerror(L, \"Attempt to modify a readonly table\");\n      TValue *oldval = luaH_set(L, h, key); /* do a primitive set */\n",
    ),
    (
        "lapi.c",
        "  api_check(L, ttistable(t));\n  setobj2t(L, luaH_set(L, hvalue(t), L->top-2), L->top-1);\n",
        "  api_check(L, ttistable(t));\n  if (hvalue(t)->readonly)\n    luaG_runerror(L, \"Attempt to modify a readonly table\");\n  setobj2t(L, luaH_set(L, hvalue(t), L->top-2), L->top-1);\n",
    ),
    (
        "lapi.c",
        "  api_check(L, ttistable(o));\n  setobj2t(L, luaH_setnum(L, hvalue(o), n), L->top-1);\n",
        "  api_check(L, ttistable(o));\n  if (hvalue(o)->readonly)\n    luaG_runerror(L, \"Attempt to modify a readonly table\");\n  setobj2t(L, luaH_setnum(L, hvalue(o), n), L->top-1);\n",
    ),
    (
        "lapi.c",
        "    case LUA_TTABLE: {\n      hvalue(obj)->metatable = mt;\n",
        "    case LUA_TTABLE: {\n      if (hvalue(obj)->readonly)\n        luaG_runerror(L, \"Attempt to modify a readonly table\");\n      hvalue(obj)->metatable = mt;\n",
    ),
    (
        "lapi.c",
        "", // appended
        "\n\
LUA_API void lua_enablereadonlytable (lua_State *L, int objindex, int enabled) {\n\
  const TValue* o = index2adr(L, objindex);\n\
  api_check(L, ttistable(o));\n\
  api_check(L, hvalue(o) != hvalue(registry(L)));\n\
  hvalue(o)->readonly = enabled;\n\
}\n\n\
LUA_API int lua_isreadonlytable (lua_State *L, int objindex) {\n\
  const TValue* o = index2adr(L, objindex);\n\
  api_check(L, ttistable(o));\n\
  return hvalue(o)->readonly;\n\
}\n",
    ),
    (
        "lua.h",
        "/* }====================================================================== */\n\n\n/******************************************************************************\n* Copyright",
        "LUA_API void lua_enablereadonlytable (lua_State *L, int index, int enabled);\nLUA_API int lua_isreadonlytable (lua_State *L, int index);\n\n/* }====================================================================== */\n\n\n/******************************************************************************\n* Copyright",
    ),
    // Only source text loads: a precompiled chunk is parsed as source (and fails).
    (
        "ldo.c",
        "  int c = luaZ_lookahead(p->z);\n  luaC_checkGC(L);\n  tf = ((c == LUA_SIGNATURE[0]) ? luaU_undump : luaY_parser)(L, p->z,\n",
        "  luaZ_lookahead(p->z);\n  luaC_checkGC(L);\n  tf = (luaY_parser)(L, p->z,\n",
    ),
    // Every byte of a string goes into its hash (no hash flooding by long strings).
    (
        "lstring.c",
        "  size_t step = (l>>5)+1;  /* if string is too long, don't hash all its chars */\n",
        "  size_t step = 1;\n",
    ),
    // CVE-2025-46817: unpack counts its range without signed overflow and says
    // "too many results to unpack" for any range it cannot push.
    (
        "lbaselib.c",
        "  int i, e, n;\n  luaL_checktype(L, 1, LUA_TTABLE);\n",
        "  int i, e;\n  unsigned int n;\n  luaL_checktype(L, 1, LUA_TTABLE);\n",
    ),
    (
        "lbaselib.c",
        "  n = e - i + 1;  /* number of elements */\n  if (n <= 0 || !lua_checkstack(L, n))  /* n <= 0 means arith. overflow */\n",
        "  n = (unsigned int)e - (unsigned int)i;  /* the count less one, cannot overflow */\n  if (n >= INT_MAX || !lua_checkstack(L, (int)++n))\n",
    ),
    // CVE-2025-46817: the array part is looked up only for 1 <= key <= size.
    (
        "ltable.c",
        "  /* (1 <= key && key <= t->sizearray) */\n  if (cast(unsigned int, key-1) < cast(unsigned int, t->sizearray))\n",
        "  if (1 <= key && key <= t->sizearray)\n",
    ),
    // CVE-2025-46819: the lexer starts with no current token, and a long bracket's
    // level is counted in a size_t (0: '[=' unfinished, 1: plain '[', n+2: level n).
    (
        "llex.c",
        "void luaX_setinput (lua_State *L, LexState *ls, ZIO *z, TString *source) {\n",
        "void luaX_setinput (lua_State *L, LexState *ls, ZIO *z, TString *source) {\n  ls->t.token = 0;\n",
    ),
    (
        "llex.c",
        "static int skip_sep (LexState *ls) {\n  int count = 0;\n",
        "static size_t skip_sep (LexState *ls) {\n  size_t count = 0;\n",
    ),
    (
        "llex.c",
        "  return (ls->current == s) ? count : (-count) - 1;\n",
        "  if (ls->current == s) return count + 2;\n  return count == 0 ? 1 : 0;\n",
    ),
    (
        "llex.c",
        "static void read_long_string (LexState *ls, SemInfo *seminfo, int sep) {\n",
        "static void read_long_string (LexState *ls, SemInfo *seminfo, size_t sep) {\n",
    ),
    (
        "llex.c",
        "luaZ_buffer(ls->buff) + (2 + sep),\n                                     luaZ_bufflen(ls->buff) - 2*(2 + sep));\n",
        "luaZ_buffer(ls->buff) + sep,\n                                     luaZ_bufflen(ls->buff) - 2*sep);\n",
    ),
    (
        "llex.c",
        "          int sep = skip_sep(ls);\n          luaZ_resetbuffer(ls->buff);  /* `skip_sep' may dirty the buffer */\n          if (sep >= 0) {\n",
        "          size_t sep = skip_sep(ls);\n          luaZ_resetbuffer(ls->buff);  /* `skip_sep' may dirty the buffer */\n          if (sep >= 2) {\n",
    ),
    (
        "llex.c",
        "        int sep = skip_sep(ls);\n        if (sep >= 0) {\n          read_long_string(ls, seminfo, sep);\n          return TK_STRING;\n        }\n        else if (sep == -1) return '[';\n        else luaX_lexerror(ls, \"invalid long string delimiter\", TK_STRING);\n",
        "        size_t sep = skip_sep(ls);\n        if (sep >= 2) {\n          read_long_string(ls, seminfo, sep);\n          return TK_STRING;\n        }\n        if (sep == 0)  /* '[=' without its second bracket */\n          luaX_lexerror(ls, \"invalid long string delimiter\", TK_STRING);\n        return '[';\n",
    ),
    // CVE-2025-49844: the chunk name stays on the stack while parsing, so a
    // collection during parsing cannot free it.
    (
        "lparser.c",
        "  luaX_setinput(L, &lexstate, z, luaS_new(L, name));\n",
        "  TString *tname = luaS_new(L, name);\n  setsvalue2s(L, L->top, tname);\n  incr_top(L);\n  luaX_setinput(L, &lexstate, z, tname);\n",
    ),
    (
        "lparser.c",
        "  close_func(&lexstate);\n  lua_assert(funcstate.prev == NULL);\n",
        "  close_func(&lexstate);\n  --L->top;\n  lua_assert(funcstate.prev == NULL);\n",
    ),
];

/// kvlab's own changes, for scripts that pause (see `src/redis/run.rs`): a script runs in
/// a coroutine its count hook can yield, and to the script that coroutine must look like
/// the main thread Redis runs it on — `coroutine.running()` is nil and `coroutine.yield`
/// fails as it does there. A thread marked with `kvlab_setscript` refuses every yield but
/// the hook's (`kvlab_hookyield`); `kvlab_canyield` and `kvlab_nccalls` let the hook and
/// `pcall` see what `lua_yield` and `luaD_call` check.
const PAUSE_PATCHES: &[(&str, &str, &str)] = &[
    (
        "lstate.h",
        "  lu_byte hookmask;\n",
        "  lu_byte hookmask;\n  lu_byte kvlab_script;  /* a script's thread: only the hook yields it */\n  lu_byte kvlab_hookyield;\n  lu_byte kvlab_resumed;  /* 1, 2: a hook yielded at the instruction (lvm.c) */\n  const Instruction *kvlab_oldpc;\n",
    ),
    (
        "lstate.c",
        "  L->hookmask = 0;\n",
        "  L->hookmask = 0;\n  L->kvlab_script = 0;\n  L->kvlab_hookyield = 0;\n  L->kvlab_resumed = 0;\n  L->kvlab_oldpc = NULL;\n",
    ),
    // A hook that yields makes Lua run the instruction again on resume, and its line
    // event fires again, or not, depending on the instruction before it. The debugger
    // (src/redis/debug.rs) needs each line's event exactly once: after a line event
    // yielded, the instruction's line event is not sent again; after a count event
    // yielded, it is sent on resume, judged against the pc before that instruction (and
    // both hold when a count event yields again at an instruction already seen).
    (
        "lvm.c",
        "  const Instruction *oldpc = L->savedpc;\n  L->savedpc = pc;\n  if ((mask & LUA_MASKCOUNT) && L->hookcount == 0) {\n    resethookcount(L);\n    luaD_callhook(L, LUA_HOOKCOUNT, -1);\n  }\n  if (mask & LUA_MASKLINE) {\n",
        "  const Instruction *oldpc = L->savedpc;\n  int kvlab_skipline = 0;\n  if (L->kvlab_resumed) {\n    kvlab_skipline = L->kvlab_resumed == 2;\n    if (!kvlab_skipline) oldpc = L->kvlab_oldpc;\n    L->kvlab_resumed = 0;\n  }\n  L->savedpc = pc;\n  if ((mask & LUA_MASKCOUNT) && L->hookcount == 0) {\n    resethookcount(L);\n    luaD_callhook(L, LUA_HOOKCOUNT, -1);\n    if (L->status == LUA_YIELD) {\n      if (mask & LUA_MASKLINE) {\n        L->kvlab_resumed = kvlab_skipline ? 2 : 1;\n        L->kvlab_oldpc = oldpc;\n      }\n      return;\n    }\n  }\n  if ((mask & LUA_MASKLINE) && !kvlab_skipline) {\n",
    ),
    (
        "lvm.c",
        "    if (npc == 0 || pc <= oldpc || newline != getline(p, pcRel(oldpc, p)))\n      luaD_callhook(L, LUA_HOOKLINE, newline);\n",
        "    if (npc == 0 || pc <= oldpc || newline != getline(p, pcRel(oldpc, p))) {\n      luaD_callhook(L, LUA_HOOKLINE, newline);\n      if (L->status == LUA_YIELD && (mask & LUA_MASKLINE))\n        L->kvlab_resumed = 2;\n    }\n",
    ),
    (
        "ldo.c",
        "  if (L->nCcalls > L->baseCcalls)\n    luaG_runerror(L, \"attempt to yield across metamethod/C-call boundary\");\n",
        "  if (L->nCcalls > L->baseCcalls || (L->kvlab_script && !L->kvlab_hookyield))\n    luaG_runerror(L, \"attempt to yield across metamethod/C-call boundary\");\n  L->kvlab_hookyield = 0;\n",
    ),
    (
        "lapi.c",
        "  return (G(L)->mainthread == L);\n}\n",
        "  return (G(L)->mainthread == L) || L->kvlab_script;\n}\n",
    ),
    (
        "ldo.c",
        "",
        "\nLUA_API void kvlab_setscript (lua_State *L, lua_State *from) {\n  L->kvlab_script = 1;\n  L->nCcalls = from->nCcalls;\n}\n\
         \nLUA_API int kvlab_hookyield (lua_State *L) {\n  L->kvlab_hookyield = 1;\n  return lua_yield(L, 0);\n}\n\
         \nLUA_API int kvlab_canyield (lua_State *L) {\n  return L->nCcalls <= L->baseCcalls;\n}\n\
         \nLUA_API int kvlab_nccalls (lua_State *L) {\n  return L->nCcalls;\n}\n\
         \nLUA_API int kvlab_isscript (lua_State *L) {\n  return L->kvlab_script;\n}\n",
    ),
];

/// The Lua sources Redis compiles into the server: the core, the auxiliary library and
/// the standard libraries it opens (`luaLoadLibraries` in Redis's `script_lua.c`).
const SOURCES: &[&str] = &[
    "lapi.c",
    "lcode.c",
    "ldebug.c",
    "ldo.c",
    "ldump.c",
    "lfunc.c",
    "lgc.c",
    "llex.c",
    "lmem.c",
    "lobject.c",
    "lopcodes.c",
    "lparser.c",
    "lstate.c",
    "lstring.c",
    "ltable.c",
    "ltm.c",
    "lundump.c",
    "lvm.c",
    "lzio.c",
    "lauxlib.c",
    "lbaselib.c",
    "ldblib.c",
    "lmathlib.c",
    "lstrlib.c",
    "ltablib.c",
];

fn main() {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let out = PathBuf::from(env::var("OUT_DIR").unwrap());
    let target = env::var("TARGET").unwrap();
    let wasm = target.starts_with("wasm32");

    let pristine = lua_src_dir(&manifest);
    let src = out.join("lua-5.1.5-redis");
    fs::create_dir_all(&src).unwrap();
    for entry in fs::read_dir(&pristine).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        if name.ends_with(".c") || name.ends_with(".h") {
            let mut text = patched(&name, &fs::read_to_string(&path).unwrap());
            if wasm {
                text = patched_for_wasm(&name, &text);
            }
            fs::write(src.join(&name), text).unwrap();
        }
    }

    let mut build = cc::Build::new();
    build
        .include(&src)
        .define("LUA_ANSI", None)
        .warnings(false)
        .flag_if_supported("-w")
        .flag_if_supported("-fno-common")
        .opt_level(2);
    if wasm {
        let libc = manifest.join("c").join("libc");
        build
            .compiler(wasm_clang())
            .archiver(wasm_ar())
            .flag("-nostdinc")
            .include(&libc)
            .define("KVLAB_LUA_HOST_UNWIND", None)
            // string.format's %d %x ... take long long, 64 bits as natively (not wasm32's long).
            .define("LUA_USELONGLONG", None)
            // Out-of-range double-to-integer casts give what x86_64 gives (LLVM's guarded
            // conversions: INT_MIN), not the saturated values of trunc_sat.
            .flag_if_supported("-mno-nontrapping-fptoint")
            .file(libc.join("libc.c"));
        println!("cargo:rerun-if-changed={}", libc.display());
    }
    for f in SOURCES {
        build.file(src.join(f));
    }
    build.file(manifest.join("c").join("glue.c"));
    println!("cargo:rerun-if-changed=c");
    println!("cargo:rerun-if-changed=build.rs");
    build.compile("kvlab_lua51");
}

/// Applies the patches for `name` to `text`; each anchor must occur exactly once.
fn patched(name: &str, text: &str) -> String {
    let mut text = text.to_string();
    for (file, anchor, replacement) in PATCHES.iter().chain(PAUSE_PATCHES) {
        if *file == name && anchor.is_empty() {
            text.push_str(replacement);
        } else if *file == name {
            let n = text.matches(anchor).count();
            assert!(
                n == 1,
                "patch for {name}: its anchor occurs {n} times, not once:\n{anchor}"
            );
            text = text.replacen(anchor, replacement, 1);
        }
    }
    if name == "luaconf.h" {
        // Error unwinding through the host where there is no setjmp (wasm32): see
        // c/glue.c and src/unwind.rs.
        let anchor = "#if defined(__cplusplus)\n/* C++ exceptions */";
        assert_eq!(
            text.matches(anchor).count(),
            1,
            "luaconf.h: no LUAI_THROW block"
        );
        text = text.replacen(
            anchor,
            "#if defined(KVLAB_LUA_HOST_UNWIND)\n\
             int kvlab_lua_try(void (*f)(struct lua_State *, void *), struct lua_State *L, void *ud);\n\
             void kvlab_lua_throw(void);\n\
             #define LUAI_THROW(L,c)\tkvlab_lua_throw()\n\
             #define LUAI_TRY(L,c,a)\tif (kvlab_lua_try(f, L, ud) != 0) { if ((c)->status == 0) (c)->status = -1; }\n\
             #define luai_jmpbuf\tint\n\
             #elif defined(__cplusplus)\n/* C++ exceptions */",
            1,
        );
    }
    text
}

/// wasm32's changes, on top of Redis's: where Lua's C relies on what x86_64 gives.
///
/// - `c/libc`'s `ptrdiff_t` (so `lua_Integer`) has 64 bits, as on x86_64; two comparisons
///   in lstrlib.c cast such a position to `size_t` (32 bits in wasm32), so they compare in
///   64 bits instead.
/// - `strtoul` (tonumber with a base) returns 64 bits, as on x86_64 (`c/libc/stdlib.h`).
/// - string.format casts a double to `int`, `long long` and `unsigned long long`: undefined
///   out of range in C; x86_64's conversions (what Redis gives) are in `c/libc/libc.c`.
const WASM_PATCHES: &[(&str, &str, &str)] = &[
    // tonumber(s, base) reads an unsigned long: 64 bits on x86_64.
    ("lbaselib.c", "    unsigned long n;\n", "    unsigned long long n;\n"),
    ("lstrlib.c", "if ((size_t)pose > l) pose = l;", "if ((unsigned long long)pose > l) pose = l;"),
    ("lstrlib.c", "else if ((size_t)(init) > l1)", "else if ((unsigned long long)(init) > l1)"),
    ("lstrlib.c", "sprintf(buff, form, (int)luaL_checknumber(L, arg));", "sprintf(buff, form, kvlab_d2i(luaL_checknumber(L, arg)));"),
    (
        "lstrlib.c",
        "sprintf(buff, form, (LUA_INTFRM_T)luaL_checknumber(L, arg));",
        "sprintf(buff, form, kvlab_d2ll(luaL_checknumber(L, arg)));",
    ),
    (
        "lstrlib.c",
        "sprintf(buff, form, (unsigned LUA_INTFRM_T)luaL_checknumber(L, arg));",
        "sprintf(buff, form, kvlab_d2ull(luaL_checknumber(L, arg)));",
    ),
    (
        "lstrlib.c",
        "#include \"lualib.h\"\n",
        "#include \"lualib.h\"\n\nint kvlab_d2i(double);\nlong long kvlab_d2ll(double);\nunsigned long long kvlab_d2ull(double);\n",
    ),
];

fn patched_for_wasm(name: &str, text: &str) -> String {
    let mut text = text.to_string();
    for (file, anchor, replacement) in WASM_PATCHES {
        if *file == name {
            let n = text.matches(anchor).count();
            assert!(
                n == 1,
                "wasm patch for {name}: its anchor occurs {n} times, not once:\n{anchor}"
            );
            text = text.replacen(anchor, replacement, 1);
        }
    }
    text
}

/// The directory of Lua 5.1.5's sources in the `lua-src` package Cargo resolved.
fn lua_src_dir(manifest: &Path) -> PathBuf {
    let cargo = env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--offline"])
        .current_dir(manifest)
        .output()
        .expect("cargo metadata");
    assert!(
        output.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let json = String::from_utf8(output.stdout).unwrap();
    // The package's manifest path: "manifest_path":".../lua-src-547.1.0/Cargo.toml".
    let key = "\"manifest_path\":\"";
    for (i, _) in json.match_indices(key) {
        let rest = &json[i + key.len()..];
        let path = &rest[..rest.find('"').unwrap()];
        let dir = Path::new(path).parent().unwrap();
        if dir
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("lua-src-"))
        {
            let src = dir.join("lua-5.1.5");
            if src.join("lua.h").exists() {
                return src;
            }
        }
    }
    panic!("lua-src's Lua 5.1.5 sources not found in `cargo metadata`");
}

/// clang for wasm32: `CC_wasm32_unknown_unknown` if set, else the first clang found.
fn wasm_clang() -> String {
    if let Ok(cc) = env::var("CC_wasm32_unknown_unknown") {
        return cc;
    }
    first_on_path(&["clang-19", "clang", "clang-14"])
        .expect("clang is needed to build Lua for wasm32")
}

fn wasm_ar() -> String {
    if let Ok(ar) = env::var("AR_wasm32_unknown_unknown") {
        return ar;
    }
    first_on_path(&["llvm-ar-19", "llvm-ar", "llvm-ar-14"])
        .expect("llvm-ar is needed to build Lua for wasm32")
}

fn first_on_path(names: &[&str]) -> Option<String> {
    names
        .iter()
        .find(|n| {
            Command::new(n)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
        .map(|n| n.to_string())
}
