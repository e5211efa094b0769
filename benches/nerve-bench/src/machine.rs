//! The machine a report was measured on: printed next to every table, written into the JSON.

use serde::Serialize;
use std::process::Command;

/// The `machine` block of the JSON report.
#[derive(Clone, Debug, Serialize)]
pub struct Machine {
    /// CPU model name from `/proc/cpuinfo`.
    pub cpu: String,
    /// Logical CPUs this process may run on.
    pub cores: usize,
    /// Kernel release (`uname -r`).
    pub kernel: String,
    /// The compiler that built this binary.
    pub rustc: String,
    /// `python3 --version`, or `none`.
    pub python: String,
    /// UTC time the run started, RFC 3339.
    pub date: String,
    /// The nerve commit measured (`git rev-parse --short HEAD` where the bench runs, `+dirty`
    /// with uncommitted changes), or `unknown` outside a checkout.
    pub commit: String,
}

/// The checkout's commit, as recorded in [`Machine::commit`].
fn git_commit() -> String {
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .and_then(|o| String::from_utf8(o.stdout).ok())
    };
    match git(&["rev-parse", "--short", "HEAD"]) {
        Some(c) => {
            let dirty = git(&["status", "--porcelain", "--untracked-files=no"])
                .is_some_and(|s| !s.trim().is_empty());
            format!("{}{}", c.trim(), if dirty { "+dirty" } else { "" })
        }
        None => "unknown".into(),
    }
}

impl Machine {
    /// Describes the current machine.
    pub fn detect() -> Self {
        let cpu = std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|s| {
                s.lines()
                    .find(|l| l.starts_with("model name"))
                    .and_then(|l| l.split_once(':'))
                    .map(|(_, v)| v.trim().to_string())
            })
            .unwrap_or_else(|| "unknown".into());
        let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease")
            .map(|s| s.trim().to_string())
            .unwrap_or_else(|_| "unknown".into());
        let python = Command::new("python3")
            .arg("--version")
            .output()
            .ok()
            .filter(|o| o.status.success())
            .and_then(|o| String::from_utf8(o.stdout).ok())
            .map(|s| s.trim().trim_start_matches("Python ").to_string())
            .unwrap_or_else(|| "none".into());
        Self {
            cpu,
            cores: crate::pin::allowed_cores().len(),
            kernel,
            rustc: env!("NERVE_BENCH_RUSTC").to_string(),
            python,
            date: utc_now_rfc3339(),
            commit: git_commit(),
        }
    }

    /// One line for the top of the printed table.
    pub fn summary(&self) -> String {
        format!(
            "{} | {} cores | Linux {} | {} | python {} | {} | nerve {}",
            self.cpu, self.cores, self.kernel, self.rustc, self.python, self.date, self.commit
        )
    }
}

/// The current UTC time as `YYYY-MM-DDTHH:MM:SSZ`, without a date-time dependency.
fn utc_now_rfc3339() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_from_days(days as i64);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        (rem / 60) % 60,
        rem % 60
    )
}

/// Days since 1970-01-01 to a proleptic Gregorian date (H. Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::civil_from_days;

    #[test]
    fn civil_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(19_723), (2024, 1, 1));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
    }
}
