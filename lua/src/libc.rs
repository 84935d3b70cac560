//! The Rust half of the small libc that Lua is compiled against for wasm32 (`c/libc`):
//! what is easier to get exactly right in Rust than in C.
//!
//! - printf's `%e %f %g` digits and `strtod`: [`crate::numfmt`] (C adds sign and padding).
//! - `malloc` and friends on Rust's allocator, the math functions (the `libm` crate), and
//!   stdout/stderr to the browser's console, a line at a time.

#[cfg(target_arch = "wasm32")]
mod exports {
    //! The C symbols of `c/libc` that live in Rust.
    use std::alloc::{alloc, dealloc, realloc, Layout};
    use std::cell::RefCell;
    use std::ffi::{c_char, c_int, c_void, CStr};
    use wasm_bindgen::prelude::wasm_bindgen;

    #[no_mangle]
    unsafe extern "C" fn kvlab_rs_format_double(
        out: *mut c_char,
        cap: usize,
        x: f64,
        conv: c_int,
        prec: c_int,
        alt: c_int,
    ) -> usize {
        let s = crate::numfmt::format_double(x, conv as u8, prec, alt != 0);
        let n = s.len().min(cap);
        // SAFETY: out has room for cap bytes (c/libc/libc.c).
        unsafe { std::ptr::copy_nonoverlapping(s.as_ptr(), out as *mut u8, n) };
        n
    }

    #[no_mangle]
    unsafe extern "C" fn kvlab_strtod(s: *const c_char, end: *mut *mut c_char) -> f64 {
        // SAFETY: a NUL-terminated string from C.
        let bytes = unsafe { CStr::from_ptr(s) }.to_bytes();
        let (v, n) = crate::numfmt::parse_double(bytes);
        if !end.is_null() {
            // SAFETY: end points to a char* (strtod's contract); s + n is within s.
            unsafe { *end = s.add(n) as *mut c_char };
        }
        v
    }

    /// Every block carries its size in front of it, for `free` and `realloc`.
    const HEADER: usize = 8;

    fn layout(n: usize) -> Layout {
        Layout::from_size_align(n + HEADER, 8).expect("a block size")
    }

    #[no_mangle]
    unsafe extern "C" fn kvlab_malloc(n: usize) -> *mut c_void {
        // SAFETY: the layout has a nonzero size; the header is written before use.
        unsafe {
            let p = alloc(layout(n));
            if p.is_null() {
                return p as *mut c_void;
            }
            (p as *mut usize).write(n);
            p.add(HEADER) as *mut c_void
        }
    }

    #[no_mangle]
    unsafe extern "C" fn kvlab_calloc(n: usize, size: usize) -> *mut c_void {
        let Some(total) = n.checked_mul(size) else {
            return std::ptr::null_mut();
        };
        // SAFETY: a fresh block of total bytes.
        unsafe {
            let p = kvlab_malloc(total);
            if !p.is_null() {
                std::ptr::write_bytes(p as *mut u8, 0, total);
            }
            p
        }
    }

    #[no_mangle]
    unsafe extern "C" fn kvlab_free(p: *mut c_void) {
        if p.is_null() {
            return;
        }
        // SAFETY: p came from kvlab_malloc/kvlab_realloc, so its header precedes it.
        unsafe {
            let base = (p as *mut u8).sub(HEADER);
            dealloc(base, layout((base as *const usize).read()));
        }
    }

    #[no_mangle]
    unsafe extern "C" fn kvlab_realloc(p: *mut c_void, n: usize) -> *mut c_void {
        if p.is_null() {
            // SAFETY: as malloc.
            return unsafe { kvlab_malloc(n) };
        }
        // SAFETY: p came from here (see kvlab_free).
        unsafe {
            let base = (p as *mut u8).sub(HEADER);
            let old = (base as *const usize).read();
            let q = realloc(base, layout(old), n + HEADER);
            if q.is_null() {
                return q as *mut c_void;
            }
            (q as *mut usize).write(n);
            q.add(HEADER) as *mut c_void
        }
    }

    macro_rules! math {
        ($($name:ident($($a:ident),*) => $f:path;)*) => {$(
            #[no_mangle]
            extern "C" fn $name($($a: f64),*) -> f64 { $f($($a),*) }
        )*};
    }
    math! {
        kvlab_fmod(x, y) => libm::fmod;
        kvlab_pow(x, y) => libm::pow;
        kvlab_sin(x) => libm::sin;
        kvlab_cos(x) => libm::cos;
        kvlab_tan(x) => libm::tan;
        kvlab_asin(x) => libm::asin;
        kvlab_acos(x) => libm::acos;
        kvlab_atan(x) => libm::atan;
        kvlab_atan2(y, x) => libm::atan2;
        kvlab_sinh(x) => libm::sinh;
        kvlab_cosh(x) => libm::cosh;
        kvlab_tanh(x) => libm::tanh;
        kvlab_exp(x) => libm::exp;
        kvlab_log(x) => libm::log;
        kvlab_log10(x) => libm::log10;
    }

    #[no_mangle]
    unsafe extern "C" fn kvlab_frexp(x: f64, e: *mut c_int) -> f64 {
        let (m, exp) = libm::frexp(x);
        // SAFETY: frexp's out parameter.
        unsafe { *e = exp };
        m
    }

    #[no_mangle]
    extern "C" fn kvlab_ldexp(x: f64, e: c_int) -> f64 {
        libm::ldexp(x, e)
    }

    #[no_mangle]
    unsafe extern "C" fn kvlab_modf(x: f64, ip: *mut f64) -> f64 {
        let (frac, int) = libm::modf(x);
        // SAFETY: modf's out parameter.
        unsafe { *ip = int };
        frac
    }

    #[wasm_bindgen]
    extern "C" {
        #[wasm_bindgen(js_namespace = console, js_name = log)]
        fn console_log(s: &str);
        #[wasm_bindgen(js_namespace = console, js_name = error)]
        fn console_error(s: &str);
    }

    thread_local! {
        /// What stdout (0) and stderr (1) hold of their current line.
        static LINES: RefCell<[Vec<u8>; 2]> = const { RefCell::new([Vec::new(), Vec::new()]) };
    }

    /// fd 1 (stdout) or 2 (stderr): each whole line goes to console.log / console.error.
    #[no_mangle]
    unsafe extern "C" fn kvlab_rs_write(fd: c_int, s: *const c_char, n: usize) {
        // SAFETY: n bytes at s (fwrite's contract).
        let bytes = unsafe { std::slice::from_raw_parts(s as *const u8, n) };
        let i = usize::from(fd == 2);
        let mut done = Vec::new();
        LINES.with(|lines| {
            let line = &mut lines.borrow_mut()[i];
            for &b in bytes {
                if b == b'\n' {
                    done.push(std::mem::take(line));
                } else {
                    line.push(b);
                }
            }
        });
        for line in done {
            let text = String::from_utf8_lossy(&line);
            if i == 0 {
                console_log(&text);
            } else {
                console_error(&text);
            }
        }
    }
}
