//! Topic name rules: what may become a file name under `/dev/shm` and a Zenoh key.

use crate::error::OpenError;

/// Longest topic name, in bytes.
pub const MAX_NAME_LEN: usize = 200;

/// A topic name as a ROS 2 user types it: `/imu` is the topic `imu` (one leading `/` is
/// dropped; what remains must still [`validate`]).
pub fn canonical(name: &str) -> &str {
    name.strip_prefix('/').unwrap_or(name)
}

/// Checks a topic name: 1..=200 bytes of `[A-Za-z0-9_./-]`, not starting with `/` or `.`,
/// no empty segments (`//`), no `..`, not ending with `/`.
pub fn validate(name: &str) -> Result<(), OpenError> {
    let fail = |reason| {
        Err(OpenError::InvalidName {
            name: name.to_owned(),
            reason,
        })
    };
    if name.is_empty() {
        return fail("it is empty");
    }
    if name.len() > MAX_NAME_LEN {
        return fail("it is longer than 200 bytes");
    }
    if name.starts_with('/') || name.starts_with('.') {
        return fail("it starts with '/' or '.'");
    }
    if name.ends_with('/') {
        return fail("it ends with '/'");
    }
    if name.contains("//") || name.contains("..") {
        return fail("it contains '//' or '..'");
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '/' | '-')))
    {
        let _ = c;
        return fail("it contains a character outside [A-Za-z0-9_./-]");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{canonical, validate};

    #[test]
    fn accepts_robot_names_and_rejects_the_rest() {
        for ok in ["imu", "robot/cmd_vel", "cam.front/image-raw", "a/b/c_1"] {
            assert!(validate(ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            "/abs",
            ".hidden",
            "a//b",
            "a/../b",
            "sp ace",
            "tab\t",
            "ü",
            "end/",
            "a%b",
            "x".repeat(201).as_str(),
        ] {
            let err = validate(bad).unwrap_err().to_string();
            assert!(err.contains("invalid topic name"), "{bad}: {err}");
        }
        assert_eq!(canonical("/imu"), "imu");
        assert_eq!(canonical("imu"), "imu");
        assert!(validate(canonical("//imu")).is_err());
    }
}
