/* The C side of kvlab-lua's small libc for wasm32-unknown-unknown (see kvlab_libc.h):
 * the "C" locale's ctype, the string functions, printf (integers, strings and padding here;
 * the digits of a double come from Rust, exactly as glibc prints them), strtoul/strtol,
 * stdio stubs, and the wrapper that keeps the C stack pointer right across a Lua error
 * (kvlab_lua_try, see src/unwind.rs). */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <locale.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- Rust (src/libc.rs, src/unwind.rs) ---- */
size_t kvlab_rs_format_double(char *out, size_t cap, double x, int conv, int prec, int alt);
void kvlab_rs_write(int fd, const char *s, size_t n);
int kvlab_rs_try(void (*f)(void *, void *), void *L, void *ud);

/* ---- Errors through the host ----
 * kvlab_rs_try calls f(L, ud) from JS inside try/catch; a Lua error throws a JS exception
 * that pops every wasm frame in between without running their epilogues, so the shadow
 * stack pointer (the global __stack_pointer) still holds the value of the frame that threw.
 * Here it gets back the value it had before the call. */
__asm__(".globaltype __stack_pointer, i32");

static inline void *stack_pointer(void) {
  void *sp;
  __asm__ volatile("global.get __stack_pointer\n\tlocal.set %0" : "=r"(sp));
  return sp;
}

static inline void set_stack_pointer(void *sp) {
  __asm__ volatile("local.get %0\n\tglobal.set __stack_pointer" : : "r"(sp));
}

int kvlab_lua_try(void (*f)(void *, void *), void *L, void *ud) {
  void *sp = stack_pointer();
  int thrown = kvlab_rs_try(f, L, ud);
  if (thrown) set_stack_pointer(sp);
  return thrown;
}

/* ---- errno, locale, time, environment ---- */
int kvlab_errno;

static char dot[] = ".", empty[] = "";
static struct lconv c_lconv = {dot, empty, empty};
struct lconv *kvlab_localeconv(void) { return &c_lconv; }
char *kvlab_setlocale(int category, const char *locale) {
  (void)category;
  return (locale == NULL || locale[0] == '\0' || strcmp(locale, "C") == 0) ? (char *)"C" : NULL;
}
time_t kvlab_time(time_t *t) {
  if (t) *t = 0;
  return 0;
}
clock_t kvlab_clock(void) { return 0; }
char *kvlab_getenv(const char *name) {
  (void)name;
  return NULL;
}

/* A linear congruential generator: only Lua's own math.random uses it, and Redis replaces
 * that with its own. */
static unsigned long long rand_state = 1;
int kvlab_rand(void) {
  rand_state = rand_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (int)((rand_state >> 33) & RAND_MAX);
}
void kvlab_srand(unsigned seed) { rand_state = seed; }
int kvlab_abs(int x) { return x < 0 ? -x : x; }

void kvlab_abort(void) { __builtin_trap(); }
void kvlab_exit(int status) {
  (void)status;
  __builtin_trap();
}

