/* The seams between Lua and Rust (src/ffi.rs, src/state.rs).
 *
 * A Rust function never raises a Lua error itself: a raise unwinds (longjmp natively, a
 * host exception in wasm32) through every frame up to the protected call, and no Rust
 * frame may be among them. So a Rust function returns a code instead, with the error on
 * the stack top, and the trampoline here raises it once the Rust frame is gone. The hook
 * works the same way. */
#include "lua.h"
#include "lauxlib.h"

typedef int (*kvlab_rust_fn)(lua_State *L);
typedef int (*kvlab_rust_hook)(lua_State *L, lua_Debug *ar);

/* The codes a Rust function returns instead of a result count (src/ffi.rs). */
#define KVLAB_RAISE (-1)        /* lua_error(L): the value on top, as is */
#define KVLAB_RAISE_WHERE (-2)  /* luaL_error(L, "%s", top): prefixed with the position */
#define KVLAB_YIELD (-3)        /* the script pauses (src/redis/run.rs): the hook's yield */
#define KVLAB_ARGERROR (-1000)  /* -1000 - n: luaL_argerror(L, n, top) */

LUA_API int kvlab_hookyield(lua_State *L);

static int raise(lua_State *L, int code) {
  if (code == KVLAB_YIELD) {
    return kvlab_hookyield(L);
  }
  if (code == KVLAB_RAISE_WHERE) {
    luaL_where(L, 1);
    lua_insert(L, -2);
    lua_concat(L, 2);
    return lua_error(L);
  }
  if (code <= KVLAB_ARGERROR) {
    return luaL_argerror(L, KVLAB_ARGERROR - code, lua_tostring(L, -1));
  }
  return lua_error(L);
}

static int trampoline(lua_State *L) {
  kvlab_rust_fn f = (kvlab_rust_fn)lua_touserdata(L, lua_upvalueindex(1));
  int n = f(L);
  return n >= 0 ? n : raise(L, n);
}

/* Pushes the Rust function `f` as a Lua C closure with the `nup` values on top of the
 * stack as its upvalues 2..nup+1 (upvalue 1 holds `f`). */
void kvlab_push_rust_fn(lua_State *L, kvlab_rust_fn f, int nup) {
  lua_pushlightuserdata(L, (void *)f);
  lua_insert(L, -(nup + 1));
  lua_pushcclosure(L, trampoline, nup + 1);
}

static kvlab_rust_hook the_hook;

static void hook(lua_State *L, lua_Debug *ar) {
  int code = the_hook(L, ar);
  if (code == 1) {
    lua_error(L);
  } else if (code == 2) {
    kvlab_hookyield(L);
  }
}

/* Installs `f` as the hook of `L` (NULL removes it). `f` returns 0 to go on, 1 to raise
 * the value it left on top, 2 to yield (count and line events only). */
void kvlab_sethook(lua_State *L, kvlab_rust_hook f, int mask, int count) {
  /* One Rust hook serves every state; removing it from one state must not pull it from
   * under another that is running (states on other threads, in tests). */
  if (f) the_hook = f;
  lua_sethook(L, f ? hook : NULL, f ? mask : 0, count);
}
