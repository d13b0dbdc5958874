//! The library's version, at compile time (macros in the header) and at run time.

use std::ffi::c_char;

/// Header version: compare with `rmq_version()` to detect a header/library mismatch. A unit test
/// keeps these equal to the crate's version.
pub const RMQ_VERSION_MAJOR: u32 = 0;
pub const RMQ_VERSION_MINOR: u32 = 1;
pub const RMQ_VERSION_PATCH: u32 = 0;

/// The version of the loaded library, `"MAJOR.MINOR.PATCH"`. Static: never freed.
#[no_mangle]
pub extern "C" fn rmq_version() -> *const c_char {
    const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), "\0");
    VERSION.as_ptr().cast()
}

/// The version of the loaded library as `MAJOR * 1000000 + MINOR * 1000 + PATCH`.
#[no_mangle]
pub extern "C" fn rmq_version_number() -> u32 {
    // The numbers are checked against the crate version by the test below.
    RMQ_VERSION_MAJOR * 1_000_000 + RMQ_VERSION_MINOR * 1_000 + RMQ_VERSION_PATCH
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_version_is_the_crate_version() {
        let expected = format!("{RMQ_VERSION_MAJOR}.{RMQ_VERSION_MINOR}.{RMQ_VERSION_PATCH}");
        assert_eq!(expected, env!("CARGO_PKG_VERSION"));
        // SAFETY: a static NUL-terminated string.
        let runtime = unsafe { std::ffi::CStr::from_ptr(rmq_version()) };
        assert_eq!(runtime.to_str().unwrap(), env!("CARGO_PKG_VERSION"));
    }
}
