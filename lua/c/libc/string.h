#ifndef KVLAB_STRING_H
#define KVLAB_STRING_H
#include "kvlab_libc.h"
/* Provided by compiler-builtins (clang emits calls to these by itself). */
void *memcpy(void *d, const void *s, size_t n);
void *memmove(void *d, const void *s, size_t n);
void *memset(void *d, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);

void *kvlab_memchr(const void *s, int c, size_t n);
size_t kvlab_strlen(const char *s);
char *kvlab_strcpy(char *d, const char *s);
char *kvlab_strncpy(char *d, const char *s, size_t n);
char *kvlab_strcat(char *d, const char *s);
char *kvlab_strncat(char *d, const char *s, size_t n);
int kvlab_strcmp(const char *a, const char *b);
int kvlab_strncmp(const char *a, const char *b, size_t n);
char *kvlab_strchr(const char *s, int c);
char *kvlab_strrchr(const char *s, int c);
char *kvlab_strpbrk(const char *s, const char *accept);
size_t kvlab_strspn(const char *s, const char *accept);
size_t kvlab_strcspn(const char *s, const char *reject);
char *kvlab_strstr(const char *h, const char *n);
char *kvlab_strerror(int e);
#define memchr kvlab_memchr
#define strlen kvlab_strlen
#define strcpy kvlab_strcpy
#define strncpy kvlab_strncpy
#define strcat kvlab_strcat
#define strncat kvlab_strncat
#define strcmp kvlab_strcmp
#define strncmp kvlab_strncmp
/* The "C" locale collates by byte value. */
#define strcoll kvlab_strcmp
#define strchr kvlab_strchr
#define strrchr kvlab_strrchr
#define strpbrk kvlab_strpbrk
#define strspn kvlab_strspn
#define strcspn kvlab_strcspn
#define strstr kvlab_strstr
#define strerror kvlab_strerror
#endif
