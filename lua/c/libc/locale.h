#ifndef KVLAB_LOCALE_H
#define KVLAB_LOCALE_H
#include "kvlab_libc.h"
struct lconv {
  char *decimal_point;
  char *thousands_sep;
  char *grouping;
};
struct lconv *kvlab_localeconv(void);
char *kvlab_setlocale(int category, const char *locale);
#define localeconv kvlab_localeconv
#define setlocale kvlab_setlocale
#define LC_ALL 6
#define LC_CTYPE 0
#define LC_NUMERIC 1
#define LC_COLLATE 3
#endif
