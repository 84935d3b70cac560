#ifndef KVLAB_SETJMP_H
#define KVLAB_SETJMP_H
/* There is no setjmp in wasm32 without exception handling: Lua's errors unwind through
 * the host instead (KVLAB_LUA_HOST_UNWIND in luaconf.h, src/unwind.rs). Only the type
 * is here, for headers that name it. */
typedef int jmp_buf[1];
#endif
