#ifndef KVLAB_STDLIB_H
#define KVLAB_STDLIB_H
#include "kvlab_libc.h"
#define EXIT_SUCCESS 0
#define EXIT_FAILURE 1
#define RAND_MAX 2147483647
/* Backed by Rust's allocator (src/libc.rs). Lua's own memory goes through its lua_Alloc
 * (src/state.rs); only luaL_newstate's allocator would use these. */
void *kvlab_malloc(size_t n);
void *kvlab_calloc(size_t n, size_t size);
void *kvlab_realloc(void *p, size_t n);
void kvlab_free(void *p);
double kvlab_strtod(const char *s, char **end);
/* 64 bits, as x86_64's unsigned long: tonumber(s, base) reads one (see build.rs). */
unsigned long long kvlab_strtoull(const char *s, char **end, int base);
long kvlab_strtol(const char *s, char **end, int base);
int kvlab_atoi(const char *s);
void kvlab_abort(void) __attribute__((noreturn));
void kvlab_exit(int status) __attribute__((noreturn));
char *kvlab_getenv(const char *name);
int kvlab_rand(void);
void kvlab_srand(unsigned seed);
int kvlab_abs(int x);
#define malloc kvlab_malloc
#define calloc kvlab_calloc
#define realloc kvlab_realloc
#define free kvlab_free
#define strtod kvlab_strtod
#define strtoul kvlab_strtoull
#define strtoull kvlab_strtoull
#define strtol kvlab_strtol
#define atoi kvlab_atoi
#define abort kvlab_abort
#define exit kvlab_exit
#define getenv kvlab_getenv
#define rand kvlab_rand
#define srand kvlab_srand
#define abs kvlab_abs
#endif
