//! Documents a user hands nerve — launch files, parameter files, a bridge's configuration,
//! YAML or JSON typed on a command line — refused before any parser sees them when they are
//! too large or nested too deep. A YAML parser's time grows with the square of the nesting
//! depth: a 120 KB file nested 60 000 deep took 10–16 s to refuse. The scan here is one pass
//! over the text, so a refusal is immediate. Every reader of such a document goes through
//! [`check`] (or [`read`], which also refuses a file too large to read).

use std::io::Read;
use std::path::Path;

/// The largest document accepted: 4 MiB (a launch or parameter file is a few KB).
pub const MAX_BYTES: usize = 4 << 20;

/// The deepest nesting accepted: 64 levels of mappings, sequences, `[` and `{` (a launch file
/// needs about 6).
pub const MAX_NESTING: usize = 64;

/// Why a document was refused before parsing.
#[derive(Debug, thiserror::Error)]
pub enum DocumentError {
    /// Larger than [`MAX_BYTES`].
    #[error("{what}: {bytes} bytes, more than the {MAX_BYTES} nerve reads; split it (includes, params_files)")]
    TooLarge {
        /// The document (a path, or the argument's name).
        what: String,
        /// Its size.
        bytes: u64,
    },
    /// Nested deeper than [`MAX_NESTING`].
    #[error("{what}: nested more than {MAX_NESTING} levels deep (line {line}); nerve refuses it before parsing")]
    TooDeep {
        /// The document.
        what: String,
        /// The line where the nesting went past the limit (from 1).
        line: usize,
    },
    /// The file could not be read.
    #[error("cannot read {what}: {source}")]
    Io {
        /// The file.
        what: String,
        /// The OS error.
        source: std::io::Error,
    },
}

/// Refuses `text` (named `what` in the error) when larger than [`MAX_BYTES`] or nested deeper
/// than [`MAX_NESTING`]. The nesting counted is an upper bound of what a YAML or JSON parser
/// would build: open `[` / `{` outside quotes and comments, plus, at the start of each line,
/// the enclosing indentation levels and the `- ` items that open on that line.
pub fn check(text: &str, what: &str) -> Result<(), DocumentError> {
    if text.len() > MAX_BYTES {
        return Err(DocumentError::TooLarge {
            what: what.to_owned(),
            bytes: text.len() as u64,
        });
    }
    let too_deep = |line: usize| DocumentError::TooDeep {
        what: what.to_owned(),
        line: line + 1,
    };
    let mut flow = 0usize;
    let mut indents: Vec<usize> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let body = line.trim_start_matches(' ');
        if flow == 0 && !body.is_empty() && !body.starts_with('#') {
            let indent = line.len() - body.len();
            while indents.last().is_some_and(|&i| i >= indent) {
                indents.pop();
            }
            indents.push(indent);
            let mut items = 0;
            let mut rest = body;
            while let Some(r) = rest.strip_prefix("- ").or_else(|| rest.strip_prefix("-\t")) {
                items += 1;
                rest = r.trim_start();
            }
            if indents.len() + items > MAX_NESTING {
                return Err(too_deep(n));
            }
        }
        flow = flow_depth(body, flow).map_err(|()| too_deep(n))?;
    }
    Ok(())
}

/// The `[` / `{` nesting after `line`, starting at `depth`; Err past [`MAX_NESTING`].
fn flow_depth(line: &str, mut depth: usize) -> Result<usize, ()> {
    let mut quote: Option<char> = None;
    let mut escaped = false;
    let mut prev = ' ';
    for c in line.chars() {
        match quote {
            Some('"') if escaped => escaped = false,
            Some('"') if c == '\\' => escaped = true,
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => match c {
                '"' | '\'' => quote = Some(c),
                '#' if prev.is_whitespace() => break,
                '[' | '{' => {
                    depth += 1;
                    if depth > MAX_NESTING {
                        return Err(());
                    }
                }
                ']' | '}' => depth = depth.saturating_sub(1),
                _ => {}
            },
        }
        prev = c;
    }
    Ok(depth)
}

/// Reads the file at `path` as text, refusing one larger than [`MAX_BYTES`] without reading
/// it all, then [`check`]s it.
pub fn read(path: &Path) -> Result<String, DocumentError> {
    let what = path.display().to_string();
    let io = |source| DocumentError::Io {
        what: what.clone(),
        source,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    let mut text = String::new();
    file.take(MAX_BYTES as u64 + 1)
        .read_to_string(&mut text)
        .map_err(io)?;
    check(&text, &what)?;
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    #[test]
    fn deep_and_large_documents_are_refused_at_once() {
        let t0 = Instant::now();
        let flow = "[".repeat(60_000) + &"]".repeat(60_000);
        assert!(matches!(
            check(&flow, "f"),
            Err(DocumentError::TooDeep { line: 1, .. })
        ));
        let dashes = "- ".repeat(60_000) + "x";
        assert!(matches!(
            check(&dashes, "f"),
            Err(DocumentError::TooDeep { .. })
        ));
        let block: String = (0..100)
            .map(|i| format!("{}k{i}:\n", " ".repeat(i)))
            .collect();
        assert!(matches!(
            check(&block, "f"),
            Err(DocumentError::TooDeep { line: 65, .. })
        ));
        let big = "a: 1\n".repeat(MAX_BYTES / 5 + 1);
        assert!(matches!(
            check(&big, "f"),
            Err(DocumentError::TooLarge { .. })
        ));
        assert!(
            t0.elapsed() < Duration::from_millis(500),
            "{:?}",
            t0.elapsed()
        );
    }

    #[test]
    fn ordinary_documents_pass() {
        let launch = "nodes:\n  - name: a\n    params: {x: [1, 2, {y: \"[[[\"}]}\n    # [[[[\n  - name: b\n    wait_for: [{topic: /imu, timeout: 10}]\n";
        check(launch, "launch").unwrap();
        let deep_ok: String = (0..60)
            .map(|i| format!("{}k{i}:\n", " ".repeat(i)))
            .collect();
        check(&deep_ok, "f").unwrap();
        check(&("[".repeat(64) + &"]".repeat(64)), "f").unwrap();
        assert!(check(&("[".repeat(65) + &"]".repeat(65)), "f").is_err());
    }
}
