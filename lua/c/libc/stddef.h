#ifndef KVLAB_STDDEF_H
#define KVLAB_STDDEF_H
#include "kvlab_libc.h"
#define offsetof(t, m) __builtin_offsetof(t, m)
#endif
