//! Building and running the C and C++ test programs of `tests/c/`.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The static library cargo built for these tests (beside the test binary, or one up).
pub fn static_lib() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    let deps = exe.parent().expect("deps");
    [deps, deps.parent().expect("target dir")]
        .iter()
        .map(|d| d.join("libnerve_c.a"))
        .find(|p| p.exists())
        .expect("libnerve_c.a next to the test binary: cargo builds it with the tests")
}

/// Compiles `tests/c/<file>` (C11, or C++17 for `.cpp`; `sanitize`: with ASan and UBSan) and
/// runs it; panics with its output unless it exits 0.
pub fn run_c(file: &str, sanitize: bool) {
    let (domain, _guard) = nerve_testing::domain();
    run_c_in(file, sanitize, domain);
}

/// [`run_c`] in `domain`.
pub fn run_c_in(file: &str, sanitize: bool, domain: u32) {
    let (out, source) = build_c(file, sanitize);
    let ran = Command::new(&out)
        .env("NERVE_DOMAIN", domain.to_string())
        .output()
        .expect("running the C program");
    let _ = std::fs::remove_file(&out);
    assert!(
        ran.status.success(),
        "tests/c/{source}{} failed ({}):\n{}\n{}",
        if sanitize { " under ASan/UBSan" } else { "" },
        ran.status,
        String::from_utf8_lossy(&ran.stdout),
        String::from_utf8_lossy(&ran.stderr)
    );
}

/// Compiles `tests/c/<file>`: the program's path and the source's name.
pub fn build_c(file: &str, sanitize: bool) -> (PathBuf, String) {
    let (name, cpp) = match file.strip_suffix(".cpp") {
        Some(n) => (n, true),
        None => (file, false),
    };
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    // One name per build: tests build the same program at once.
    static BUILT: AtomicUsize = AtomicUsize::new(0);
    let out = std::env::temp_dir().join(format!(
        "nerve-c-{}-{}-{}{}",
        file.replace('.', "-"),
        std::process::id(),
        // Relaxed: a counter for unique names, ordering nothing else.
        BUILT.fetch_add(1, Ordering::Relaxed),
        if sanitize { "-san" } else { "" }
    ));
    let (compiler, std, source) = if cpp {
        (
            std::env::var("CXX").unwrap_or_else(|_| "c++".into()),
            "-std=c++17",
            format!("{name}.cpp"),
        )
    } else {
        (
            std::env::var("CC").unwrap_or_else(|_| "cc".into()),
            "-std=c11",
            format!("{name}.c"),
        )
    };
    let mut cc = Command::new(&compiler);
    cc.args([std, "-Wall", "-Wextra", "-Werror", "-g"])
        .arg("-I")
        .arg(dir.join("include"))
        .arg(dir.join("tests/c").join(&source));
    if sanitize {
        cc.args(["-fsanitize=address,undefined", "-fno-sanitize-recover=all"]);
    }
    cc.arg(static_lib())
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(&out);
    let built = cc.output().expect("running the C compiler (cc)");
    assert!(
        built.status.success(),
        "compiling tests/c/{source} with {compiler} failed:\n{}",
        String::from_utf8_lossy(&built.stderr)
    );
    (out, source)
}

/// A C or C++ program of `tests/c/` running as a node: its stdin to say words to, its stdout's
/// lines to wait for.
pub struct Peer {
    child: std::process::Child,
    exe: PathBuf,
    lines: std::io::Lines<std::io::BufReader<std::process::ChildStdout>>,
}

impl Peer {
    /// Builds `file` and starts it with `args` in `domain`.
    pub fn start(file: &str, args: &[&str], domain: u32) -> Peer {
        use std::io::BufRead;
        use std::process::Stdio;
        let (exe, _) = build_c(file, false);
        let mut child = Command::new(&exe)
            .args(args)
            .env("NERVE_DOMAIN", domain.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("starting the C program");
        let lines = std::io::BufReader::new(child.stdout.take().expect("stdout")).lines();
        Peer { child, exe, lines }
    }

    /// The next line it prints.
    pub fn line(&mut self) -> String {
        self.lines
            .next()
            .and_then(Result::ok)
            .unwrap_or_else(|| panic!("{} ended without a word", self.exe.display()))
    }

    /// Waits for it to print `word`.
    pub fn expect(&mut self, word: &str) {
        assert_eq!(self.line(), word, "{} said", self.exe.display());
    }

    /// Writes `word` and a newline to its stdin.
    pub fn say(&mut self, word: &str) {
        use std::io::Write;
        let stdin = self.child.stdin.as_mut().expect("stdin");
        writeln!(stdin, "{word}")
            .and_then(|()| stdin.flush())
            .expect("writing to the program");
    }

    /// Closes its stdin and waits for it to exit 0.
    pub fn finish(mut self) {
        drop(self.child.stdin.take());
        let status = self.child.wait().expect("waiting for the program");
        assert!(
            status.success(),
            "{} exited with {status}",
            self.exe.display()
        );
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_file(&self.exe);
    }
}

/// The file mapped at `p` in this process, from /proc/self/maps ("" if none).
pub fn mapping_of(p: *const u8) -> String {
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap_or_default();
    let p = p as usize;
    maps.lines()
        .find_map(|line| {
            let (range, rest) = line.split_once(' ')?;
            let (lo, hi) = range.split_once('-')?;
            let (lo, hi) = (
                usize::from_str_radix(lo, 16).ok()?,
                usize::from_str_radix(hi, 16).ok()?,
            );
            (lo <= p && p < hi).then(|| rest.split_whitespace().nth(4).unwrap_or("").to_owned())
        })
        .unwrap_or_default()
}
