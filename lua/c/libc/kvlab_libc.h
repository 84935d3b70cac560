/* The small libc Lua 5.1 is compiled against for wasm32-unknown-unknown (no system
 * headers: clang -nostdinc). Every function here has a kvlab_ name, and the standard name
 * is a macro for it, so nothing clashes with the C symbols that Rust's compiler-builtins or
 * another crate's C code (SQLite's shims) define in the same module. memcpy, memmove,
 * memset and memcmp are the exception: clang emits calls to them on its own, and
 * compiler-builtins provides them.
 *
 * Floats are formatted and parsed in Rust (src/libc.rs), exactly as glibc does. */
#ifndef KVLAB_LIBC_H
#define KVLAB_LIBC_H

typedef __SIZE_TYPE__ size_t;
/* 64 bits, as on x86_64: LUA_INTEGER is ptrdiff_t, and Lua's integer conversions
 * (string positions, lua_tointeger) then behave as in the native build. */
typedef long long ptrdiff_t;
typedef long long ssize_t;
typedef __WCHAR_TYPE__ wchar_t;

#ifndef NULL
#define NULL ((void *)0)
#endif

#endif
