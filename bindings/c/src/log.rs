//! Logs from C: `nerve_log` publishes a record on the domain's log topic (`nerve log` shows
//! it with every other process's), as node `$NERVE_NODE` (what `nerve launch` sets) or the
//! program's name. Never blocks on the topic: what cannot go is dropped and counted.

use std::ffi::c_char;
use std::sync::OnceLock;

use nerve::log::{Level, Logger};

use crate::status::{fail, guard, NERVE_E_INVALID_ARGUMENT, NERVE_OK};
use crate::topic::text;

/// `nerve_log` levels.
pub const NERVE_LOG_TRACE: u32 = 0;
/// Debug.
pub const NERVE_LOG_DEBUG: u32 = 1;
/// Info.
pub const NERVE_LOG_INFO: u32 = 2;
/// Warning.
pub const NERVE_LOG_WARN: u32 = 3;
/// Error.
pub const NERVE_LOG_ERROR: u32 = 4;

fn logger() -> &'static Logger {
    static LOGGER: OnceLock<Logger> = OnceLock::new();
    LOGGER.get_or_init(|| {
        let node = std::env::var("NERVE_NODE")
            .ok()
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| {
                std::env::args()
                    .next()
                    .and_then(|a| a.rsplit('/').next().map(str::to_owned))
                    .unwrap_or_else(|| "c".into())
            });
        Logger::new(&node)
    })
}

fn level_of(level: u32, what: &str) -> crate::status::Res<Level> {
    Level::from_number(level).ok_or_else(|| {
        fail(
            NERVE_E_INVALID_ARGUMENT,
            format!("{what}: level {level} is none of NERVE_LOG_TRACE … NERVE_LOG_ERROR"),
        )
    })
}

/// Publishes `message` at `level` from `file`:`line` (NULL file: none). Use the
/// `NERVE_INFO(msg)` … macros, which pass `__FILE__` and `__LINE__`.
///
/// # Safety
/// `file` is NULL or NUL-terminated; `message` is NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn nerve_log(
    level: u32,
    file: *const c_char,
    line: u32,
    message: *const c_char,
) -> i32 {
    const WHAT: &str = "nerve_log";
    guard(WHAT, || {
        let level = level_of(level, WHAT)?;
        // SAFETY: the caller's promise.
        let message = unsafe { text(message, WHAT, "message") }?;
        let file = if file.is_null() {
            ""
        } else {
            // SAFETY: the caller's promise.
            unsafe { text(file, WHAT, "file") }?
        };
        let file = file.rsplit('/').next().unwrap_or(file);
        logger().log(level, file, line, message, Vec::new());
        Ok(NERVE_OK)
    })
}

/// Sets the lowest level `nerve_log` publishes (default `NERVE_LOG_INFO`).
#[no_mangle]
pub extern "C" fn nerve_log_set_level(level: u32) -> i32 {
    guard("nerve_log_set_level", || {
        logger().set_level(level_of(level, "nerve_log_set_level")?);
        Ok(NERVE_OK)
    })
}

/// Records `nerve_log` could not publish (no chunk free at that instant).
#[no_mangle]
pub extern "C" fn nerve_log_dropped() -> u64 {
    logger().dropped()
}
