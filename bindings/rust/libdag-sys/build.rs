//! Finds libdag for the linker.
//!
//! Order of precedence:
//! 1. `LIBDAG_LIB_DIR`: a directory holding `libdag.so` (a build tree such as
//!    `build/`, or an install prefix's `lib/`);
//! 2. `pkg-config --libs-only-L libdag`, for an installed libdag whose
//!    `libdag.pc` is on pkg-config's path;
//! 3. nothing: the linker's default directories (`/usr/lib`, ...).
//!
//! Only the standard library is used (no `pkg-config` or `cc` crate), so the
//! crate builds offline. Finding the library at run time is the loader's
//! business (`LD_LIBRARY_PATH`, an rpath, or an installed library); no rpath
//! is added here, since the right one depends on how the program is deployed.

use std::env;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=LIBDAG_LIB_DIR");
    println!("cargo:rerun-if-env-changed=PKG_CONFIG_PATH");
    println!("cargo:rerun-if-env-changed=PKG_CONFIG_LIBDIR");
    println!("cargo:rerun-if-changed=build.rs");

    if let Some(dir) = env::var_os("LIBDAG_LIB_DIR").filter(|d| !d.is_empty()) {
        let dir = dir.to_string_lossy().into_owned();
        println!("cargo:rustc-link-search=native={}", dir);
        // Seen by crates that depend on this one as DEP_DAG_LIB_DIR.
        println!("cargo:lib_dir={}", dir);
    } else {
        for dir in pkg_config_lib_dirs() {
            println!("cargo:rustc-link-search=native={}", dir);
        }
    }
    println!("cargo:rustc-link-lib=dylib=dag");
}

/// The `-L` directories pkg-config reports for libdag; empty when pkg-config
/// is missing, does not know libdag, or reports none (a library in a default
/// directory).
fn pkg_config_lib_dirs() -> Vec<String> {
    let output = match Command::new("pkg-config")
        .args(["--libs-only-L", "libdag"])
        .output()
    {
        Ok(output) if output.status.success() => output,
        _ => return Vec::new(),
    };
    String::from_utf8_lossy(&output.stdout)
        .split_whitespace()
        .filter_map(|flag| flag.strip_prefix("-L"))
        .filter(|dir| !dir.is_empty())
        .map(str::to_owned)
        .collect()
}
