//! How `nerve` ends, whatever `RUST_BACKTRACE` says:
//!
//! - **success**: status 0;
//! - **a usage error** (an unknown flag, a value out of range): clap prints it, status 2;
//! - **a runtime error** (no such topic, a demo process that failed): one line on stderr,
//!   `error: <what happened>: <its causes>`, status 1. `main` never hands an error to the
//!   runtime, whose Debug printing adds a backtrace when `RUST_BACKTRACE` is set;
//! - **stdout closed by its reader** (`| head`): quietly, status 0;
//! - **a bug** (a panic): one line, `error: nerve hit a bug: <message> at <file:line>`, with
//!   where to report it, status 101. `RUST_BACKTRACE` is set on many developer machines for
//!   their own programs, so it is no request for nerve's internals: a backtrace is printed
//!   only when asked for with `NERVE_BACKTRACE=1`.

use std::io::Write;
use std::process::ExitCode;

use crate::output::StdoutClosed;

/// The status of a runtime error (clap's usage errors exit with 2).
const RUNTIME_ERROR: u8 = 1;

/// The variable that asks for a panic's backtrace.
const BACKTRACE_VAR: &str = "NERVE_BACKTRACE";

/// `text` on one line: its lines joined with a space.
fn one_line(text: &str) -> String {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Writes one line to stderr; a stderr that cannot be written to is ignored (there is nowhere
/// left to say so).
fn say(line: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

/// The exit status for the result of a verb, after printing its error (if any) on one line.
pub fn finish(result: anyhow::Result<()>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.downcast_ref::<StdoutClosed>().is_some() => ExitCode::SUCCESS,
        Err(e) => {
            // `{:#}`: the error and its causes, separated by ": ".
            say(&format!("error: {}", one_line(&format!("{e:#}"))));
            ExitCode::from(RUNTIME_ERROR)
        }
    }
}

/// The line a panic prints: what, where, that it is a bug, where to report it.
fn bug_line(message: &str, at: &str, thread: &str, backtrace: bool) -> String {
    format!(
        "error: nerve hit a bug: {}{at} (thread {thread}). Please report it at {}/issues with \
         the command you ran{}",
        one_line(message),
        env!("CARGO_PKG_REPOSITORY"),
        if backtrace {
            ""
        } else {
            "; NERVE_BACKTRACE=1 prints a backtrace"
        }
    )
}

/// Replaces the default panic message (and the backtrace `RUST_BACKTRACE` would add) with one
/// line that says it is a bug and where to report it; `NERVE_BACKTRACE=1` adds the backtrace.
pub fn install_panic_hook() {
    let backtrace = std::env::var(BACKTRACE_VAR).is_ok_and(|v| !v.is_empty() && v != "0");
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<&str>()
            .copied()
            .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
            .unwrap_or("(no message)");
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        let thread = std::thread::current();
        say(&bug_line(
            message,
            &at,
            thread.name().unwrap_or("unnamed"),
            backtrace,
        ));
        if backtrace {
            say(&std::backtrace::Backtrace::force_capture().to_string());
        }
    }));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_joins_lines() {
        assert_eq!(one_line("a\n  b\n\nc "), "a b c");
        assert_eq!(one_line("single"), "single");
    }

    #[test]
    fn a_bug_is_one_line_that_says_where_to_report_it() {
        let l = bug_line("index out of\nbounds", " at cli/src/x.rs:3", "main", false);
        assert_eq!(l.lines().count(), 1);
        assert!(l.starts_with("error: nerve hit a bug: index out of bounds at cli/src/x.rs:3"));
        assert!(
            l.contains("/issues") && l.contains("NERVE_BACKTRACE=1"),
            "{l}"
        );
        assert!(!bug_line("m", "", "main", true).contains("NERVE_BACKTRACE"));
    }

    #[test]
    fn an_error_and_its_causes_on_one_line() {
        let e = anyhow::anyhow!("inner\nsecond line").context("outer");
        assert_eq!(one_line(&format!("{e:#}")), "outer: inner second line");
    }
}
