//! Turns every ```rust block of the repository's README.md into a function of the `readme`
//! test, so the README's Rust code is compiled and run by `cargo test` and cannot rot.
use std::fmt::Write as _;
use std::path::Path;

fn main() {
    let readme = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md");
    println!("cargo:rerun-if-changed={}", readme.display());
    let text = std::fs::read_to_string(&readme).expect("README.md at the repository root");
    let mut out = String::new();
    let mut names = Vec::new();
    let mut block: Option<(usize, String)> = None;
    for (i, line) in text.lines().enumerate() {
        match &mut block {
            None if line.trim_start().starts_with("```rust") => {
                block = Some((i + 1, String::new()))
            }
            None => {}
            Some((start, code)) if line.trim_start().starts_with("```") => {
                let name = format!("readme_line_{start}");
                writeln!(
                    out,
                    "#[allow(unused)]\nfn {name}() -> BlockResult {{\n{code}\nOk(())\n}}\n"
                )
                .unwrap();
                names.push((name, *start));
                block = None;
            }
            Some((_, code)) => {
                code.push_str(line);
                code.push('\n');
            }
        }
    }
    writeln!(
        out,
        "/// Every Rust block of README.md: (README line, function)."
    )
    .unwrap();
    writeln!(out, "const BLOCKS: &[Block] = &[").unwrap();
    for (name, line) in &names {
        writeln!(out, "    ({line}, {name}),").unwrap();
    }
    writeln!(out, "];").unwrap();
    let dest = Path::new(&std::env::var("OUT_DIR").unwrap()).join("readme_blocks.rs");
    std::fs::write(dest, out).unwrap();
}