/* ---- ctype: the "C" locale ---- */
int kvlab_isdigit(int c) { return c >= '0' && c <= '9'; }
int kvlab_islower(int c) { return c >= 'a' && c <= 'z'; }
int kvlab_isupper(int c) { return c >= 'A' && c <= 'Z'; }
int kvlab_isalpha(int c) { return kvlab_islower(c) || kvlab_isupper(c); }
int kvlab_isalnum(int c) { return kvlab_isalpha(c) || kvlab_isdigit(c); }
int kvlab_isxdigit(int c) {
  return kvlab_isdigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
int kvlab_isspace(int c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
int kvlab_iscntrl(int c) { return (c >= 0 && c < 32) || c == 127; }
int kvlab_isprint(int c) { return c >= 32 && c < 127; }
int kvlab_isgraph(int c) { return c > 32 && c < 127; }
int kvlab_ispunct(int c) { return kvlab_isgraph(c) && !kvlab_isalnum(c); }
int kvlab_tolower(int c) { return kvlab_isupper(c) ? c + 32 : c; }
int kvlab_toupper(int c) { return kvlab_islower(c) ? c - 32 : c; }

/* ---- string.h ---- */
void *kvlab_memchr(const void *s, int c, size_t n) {
  const unsigned char *p = s;
  for (; n > 0; n--, p++)
    if (*p == (unsigned char)c) return (void *)p;
  return NULL;
}
size_t kvlab_strlen(const char *s) {
  const char *p = s;
  while (*p) p++;
  return (size_t)(p - s);
}
char *kvlab_strcpy(char *d, const char *s) {
  char *r = d;
  while ((*d++ = *s++)) {
  }
  return r;
}
char *kvlab_strncpy(char *d, const char *s, size_t n) {
  size_t i = 0;
  for (; i < n && s[i]; i++) d[i] = s[i];
  for (; i < n; i++) d[i] = '\0';
  return d;
}
char *kvlab_strcat(char *d, const char *s) {
  kvlab_strcpy(d + kvlab_strlen(d), s);
  return d;
}
char *kvlab_strncat(char *d, const char *s, size_t n) {
  char *e = d + kvlab_strlen(d);
  size_t i = 0;
  for (; i < n && s[i]; i++) e[i] = s[i];
  e[i] = '\0';
  return d;
}
int kvlab_strcmp(const char *a, const char *b) {
  const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;
  while (*x && *x == *y) x++, y++;
  return *x - *y;
}
int kvlab_strncmp(const char *a, const char *b, size_t n) {
  const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;
  for (; n > 0; n--, x++, y++) {
    if (*x != *y) return *x - *y;
    if (!*x) return 0;
  }
  return 0;
}
char *kvlab_strchr(const char *s, int c) {
  for (;; s++) {
    if (*s == (char)c) return (char *)s;
    if (!*s) return NULL;
  }
}
char *kvlab_strrchr(const char *s, int c) {
  const char *r = NULL;
  for (;; s++) {
    if (*s == (char)c) r = s;
    if (!*s) return (char *)r;
  }
}
size_t kvlab_strspn(const char *s, const char *accept) {
  size_t n = 0;
  while (s[n] && kvlab_strchr(accept, s[n])) n++;
  return n;
}
size_t kvlab_strcspn(const char *s, const char *reject) {
  size_t n = 0;
  while (s[n] && !kvlab_strchr(reject, s[n])) n++;
  return n;
}
char *kvlab_strpbrk(const char *s, const char *accept) {
  s += kvlab_strcspn(s, accept);
  return *s ? (char *)s : NULL;
}
char *kvlab_strstr(const char *h, const char *n) {
  size_t len = kvlab_strlen(n);
  for (; *h; h++)
    if (kvlab_strncmp(h, n, len) == 0) return (char *)h;
  return len == 0 ? (char *)h : NULL;
}
char *kvlab_strerror(int e) {
  switch (e) {
    case 0: return (char *)"Success";
    case ENOENT: return (char *)"No such file or directory";
    case EDOM: return (char *)"Numerical argument out of domain";
    case ERANGE: return (char *)"Numerical result out of range";
    default: return (char *)"Unknown error";
  }
}

/* ---- strtoull, strtol (glibc's rules: whitespace, sign, 0x for base 0 and 16) ---- */
static int digit_value(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'z') return c - 'a' + 10;
  if (c >= 'A' && c <= 'Z') return c - 'A' + 10;
  return 99;
}

/* Parses the magnitude; *neg gets the sign, *over whether it passed `limit`. */
static unsigned long long parse_ull(const char *s, char **end, int base, int *neg,
                                    unsigned long long limit, int *over) {
  const char *p = s, *digits;
  unsigned long long v = 0;
  *neg = 0;
  *over = 0;
  while (kvlab_isspace((unsigned char)*p)) p++;
  if (*p == '+' || *p == '-') *neg = (*p++ == '-');
  if ((base == 0 || base == 16) && p[0] == '0' && (p[1] == 'x' || p[1] == 'X') &&
      digit_value((unsigned char)p[2]) < 16) {
    p += 2;
    base = 16;
  } else if (base == 0) {
    base = p[0] == '0' ? 8 : 10;
  }
  digits = p;
  for (; digit_value((unsigned char)*p) < base; p++) {
    unsigned d = (unsigned)digit_value((unsigned char)*p);
    if (v > (limit - d) / (unsigned)base) *over = 1;
    else v = v * (unsigned)base + d;
  }
  if (end) *end = (char *)(p == digits ? s : p);
  return v;
}

unsigned long long kvlab_strtoull(const char *s, char **end, int base) {
  int neg, over;
  unsigned long long v = parse_ull(s, end, base, &neg, ULLONG_MAX, &over);
  if (over) {
    errno = ERANGE;
    return ULLONG_MAX;
  }
  return neg ? 0 - v : v;
}

long kvlab_strtol(const char *s, char **end, int base) {
  int neg, over;
  unsigned long long v = parse_ull(s, end, base, &neg, (unsigned long long)LONG_MAX + 1, &over);
  if (over || (!neg && v > LONG_MAX)) {
    errno = ERANGE;
    return neg ? LONG_MIN : LONG_MAX;
  }
  return neg ? (long)(0 - v) : (long)v;
}

int kvlab_atoi(const char *s) { return (int)kvlab_strtol(s, NULL, 10); }

/* ---- printf ---- */
struct out {
  char *buf;
  size_t cap, n;
};

static void put(struct out *o, char c) {
  if (o->n + 1 < o->cap) o->buf[o->n] = c;
  o->n++;
}
static void put_n(struct out *o, char c, int n) {
  for (; n > 0; n--) put(o, c);
}
static void put_s(struct out *o, const char *s, size_t n) {
  for (size_t i = 0; i < n; i++) put(o, s[i]);
}

enum { F_MINUS = 1, F_PLUS = 2, F_SPACE = 4, F_HASH = 8, F_ZERO = 16 };

/* Writes prefix (sign, 0x) and body within `width`: spaces before, zeros between prefix
 * and body (when `zeros`), or spaces after (F_MINUS). */
static void put_field(struct out *o, int flags, int width, const char *prefix, size_t plen,
                      int leading_zeros, const char *body, size_t blen, int zeros) {
  int len = (int)(plen + (size_t)leading_zeros + blen);
  int pad = width > len ? width - len : 0;
  if (!(flags & F_MINUS) && !zeros) put_n(o, ' ', pad);
  put_s(o, prefix, plen);
  if (!(flags & F_MINUS) && zeros) put_n(o, '0', pad);
  put_n(o, '0', leading_zeros);
  put_s(o, body, blen);
  if (flags & F_MINUS) put_n(o, ' ', pad);
}

static void format_int(struct out *o, unsigned long long v, int neg, char conv, int flags,
                       int width, int prec) {
  char digits[24], prefix[3];
  const char *set = conv == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
  unsigned base = (conv == 'o') ? 8 : (conv == 'x' || conv == 'X') ? 16 : 10;
  size_t nd = 0, np = 0;
  int zeros;
  char *end = digits + sizeof digits, *p = end;
  for (unsigned long long x = v; x > 0; x /= base) *--p = set[x % base];
  nd = (size_t)(end - p);
  if (prec < 0 && v == 0) *--p = '0', nd = 1;
  if (conv == 'd' || conv == 'i') {
    if (neg) prefix[np++] = '-';
    else if (flags & F_PLUS) prefix[np++] = '+';
    else if (flags & F_SPACE) prefix[np++] = ' ';
  } else if ((flags & F_HASH) && base == 16 && v != 0) {
    prefix[np++] = '0';
    prefix[np++] = conv;
  }
  zeros = prec > (int)nd ? prec - (int)nd : 0;
  if ((flags & F_HASH) && base == 8 && zeros == 0 && (nd == 0 || *p != '0')) zeros = 1;
  put_field(o, flags, width, prefix, np, zeros, p, nd, (flags & F_ZERO) && prec < 0);
}

static void format_double(struct out *o, double x, char conv, int flags, int width, int prec) {
  char body[1100], prefix[1];
  size_t np = 0, nb;
  int upper = conv == 'E' || conv == 'F' || conv == 'G';
  int finite = !__builtin_isinf(x) && !__builtin_isnan(x);
  if (__builtin_signbit(x)) prefix[np++] = '-';
  else if (flags & F_PLUS) prefix[np++] = '+';
  else if (flags & F_SPACE) prefix[np++] = ' ';
  if (!finite) {
    put_field(o, flags, width, prefix, np, 0,
              __builtin_isnan(x) ? (upper ? "NAN" : "nan") : (upper ? "INF" : "inf"), 3, 0);
    return;
  }
  if (prec > 500) prec = 500;
  nb = kvlab_rs_format_double(body, sizeof body, x, conv, prec, (flags & F_HASH) != 0);
  put_field(o, flags, width, prefix, np, 0, body, nb, (flags & F_ZERO) != 0);
}

int kvlab_vsnprintf(char *buf, size_t cap, const char *fmt, va_list ap) {
  struct out o = {buf, cap, 0};
  for (const char *f = fmt; *f; f++) {
    int flags = 0, width = 0, prec = -1, lng = 0;
    if (*f != '%') {
      put(&o, *f);
      continue;
    }
    for (f++;; f++) {
      if (*f == '-') flags |= F_MINUS;
      else if (*f == '+') flags |= F_PLUS;
      else if (*f == ' ') flags |= F_SPACE;
      else if (*f == '#') flags |= F_HASH;
      else if (*f == '0') flags |= F_ZERO;
      else break;
    }
    if (*f == '*') {
      width = va_arg(ap, int);
      if (width < 0) flags |= F_MINUS, width = -width;
      f++;
    } else {
      for (; kvlab_isdigit((unsigned char)*f); f++) width = width * 10 + (*f - '0');
    }
    if (*f == '.') {
      f++;
      prec = 0;
      if (*f == '*') {
        prec = va_arg(ap, int);
        f++;
      } else {
        for (; kvlab_isdigit((unsigned char)*f); f++) prec = prec * 10 + (*f - '0');
      }
    }
    /* Length: 1 h, 2 hh, 3 l, 4 ll/j/q, 5 z/t. */
    for (;; f++) {
      if (*f == 'h') lng = lng == 1 ? 2 : 1;
      else if (*f == 'l') lng = lng == 3 ? 4 : 3;
      else if (*f == 'j' || *f == 'q' || *f == 'L') lng = 4;
      else if (*f == 'z' || *f == 't') lng = 5;
      else break;
    }
    switch (*f) {
      case 'd':
      case 'i': {
        long long v = lng == 4 ? va_arg(ap, long long) : lng == 3 ? va_arg(ap, long)
                      : lng == 5 ? (long long)va_arg(ap, ptrdiff_t) : va_arg(ap, int);
        if (lng == 1) v = (short)v;
        if (lng == 2) v = (signed char)v;
        format_int(&o, v < 0 ? 0 - (unsigned long long)v : (unsigned long long)v, v < 0, *f,
                   flags, width, prec);
        break;
      }
      case 'o':
      case 'u':
      case 'x':
      case 'X': {
        unsigned long long v = lng == 4 ? va_arg(ap, unsigned long long)
                               : lng == 3 ? va_arg(ap, unsigned long)
                               : lng == 5 ? va_arg(ap, size_t) : va_arg(ap, unsigned);
        if (lng == 1) v = (unsigned short)v;
        if (lng == 2) v = (unsigned char)v;
        format_int(&o, v, 0, *f, flags, width, prec);
        break;
      }
      case 'c': {
        char c = (char)va_arg(ap, int);
        put_field(&o, flags, width, "", 0, 0, &c, 1, 0);
        break;
      }
      case 's': {
        const char *s = va_arg(ap, const char *);
        size_t n = 0;
        if (s == NULL) s = prec < 0 || prec >= 6 ? "(null)" : "";
        while ((prec < 0 || n < (size_t)prec) && s[n]) n++;
        put_field(&o, flags, width, "", 0, 0, s, n, 0);
        break;
      }
      case 'p': {
        void *p = va_arg(ap, void *);
        if (p == NULL) {
          put_field(&o, flags, width, "", 0, 0, "(nil)", 5, 0);
        } else {
          format_int(&o, (unsigned long long)(size_t)p, 0, 'x', flags | F_HASH, width, prec);
        }
        break;
      }
      case 'e':
      case 'E':
      case 'f':
      case 'F':
      case 'g':
      case 'G':
        format_double(&o, va_arg(ap, double), *f, flags, width, prec);
        break;
      case 'n':
        *va_arg(ap, int *) = (int)o.n;
        break;
      case '%':
        put(&o, '%');
        break;
      default: /* unknown: printed as is, like glibc */
        put(&o, '%');
        if (*f) put(&o, *f);
        else f--;
    }
  }
  if (cap > 0) buf[o.n < cap ? o.n : cap - 1] = '\0';
  return (int)o.n;
}

int kvlab_snprintf(char *buf, size_t n, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int r = kvlab_vsnprintf(buf, n, fmt, ap);
  va_end(ap);
  return r;
}

int kvlab_sprintf(char *buf, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int r = kvlab_vsnprintf(buf, (size_t)INT_MAX, fmt, ap);
  va_end(ap);
  return r;
}

/* ---- stdio: stdout/stderr go to the console (src/libc.rs), no files ---- */
struct kvlab_FILE {
  int fd;
};
static struct kvlab_FILE files[3] = {{0}, {1}, {2}};
FILE *kvlab_stdin = &files[0], *kvlab_stdout = &files[1], *kvlab_stderr = &files[2];

size_t kvlab_fwrite(const void *p, size_t size, size_t n, FILE *f) {
  if (f->fd == 0) return 0;
  kvlab_rs_write(f->fd, p, size * n);
  return n;
}
int kvlab_fputs(const char *s, FILE *f) { return kvlab_fwrite(s, 1, kvlab_strlen(s), f) ? 1 : 0; }
int kvlab_puts(const char *s) {
  kvlab_fputs(s, stdout);
  kvlab_fputs("\n", stdout);
  return 1;
}
int kvlab_fputc(int c, FILE *f) {
  char ch = (char)c;
  kvlab_fwrite(&ch, 1, 1, f);
  return (unsigned char)c;
}

static int vfprintf_(FILE *f, const char *fmt, va_list ap) {
  char small[512];
  va_list copy;
  va_copy(copy, ap);
  int n = kvlab_vsnprintf(small, sizeof small, fmt, ap);
  if (n < (int)sizeof small) {
    kvlab_fwrite(small, 1, (size_t)n, f);
  } else {
    char *big = kvlab_malloc((size_t)n + 1);
    if (big) {
      kvlab_vsnprintf(big, (size_t)n + 1, fmt, copy);
      kvlab_fwrite(big, 1, (size_t)n, f);
      kvlab_free(big);
    }
  }
  va_end(copy);
  return n;
}
int kvlab_fprintf(FILE *f, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int r = vfprintf_(f, fmt, ap);
  va_end(ap);
  return r;
}
int kvlab_printf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int r = vfprintf_(stdout, fmt, ap);
  va_end(ap);
  return r;
}
int kvlab_fflush(FILE *f) {
  (void)f;
  return 0;
}
char *kvlab_fgets(char *s, int n, FILE *f) {
  (void)s, (void)n, (void)f;
  return NULL;
}
int kvlab_getc(FILE *f) {
  (void)f;
  return EOF;
}
int kvlab_ungetc(int c, FILE *f) {
  (void)f;
  return c;
}
size_t kvlab_fread(void *p, size_t size, size_t n, FILE *f) {
  (void)p, (void)size, (void)n, (void)f;
  return 0;
}
FILE *kvlab_fopen(const char *name, const char *mode) {
  (void)name, (void)mode;
  errno = ENOENT;
  return NULL;
}
FILE *kvlab_freopen(const char *name, const char *mode, FILE *f) {
  (void)f;
  return kvlab_fopen(name, mode);
}
int kvlab_fclose(FILE *f) {
  (void)f;
  return 0;
}
int kvlab_ferror(FILE *f) {
  (void)f;
  return 0;
}
int kvlab_feof(FILE *f) {
  (void)f;
  return 1;
}

/* Conversions as x86_64 does them (cvttsd2si): Lua's string.format casts a double to
 * long long and unsigned long long, which is undefined out of range in C, and the native
 * build (like Redis) gets the processor's answer. build.rs points lstrlib.c's casts here. */
long long kvlab_d2ll(double x) {
  if (!(x >= -9223372036854775808.0 && x < 9223372036854775808.0)) return LLONG_MIN;
  return (long long)x;
}
unsigned long long kvlab_d2ull(double x) {
  if (x >= 9223372036854775808.0) {
    return (unsigned long long)kvlab_d2ll(x - 9223372036854775808.0) ^ 0x8000000000000000ULL;
  }
  return (unsigned long long)kvlab_d2ll(x);
}
int kvlab_d2i(double x) {
  if (!(x > -2147483649.0 && x < 2147483648.0)) return INT_MIN;
  return (int)x;
}
