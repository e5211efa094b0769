//! The numbers a message field holds: parsing their layout names, reading and writing them.

use std::convert::Infallible;

use pyo3::prelude::*;

/// A number field's type.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Prim {
    /// One byte, 0 or 1.
    Bool,
    U8,
    U16,
    U32,
    U64,
    I8,
    I16,
    I32,
    I64,
    F32,
    F64,
}

/// The value of a conversion that cannot fail.
pub(super) fn infallible<T>(r: Result<T, Infallible>) -> T {
    match r {
        Ok(v) => v,
        Err(e) => match e {},
    }
}

impl Prim {
    pub(super) fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "bool" => Self::Bool,
            "u8" => Self::U8,
            "u16" => Self::U16,
            "u32" => Self::U32,
            "u64" => Self::U64,
            "i8" => Self::I8,
            "i16" => Self::I16,
            "i32" => Self::I32,
            "i64" => Self::I64,
            "f32" => Self::F32,
            "f64" => Self::F64,
            _ => return None,
        })
    }

    pub(super) fn size(self) -> usize {
        match self {
            Self::Bool | Self::U8 | Self::I8 => 1,
            Self::U16 | Self::I16 => 2,
            Self::U32 | Self::I32 | Self::F32 => 4,
            Self::U64 | Self::I64 | Self::F64 => 8,
        }
    }

    /// numpy's type string (little-endian: the only byte order nerve runs on).
    pub(super) fn typestr(self) -> &'static str {
        match self {
            Self::Bool => "|b1",
            Self::U8 => "<u1",
            Self::U16 => "<u2",
            Self::U32 => "<u4",
            Self::U64 => "<u8",
            Self::I8 => "<i1",
            Self::I16 => "<i2",
            Self::I32 => "<i4",
            Self::I64 => "<i8",
            Self::F32 => "<f4",
            Self::F64 => "<f8",
        }
    }

    /// Reads the number at `p`.
    ///
    /// # Safety
    /// `p` must point at `self.size()` readable bytes.
    pub(super) unsafe fn read<'py>(self, py: Python<'py>, p: *const u8) -> Bound<'py, PyAny> {
        macro_rules! rd {
            ($t:ty) => {{
                // SAFETY: per the contract; fields need not be aligned in a view.
                let v = unsafe { p.cast::<$t>().read_unaligned() };
                infallible(v.into_pyobject(py)).into_any()
            }};
        }
        match self {
            Self::Bool => {
                // SAFETY: per the contract.
                let v = unsafe { p.read() } != 0;
                infallible(v.into_pyobject(py)).to_owned().into_any()
            }
            Self::U8 => rd!(u8),
            Self::U16 => rd!(u16),
            Self::U32 => rd!(u32),
            Self::U64 => rd!(u64),
            Self::I8 => rd!(i8),
            Self::I16 => rd!(i16),
            Self::I32 => rd!(i32),
            Self::I64 => rd!(i64),
            Self::F32 => rd!(f32),
            Self::F64 => rd!(f64),
        }
    }

    /// Converts `v` (an `int` for integer fields, out-of-range refused; any real number for
    /// float fields) and writes it at `p`. Nothing is written on error.
    ///
    /// # Safety
    /// `p` must point at `self.size()` writable bytes that nothing else references.
    pub(super) unsafe fn write(self, v: &Bound<'_, PyAny>, p: *mut u8) -> PyResult<()> {
        macro_rules! wr {
            ($t:ty) => {{
                let x: $t = v.extract()?;
                // SAFETY: per the contract; fields need not be aligned in a view.
                unsafe { p.cast::<$t>().write_unaligned(x) };
            }};
        }
        match self {
            Self::Bool => {
                let x: bool = v.extract()?;
                // SAFETY: per the contract.
                unsafe { p.write(u8::from(x)) };
            }
            Self::U8 => wr!(u8),
            Self::U16 => wr!(u16),
            Self::U32 => wr!(u32),
            Self::U64 => wr!(u64),
            Self::I8 => wr!(i8),
            Self::I16 => wr!(i16),
            Self::I32 => wr!(i32),
            Self::I64 => wr!(i64),
            Self::F32 => wr!(f32),
            Self::F64 => wr!(f64),
        }
        Ok(())
    }
}
