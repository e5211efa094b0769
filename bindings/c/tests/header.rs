//! The committed header (`include/nerve.h`) is what cbindgen makes of this crate now.

#[test]
fn the_committed_header_is_current() {
    let dir = env!("CARGO_MANIFEST_DIR");
    let config =
        cbindgen::Config::from_file(format!("{dir}/cbindgen.toml")).expect("cbindgen.toml");
    let mut made = Vec::new();
    cbindgen::Builder::new()
        .with_crate(dir)
        .with_config(config)
        .generate()
        .expect("cbindgen reads the crate")
        .write(&mut made);
    let path = format!("{dir}/include/nerve.h");
    if std::env::var_os("NERVE_BLESS").is_some() {
        std::fs::write(&path, &made).expect("writing the header");
        return;
    }
    let committed = std::fs::read(&path).unwrap_or_default();
    assert!(
        committed == made,
        "bindings/c/include/nerve.h is stale: regenerate it with \
         `NERVE_BLESS=1 cargo test -p nerve-c --test header` and commit it"
    );
}
