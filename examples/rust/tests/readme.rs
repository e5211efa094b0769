//! Runs every Rust block of README.md (extracted by `build.rs`), one after the other, in a
//! domain of its own; fails naming the README line of a block that errs or panics.

/// What a README block returns: its `?` errors.
type BlockResult = Result<(), Box<dyn std::error::Error>>;
/// A README block: the line it starts on, and the function made of it.
type Block = (usize, fn() -> BlockResult);

include!(concat!(env!("OUT_DIR"), "/readme_blocks.rs"));

fn main() {
    let (domain, _guard) = nerve_testing::domain();
    // Set before any thread starts: every topic the blocks open lands in this domain.
    std::env::set_var("NERVE_DOMAIN", domain.to_string());
    assert!(!BLOCKS.is_empty(), "README.md has no ```rust block");
    let mut failed = 0;
    for (line, block) in BLOCKS {
        match std::panic::catch_unwind(block) {
            Ok(Ok(())) => println!("README.md:{line}: ok"),
            Ok(Err(e)) => {
                println!("README.md:{line}: FAILED: {e}");
                failed += 1;
            }
            Err(_) => {
                println!("README.md:{line}: FAILED: panicked");
                failed += 1;
            }
        }
    }
    if failed > 0 {
        eprintln!("{failed} README block(s) failed");
        std::process::exit(1);
    }
}
