//! Lua's error unwinding in wasm32 (no setjmp there): being written (issue 19).
