#ifndef KVLAB_ASSERT_H
#define KVLAB_ASSERT_H
#ifdef NDEBUG
#define assert(e) ((void)0)
#else
void kvlab_abort(void) __attribute__((noreturn));
#define assert(e) ((e) ? (void)0 : kvlab_abort())
#endif
#endif
