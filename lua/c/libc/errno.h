#ifndef KVLAB_ERRNO_H
#define KVLAB_ERRNO_H
extern int kvlab_errno;
#define errno kvlab_errno
#define EDOM 33
#define ERANGE 34
#define ENOENT 2
#endif
