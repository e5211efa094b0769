//! The other side of a cross-process benchmark: this binary re-executed with a hidden
//! subcommand, driven by lines on its stdin and answering with lines on its stdout.

use anyhow::{anyhow, bail, Context, Result};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::Duration;

/// What follows `prefix` on the first line from `r` that starts with it (trimmed); lines
/// before it are skipped. An error when the stream ends first (the child died).
pub fn line_after(r: &mut impl BufRead, prefix: &str) -> Result<String> {
    let mut line = String::new();
    loop {
        line.clear();
        if r.read_line(&mut line)? == 0 {
            bail!("a child ended before printing {prefix}");
        }
        if let Some(rest) = line.trim().strip_prefix(prefix) {
            return Ok(rest.trim().to_owned());
        }
    }
}

/// A running copy of this binary. Killed (by its own pid) and reaped when dropped.
pub struct SelfChild {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    what: String,
}

impl SelfChild {
    /// Starts `current_exe() args...` with piped stdin/stdout; stderr is inherited so the
    /// child's diagnostics reach the terminal.
    pub fn spawn(args: &[String]) -> Result<Self> {
        let exe = std::env::current_exe().context("locating this binary to re-execute it")?;
        let mut child = Command::new(&exe)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .with_context(|| format!("spawning {} {}", exe.display(), args.join(" ")))?;
        let stdin = child
            .stdin
            .take()
            .ok_or_else(|| anyhow!("child stdin missing"))?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| anyhow!("child stdout missing"))?;
        let (tx, lines) = mpsc::channel();
        std::thread::Builder::new()
            .name("child-stdout".into())
            .spawn(move || {
                for line in BufReader::new(stdout).lines() {
                    let Ok(line) = line else { break };
                    if tx.send(line).is_err() {
                        break;
                    }
                }
            })
            .context("spawning the child's stdout reader")?;
        let what = args.first().cloned().unwrap_or_default();
        Ok(Self {
            child,
            stdin,
            lines,
            what,
        })
    }

    /// Sends one command line.
    pub fn send_line(&mut self, line: &str) -> Result<()> {
        writeln!(self.stdin, "{line}")
            .and_then(|_| self.stdin.flush())
            .with_context(|| format!("writing to child `{}` (pid {})", self.what, self.child.id()))
    }

    /// Waits for the next line the child prints.
    pub fn read_line(&mut self, timeout: Duration) -> Result<String> {
        match self.lines.recv_timeout(timeout) {
            Ok(l) => Ok(l),
            Err(RecvTimeoutError::Timeout) => bail!(
                "child `{}` (pid {}) said nothing for {timeout:?}",
                self.what,
                self.child.id()
            ),
            Err(RecvTimeoutError::Disconnected) => {
                let status = self.child.wait().map(|s| s.to_string()).unwrap_or_default();
                bail!(
                    "child `{}` exited ({status}); see its stderr above",
                    self.what
                )
            }
        }
    }
}

impl Drop for SelfChild {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit");
        let _ = self.stdin.flush();
        // Give it a moment to clean up its shared memory, then make sure it is gone.
        for _ in 0..100 {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The child's end: reads command lines from stdin, writes answers to stdout.
pub struct Parent {
    stdin: std::io::StdinLock<'static>,
    stdout: std::io::Stdout,
}

impl Parent {
    /// Attaches to this process's stdin/stdout.
    pub fn attach() -> Self {
        Self {
            stdin: std::io::stdin().lock(),
            stdout: std::io::stdout(),
        }
    }

    /// The next command line, or `None` when the parent closed the pipe.
    pub fn next_line(&mut self) -> Option<String> {
        let mut s = String::new();
        match self.stdin.read_line(&mut s) {
            Ok(0) | Err(_) => None,
            Ok(_) => Some(s.trim_end().to_string()),
        }
    }

    /// Answers one line.
    pub fn reply(&mut self, line: &str) -> Result<()> {
        let mut out = self.stdout.lock();
        writeln!(out, "{line}")?;
        out.flush()?;
        Ok(())
    }
}
