//! Arguments checked where they enter the module, so that no value a Python program passes
//! reaches Rust as something it could overflow on or misread.
//!
//! - **Durations** ([`Seconds`]): a number of seconds, `None` or `math.inf` for "forever".
//!   Negative and NaN raise `ValueError` naming the argument; a finite value beyond
//!   [`FOREVER`] (about 100 years) is forever too, so no `Duration` or `Instant` arithmetic
//!   downstream can overflow. Every duration argument of the package goes through here.
//! - **Counts** ([`count`]): an `int` within the bounds the caller states, else `ValueError`
//!   naming the argument (a `TypeError` for a non-integer).

use std::time::Duration;

use pyo3::exceptions::{PyOverflowError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyInt;

use crate::errors::guard;

/// The longest wait nerve takes literally (about 100 years): a longer one, `None` and
/// `math.inf` mean forever. Every `Instant` and nanosecond deadline stays far from overflow
/// with it.
pub(crate) const FOREVER: Duration = Duration::from_secs(100 * 365 * 24 * 3600);

/// A duration argument as Python gave it (checked by [`Seconds::wait`] or
/// [`Seconds::duration`], which name the argument), or a default.
pub(crate) enum Seconds<'py> {
    Given(Bound<'py, PyAny>),
    /// A default in seconds (`f64::INFINITY`: forever).
    Default(f64),
}

impl<'py> FromPyObject<'py> for Seconds<'py> {
    fn extract_bound(ob: &Bound<'py, PyAny>) -> PyResult<Self> {
        Ok(Seconds::Given(ob.clone()))
    }
}

impl Seconds<'_> {
    /// No timeout: wait until something happens.
    pub(crate) const FOREVER: Seconds<'static> = Seconds::Default(f64::INFINITY);

    /// The wait, `None` for forever; `name` is the argument's name for the error.
    pub(crate) fn wait(&self, name: &str) -> PyResult<Option<Duration>> {
        let secs = match self {
            Seconds::Default(s) => *s,
            Seconds::Given(v) => seconds(name, v)?,
        };
        Ok(if secs >= FOREVER.as_secs_f64() {
            None
        } else {
            // Finite, >= 0 and below FOREVER (checked by `seconds`): no panic.
            Some(Duration::from_secs_f64(secs))
        })
    }

    /// The wait as a `Duration`, forever as [`FOREVER`] (for APIs that take a timeout).
    pub(crate) fn duration(&self, name: &str) -> PyResult<Duration> {
        Ok(self.wait(name)?.unwrap_or(FOREVER))
    }
}

/// The seconds `value` stands for: a float or int >= 0, `math.inf` or a huge int for forever,
/// `None` for forever; `ValueError` (negative, NaN) or `TypeError` (not a number) naming
/// `name`.
fn seconds(name: &str, value: &Bound<'_, PyAny>) -> PyResult<f64> {
    if value.is_none() {
        return Ok(f64::INFINITY);
    }
    let bad = || {
        PyValueError::new_err(format!(
            "{name} must be a number of seconds >= 0 (None or math.inf: forever), got {}",
            value.repr().map_or_else(|_| "?".into(), |r| r.to_string())
        ))
    };
    let s = match value.extract::<f64>() {
        Ok(s) => s,
        // An int too large for a float: forever if positive.
        Err(e)
            if e.is_instance_of::<PyOverflowError>(value.py())
                && value.is_instance_of::<PyInt>() =>
        {
            if value.gt(0)? {
                f64::INFINITY
            } else {
                return Err(bad());
            }
        }
        Err(_) => {
            return Err(PyTypeError::new_err(format!(
                "{name} must be a number of seconds or None, got {}",
                value.get_type().name()?
            )))
        }
    };
    if s.is_nan() || s < 0.0 {
        return Err(bad());
    }
    Ok(s)
}

/// `_seconds(name, value)`: the package's duration rule for the pure-Python layer (`spin`'s
/// `duration`, ...): the seconds `value` stands for, `math.inf` for forever.
#[pyfunction]
pub(crate) fn _seconds(name: &str, value: &Bound<'_, PyAny>) -> PyResult<f64> {
    guard("_seconds", || {
        let s = seconds(name, value)?;
        Ok(if s >= FOREVER.as_secs_f64() {
            f64::INFINITY
        } else {
            s
        })
    })
}

/// The integer `value` if it lies in `lo..=hi`; else a `ValueError` (a `TypeError` if it is
/// not an integer) naming `name`.
pub(crate) fn count(name: &str, value: &Bound<'_, PyAny>, lo: u64, hi: u64) -> PyResult<u64> {
    let out_of_range = || -> PyResult<PyErr> {
        Ok(PyValueError::new_err(format!(
            "{name} must be an integer from {lo} to {hi}, got {}",
            value.repr()?
        )))
    };
    // Any integer (`__index__`: Python ints, numpy integers), never a float.
    match value.extract::<i128>() {
        Ok(v) if v >= i128::from(lo) && v <= i128::from(hi) => Ok(v as u64),
        Ok(_) => Err(out_of_range()?),
        Err(e) if e.is_instance_of::<PyOverflowError>(value.py()) => Err(out_of_range()?),
        Err(_) => Err(PyTypeError::new_err(format!(
            "{name} must be an int, got {}",
            value.get_type().name()?
        ))),
    }
}

/// `count` for an optional argument (`None`: not given).
pub(crate) fn count_opt(
    name: &str,
    value: Option<&Bound<'_, PyAny>>,
    lo: u64,
    hi: u64,
) -> PyResult<Option<u64>> {
    value
        .filter(|v| !v.is_none())
        .map(|v| count(name, v, lo, hi))
        .transpose()
}

/// A domain argument (`None`: `$NERVE_DOMAIN` or 0).
pub(crate) fn domain(value: Option<&Bound<'_, PyAny>>) -> PyResult<Option<u32>> {
    Ok(count_opt("domain", value, 0, u64::from(u32::MAX))?.map(|d| d as u32))
}
