#ifndef KVLAB_STDIO_H
#define KVLAB_STDIO_H
#include "kvlab_libc.h"
#include <stdarg.h>
/* No files: stdout and stderr write to the browser's console (src/libc.rs), stdin is
 * always at its end, and fopen fails (Lua's loadfile/dofile; Redis removes both). */
typedef struct kvlab_FILE FILE;
extern FILE *kvlab_stdin, *kvlab_stdout, *kvlab_stderr;
#define stdin kvlab_stdin
#define stdout kvlab_stdout
#define stderr kvlab_stderr
#define EOF (-1)
#define BUFSIZ 8192
#define L_tmpnam 20
#define SEEK_SET 0
#define SEEK_CUR 1
#define SEEK_END 2
int kvlab_vsnprintf(char *buf, size_t n, const char *fmt, va_list ap);
int kvlab_snprintf(char *buf, size_t n, const char *fmt, ...);
int kvlab_sprintf(char *buf, const char *fmt, ...);
int kvlab_fprintf(FILE *f, const char *fmt, ...);
int kvlab_printf(const char *fmt, ...);
int kvlab_fputs(const char *s, FILE *f);
int kvlab_puts(const char *s);
int kvlab_fputc(int c, FILE *f);
size_t kvlab_fwrite(const void *p, size_t size, size_t n, FILE *f);
int kvlab_fflush(FILE *f);
char *kvlab_fgets(char *s, int n, FILE *f);
int kvlab_getc(FILE *f);
int kvlab_ungetc(int c, FILE *f);
size_t kvlab_fread(void *p, size_t size, size_t n, FILE *f);
FILE *kvlab_fopen(const char *name, const char *mode);
FILE *kvlab_freopen(const char *name, const char *mode, FILE *f);
int kvlab_fclose(FILE *f);
int kvlab_ferror(FILE *f);
int kvlab_feof(FILE *f);
#define vsnprintf kvlab_vsnprintf
#define snprintf kvlab_snprintf
#define sprintf kvlab_sprintf
#define fprintf kvlab_fprintf
#define printf kvlab_printf
#define fputs kvlab_fputs
#define puts kvlab_puts
#define fputc kvlab_fputc
#define putc kvlab_fputc
#define fwrite kvlab_fwrite
#define fflush kvlab_fflush
#define fgets kvlab_fgets
#define getc kvlab_getc
#define ungetc kvlab_ungetc
#define fread kvlab_fread
#define fopen kvlab_fopen
#define freopen kvlab_freopen
#define fclose kvlab_fclose
#define ferror kvlab_ferror
#define feof kvlab_feof
#endif
