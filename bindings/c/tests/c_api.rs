//! The C ABI as C programs use it: each program in `tests/c/` is compiled with the system's C
//! compiler against the static library and run, plain and under AddressSanitizer and
//! UndefinedBehaviorSanitizer, in a domain of its own.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The static library cargo built for these tests (beside the test binary, or one up).
fn static_lib() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    let deps = exe.parent().expect("deps");
    [deps, deps.parent().expect("target dir")]
        .iter()
        .map(|d| d.join("libnerve_c.a"))
        .find(|p| p.exists())
        .expect("libnerve_c.a next to the test binary: cargo builds it with the tests")
}

/// Compiles `tests/c/<name>.c` (`sanitize`: with ASan and UBSan) and runs it; panics with its
/// output unless it exits 0.
fn run_c(name: &str, sanitize: bool) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = std::env::temp_dir().join(format!(
        "nerve-c-{name}-{}{}",
        std::process::id(),
        if sanitize { "-san" } else { "" }
    ));
    let mut cc = Command::new(std::env::var("CC").unwrap_or_else(|_| "cc".into()));
    cc.args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-g"])
        .arg("-I")
        .arg(dir.join("include"))
        .arg(dir.join("tests/c").join(format!("{name}.c")));
    if sanitize {
        cc.args(["-fsanitize=address,undefined", "-fno-sanitize-recover=all"]);
    }
    cc.arg(static_lib())
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(&out);
    let built = cc.output().expect("running the C compiler (cc)");
    assert!(
        built.status.success(),
        "compiling tests/c/{name}.c failed:\n{}",
        String::from_utf8_lossy(&built.stderr)
    );
    let (domain, _guard) = nerve_testing::domain();
    let ran = Command::new(&out)
        .env("NERVE_DOMAIN", domain.to_string())
        .output()
        .expect("running the C program");
    let _ = std::fs::remove_file(&out);
    assert!(
        ran.status.success(),
        "tests/c/{name}.c{} failed ({}):\n{}\n{}",
        if sanitize { " under ASan/UBSan" } else { "" },
        ran.status,
        String::from_utf8_lossy(&ran.stdout),
        String::from_utf8_lossy(&ran.stderr)
    );
}

#[test]
fn fixed_messages_from_c() {
    run_c("fixed", false);
}

#[test]
fn fixed_messages_from_c_under_sanitizers() {
    run_c("fixed", true);
}

#[test]
fn misuse_from_c_is_an_error_not_undefined_behaviour() {
    run_c("misuse", true);
}
