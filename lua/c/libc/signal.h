#ifndef KVLAB_SIGNAL_H
#define KVLAB_SIGNAL_H
typedef int sig_atomic_t;
#endif
