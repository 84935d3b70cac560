#ifndef KVLAB_CTYPE_H
#define KVLAB_CTYPE_H
/* The "C" locale's classes (glibc's, for bytes 0..255: nothing above 127 is in any class). */
int kvlab_isalnum(int c);
int kvlab_isalpha(int c);
int kvlab_iscntrl(int c);
int kvlab_isdigit(int c);
int kvlab_isgraph(int c);
int kvlab_islower(int c);
int kvlab_isprint(int c);
int kvlab_ispunct(int c);
int kvlab_isspace(int c);
int kvlab_isupper(int c);
int kvlab_isxdigit(int c);
int kvlab_tolower(int c);
int kvlab_toupper(int c);
#define isalnum kvlab_isalnum
#define isalpha kvlab_isalpha
#define iscntrl kvlab_iscntrl
#define isdigit kvlab_isdigit
#define isgraph kvlab_isgraph
#define islower kvlab_islower
#define isprint kvlab_isprint
#define ispunct kvlab_ispunct
#define isspace kvlab_isspace
#define isupper kvlab_isupper
#define isxdigit kvlab_isxdigit
#define tolower kvlab_tolower
#define toupper kvlab_toupper
#endif
