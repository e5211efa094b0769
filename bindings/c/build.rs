//! The shared library's SONAME (`libnerve_c.so`), so programs linked against it name it, not
//! its path, and find it where it is installed.
fn main() {
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libnerve_c.so");
}
