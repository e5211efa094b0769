//! Writing to stdout without panicking. `println!` panics when stdout is gone (`nerve topic
//! hz imu | head -1`: `head` exits, the next line meets a closed pipe); every verb writes
//! through `outln!` instead, which returns the failure. A closed pipe becomes
//! [`StdoutClosed`], which `main` ends quietly on (status 0, as ripgrep does): the reader has
//! all it wanted. Any other write error (a full disk) is an error like any other.

use std::io::Write;

/// Stdout's reader went away (a broken pipe). Not a failure of the command.
#[derive(Debug)]
pub struct StdoutClosed;

impl std::fmt::Display for StdoutClosed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("stdout was closed")
    }
}

impl std::error::Error for StdoutClosed {}

/// Writes `args` and a newline to stdout (line-buffered, so flushed at the newline).
pub fn write_line(args: std::fmt::Arguments<'_>) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_fmt(args).and_then(|()| out.write_all(b"\n")) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Err(StdoutClosed.into()),
        Err(e) => Err(anyhow::Error::new(e).context("cannot write to stdout")),
    }
}

/// `println!` that returns `anyhow::Result<()>` instead of panicking: `outln!("{x}")?;`.
/// (`main` declares this module first, with `#[macro_use]`, so every other module has it.)
macro_rules! outln {
    () => {
        $crate::output::write_line(format_args!(""))
    };
    ($($arg:tt)*) => {
        $crate::output::write_line(format_args!($($arg)*))
    };
}
