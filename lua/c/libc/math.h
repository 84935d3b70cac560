#ifndef KVLAB_MATH_H
#define KVLAB_MATH_H
#define HUGE_VAL (__builtin_inf())
#define INFINITY (__builtin_inff())
#define NAN (__builtin_nanf(""))
/* Exact ones are wasm instructions; the others are the libm crate's (src/libc.rs). */
#define floor(x) __builtin_floor(x)
#define ceil(x) __builtin_ceil(x)
#define fabs(x) __builtin_fabs(x)
#define sqrt(x) __builtin_sqrt(x)
double kvlab_fmod(double x, double y);
double kvlab_pow(double x, double y);
double kvlab_sin(double x);
double kvlab_cos(double x);
double kvlab_tan(double x);
double kvlab_asin(double x);
double kvlab_acos(double x);
double kvlab_atan(double x);
double kvlab_atan2(double y, double x);
double kvlab_sinh(double x);
double kvlab_cosh(double x);
double kvlab_tanh(double x);
double kvlab_exp(double x);
double kvlab_log(double x);
double kvlab_log10(double x);
double kvlab_frexp(double x, int *e);
double kvlab_ldexp(double x, int e);
double kvlab_modf(double x, double *ip);
#define fmod kvlab_fmod
#define pow kvlab_pow
#define sin kvlab_sin
#define cos kvlab_cos
#define tan kvlab_tan
#define asin kvlab_asin
#define acos kvlab_acos
#define atan kvlab_atan
#define atan2 kvlab_atan2
#define sinh kvlab_sinh
#define cosh kvlab_cosh
#define tanh kvlab_tanh
#define exp kvlab_exp
#define log kvlab_log
#define log10 kvlab_log10
#define frexp kvlab_frexp
#define ldexp kvlab_ldexp
#define modf kvlab_modf
#endif
