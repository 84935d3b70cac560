#ifndef KVLAB_TIME_H
#define KVLAB_TIME_H
#include "kvlab_libc.h"
typedef long long time_t;
typedef long clock_t;
#define CLOCKS_PER_SEC 1000000L
time_t kvlab_time(time_t *t);
clock_t kvlab_clock(void);
#define time kvlab_time
#define clock kvlab_clock
#endif
