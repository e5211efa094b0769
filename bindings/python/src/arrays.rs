//! numpy arrays viewing shared memory, made through numpy's C API (`PyArray_NewFromDescr`
//! with the loan or sample as base), their extent checked against the chunk's bytes.
//!
//! This replaced `numpy.ndarray(shape, dtype, buffer=owner, offset, strides)`, which goes
//! through a buffer export of the whole chunk; on the (noisy) project VM the two measured
//! within noise of each other (~0.8-0.9 µs each, same run), the call's argument conversion
//! dominating. What it adds is the bounds check against the chunk and no buffer export.

use numpy::npyffi::{self, NpyTypes, NPY_TYPES, PY_ARRAY_API};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyString;

/// The numpy type number of a plain little-endian type string (`u1`, `<f4`, ...).
fn type_number(s: &str) -> Option<NPY_TYPES> {
    Some(match s.trim_start_matches(['<', '|', '=']) {
        "u1" => NPY_TYPES::NPY_UBYTE,
        "i1" => NPY_TYPES::NPY_BYTE,
        "u2" => NPY_TYPES::NPY_USHORT,
        "i2" => NPY_TYPES::NPY_SHORT,
        "u4" => NPY_TYPES::NPY_UINT,
        "i4" => NPY_TYPES::NPY_INT,
        "u8" => NPY_TYPES::NPY_ULONGLONG,
        "i8" => NPY_TYPES::NPY_LONGLONG,
        "f4" => NPY_TYPES::NPY_FLOAT,
        "f8" => NPY_TYPES::NPY_DOUBLE,
        "b1" => NPY_TYPES::NPY_BOOL,
        "f2" => NPY_TYPES::NPY_HALF,
        "c8" => NPY_TYPES::NPY_CFLOAT,
        "c16" => NPY_TYPES::NPY_CDOUBLE,
        _ => return None,
    })
}

/// A numpy array of `shape` (`strides` in bytes, C order when `None`) and `dtype` (a type string
/// as above, or a numpy dtype object) starting `offset` bytes into the chunk of `total` bytes at
/// `start`, with `owner` as its base (it keeps the memory alive). Writable iff `writable`.
///
/// # Safety
/// `start..start + total` must stay valid while `owner` lives, and be writable (by the array's
/// users, with the GIL held) if `writable`.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn view<'py>(
    owner: &Bound<'py, PyAny>,
    start: *mut u8,
    total: usize,
    offset: usize,
    shape: &[isize],
    strides: Option<&[isize]>,
    dtype: &Bound<'py, PyAny>,
    writable: bool,
) -> PyResult<Bound<'py, PyAny>> {
    if let Ok(s) = dtype.downcast::<PyString>() {
        let s = s.to_str()?;
        let t = type_number(s)
            .ok_or_else(|| PyTypeError::new_err(format!("unsupported dtype string {s:?}")))?;
        // SAFETY: per this function's contract.
        return unsafe { view_of_type(owner, start, total, offset, shape, strides, t, writable) };
    }
    let py = owner.py();
    // SAFETY: numpy's API table is loaded by `PY_ARRAY_API` (importing numpy); an `isinstance`
    // check against numpy's dtype type, on valid object pointers.
    let is_descr = unsafe {
        let descr_type = PY_ARRAY_API.get_type_object(py, NpyTypes::PyArrayDescr_Type);
        pyo3::ffi::PyObject_TypeCheck(dtype.as_ptr(), descr_type) != 0
    };
    if !is_descr {
        return Err(PyTypeError::new_err(
            "dtype must be a type string or a numpy dtype",
        ));
    }
    let descr = dtype.clone().into_ptr().cast();
    // SAFETY: per this function's contract; `descr` is a new reference to a descriptor.
    unsafe { view_of_descr(owner, start, total, offset, shape, strides, descr, writable) }
}

/// [`view`] with the dtype given as a numpy type number (no string or object to convert).
///
/// # Safety
/// As [`view`].
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn view_of_type<'py>(
    owner: &Bound<'py, PyAny>,
    start: *mut u8,
    total: usize,
    offset: usize,
    shape: &[isize],
    strides: Option<&[isize]>,
    t: NPY_TYPES,
    writable: bool,
) -> PyResult<Bound<'py, PyAny>> {
    // SAFETY: numpy's API table is loaded by `PY_ARRAY_API` (importing numpy); the type
    // number is valid; returns a new reference (to a cached builtin descriptor).
    let descr = unsafe { PY_ARRAY_API.PyArray_DescrFromType(owner.py(), t as i32) };
    // SAFETY: per this function's contract; `descr` is a new reference (or null, checked).
    unsafe { view_of_descr(owner, start, total, offset, shape, strides, descr, writable) }
}

/// [`view`] with a descriptor, whose reference this takes over (also on error).
///
/// # Safety
/// As [`view`]; `descr` is null (an error is set) or a new reference to a descriptor.
#[allow(clippy::too_many_arguments)]
unsafe fn view_of_descr<'py>(
    owner: &Bound<'py, PyAny>,
    start: *mut u8,
    total: usize,
    offset: usize,
    shape: &[isize],
    strides: Option<&[isize]>,
    descr: *mut npyffi::PyArray_Descr,
    writable: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let py = owner.py();
    if descr.is_null() {
        return Err(PyErr::fetch(py));
    }
    let Some(available) = total.checked_sub(offset) else {
        // SAFETY: drops our reference to the descriptor.
        unsafe { pyo3::ffi::Py_DECREF(descr.cast()) };
        return Err(PyValueError::new_err(format!(
            "offset {offset} lies past the chunk's {total} bytes"
        )));
    };
    // SAFETY: `offset <= total`, so the pointer stays within (or one past) the chunk.
    let ptr = unsafe { start.add(offset) };
    // SAFETY: `descr` is a valid descriptor (new reference, owned here until handed over).
    let itemsize = unsafe { npyffi::PyDataType_ELSIZE(py, descr) } as isize;
    let mut dims: Vec<npyffi::npy_intp> = shape.to_vec();
    let mut st: Vec<npyffi::npy_intp> = match strides {
        Some(s) => s.to_vec(),
        None => {
            // C order; a shape whose strides overflow is refused below (as too large).
            let mut v = vec![isize::MAX; dims.len()];
            let mut acc = Some(itemsize);
            for i in (0..dims.len()).rev() {
                v[i] = acc.unwrap_or(isize::MAX);
                acc = acc.and_then(|a| a.checked_mul(dims[i]));
            }
            v
        }
    };
    // Bounds: every element must lie within `available` bytes.
    let mut extent: isize = itemsize;
    let mut ok = st.len() == dims.len();
    for (&d, &s) in dims.iter().zip(&st) {
        if d < 0 || s < 0 {
            ok = false;
        } else if d > 0 {
            extent = extent.saturating_add((d - 1).saturating_mul(s));
        }
    }
    if dims.contains(&0) {
        extent = 0;
    }
    if !ok || extent > available as isize {
        // SAFETY: drops our reference to the descriptor.
        unsafe { pyo3::ffi::Py_DECREF(descr.cast()) };
        return Err(PyValueError::new_err(format!(
            "an array of shape {shape:?}, strides {st:?} and {itemsize}-byte items does not fit \
             the {available} bytes of the chunk"
        )));
    }
    let flags = if writable {
        npyffi::NPY_ARRAY_WRITEABLE
    } else {
        0
    };
    // SAFETY: `descr` is handed over (stolen); `dims` and `st` hold `ndim` entries and outlive
    // the call (numpy copies them); the data pointer is valid for the extent checked above
    // while `owner` lives, which becomes the array's base below.
    let arr = unsafe {
        let subtype = PY_ARRAY_API.get_type_object(py, NpyTypes::PyArray_Type);
        PY_ARRAY_API.PyArray_NewFromDescr(
            py,
            subtype,
            descr,
            dims.len() as std::os::raw::c_int,
            dims.as_mut_ptr(),
            st.as_mut_ptr(),
            ptr.cast(),
            flags,
            std::ptr::null_mut(),
        )
    };
    if arr.is_null() {
        return Err(PyErr::fetch(py));
    }
    // SAFETY: `arr` is a new reference to an array; PyArray_SetBaseObject steals the reference
    // to `owner` we hand it (even on failure, when the array is released with it).
    unsafe {
        let arr = Bound::from_owned_ptr(py, arr);
        if PY_ARRAY_API.PyArray_SetBaseObject(py, arr.as_ptr().cast(), owner.clone().into_ptr())
            != 0
        {
            return Err(PyErr::fetch(py));
        }
        Ok(arr)
    }
}

/// The numpy layout of an image's pixels from its header: (type, shape, strides).
/// `(height, width)` for one channel, `(height, width, channels)` otherwise, rows `step` bytes
/// apart; a flat byte array of `step × height` for an encoding nerve does not know.
pub(crate) fn image_layout(h: &nerve::msgs::ImageHeader) -> (NPY_TYPES, Vec<isize>, Vec<isize>) {
    use nerve::msgs::Encoding;
    let (rows, cols, step) = (h.height as isize, h.width as isize, h.step as isize);
    let Some(e) = h.encoding() else {
        return (NPY_TYPES::NPY_UBYTE, vec![step * rows], vec![1]);
    };
    let ch = e.channels() as isize;
    let item = e.bytes_per_pixel() as isize / ch;
    let t = match e {
        Encoding::Mono16 | Encoding::U16C1 => NPY_TYPES::NPY_USHORT,
        Encoding::F32C1 => NPY_TYPES::NPY_FLOAT,
        _ => NPY_TYPES::NPY_UBYTE,
    };
    if ch == 1 {
        (t, vec![rows, cols], vec![step, item])
    } else {
        (t, vec![rows, cols, ch], vec![step, item * ch, item])
    }
}

/// Makes `array` read-only (numpy's `PyArray_CLEARFLAGS(array, NPY_ARRAY_WRITEABLE)`); views
/// taken from it before stay as they were.
pub(crate) fn seal(array: &Bound<'_, PyAny>) -> PyResult<()> {
    let py = array.py();
    // SAFETY: numpy's API table is loaded; a type check on valid object pointers.
    let is_array = unsafe {
        let t = PY_ARRAY_API.get_type_object(py, NpyTypes::PyArray_Type);
        pyo3::ffi::PyObject_TypeCheck(array.as_ptr(), t) != 0
    };
    if !is_array {
        return Err(PyTypeError::new_err("seal: not a numpy array"));
    }
    // SAFETY: an ndarray (checked above), whose object starts with `PyArrayObject`'s fields
    // (stable across numpy 1.x and 2.x); the GIL is held, so nobody else changes its flags.
    unsafe {
        (*array.as_ptr().cast::<npyffi::PyArrayObject>()).flags &= !npyffi::NPY_ARRAY_WRITEABLE
    };
    Ok(())
}

/// A numpy type, a shape and byte strides (None: C order).
pub(crate) type TensorLayout = (NPY_TYPES, Vec<isize>, Option<Vec<isize>>);

/// The numpy type, shape and byte strides (None: C order) of the tensor whose header is `h`;
/// an error naming what is wrong with a header no tensor has (an unknown element type, more
/// than 8 dimensions, a size past the address space). The array's extent is still checked
/// against the chunk when it is made.
pub(crate) fn tensor_layout(h: &nerve::msgs::TensorHeader) -> Result<TensorLayout, String> {
    use nerve::msgs::DType;
    let dtype = h
        .dtype()
        .ok_or_else(|| format!("a tensor of unknown element type code {}", h.dtype))?;
    let t = match dtype {
        DType::Bool => NPY_TYPES::NPY_BOOL,
        DType::U8 => NPY_TYPES::NPY_UBYTE,
        DType::I8 => NPY_TYPES::NPY_BYTE,
        // bfloat16 has no numpy type: its elements read as raw 16-bit words.
        DType::U16 | DType::BF16 => NPY_TYPES::NPY_USHORT,
        DType::I16 => NPY_TYPES::NPY_SHORT,
        DType::U32 => NPY_TYPES::NPY_UINT,
        DType::I32 => NPY_TYPES::NPY_INT,
        DType::U64 => NPY_TYPES::NPY_ULONGLONG,
        DType::I64 => NPY_TYPES::NPY_LONGLONG,
        DType::F16 => NPY_TYPES::NPY_HALF,
        DType::F32 => NPY_TYPES::NPY_FLOAT,
        DType::F64 => NPY_TYPES::NPY_DOUBLE,
        DType::C64 => NPY_TYPES::NPY_CFLOAT,
        DType::C128 => NPY_TYPES::NPY_CDOUBLE,
    };
    let shape = h
        .shape()
        .ok_or_else(|| format!("a tensor of {} dimensions (at most 8)", h.ndim))?;
    let too_big = || format!("a tensor of shape {shape:?}: larger than the address space");
    let shape: Vec<isize> = shape
        .iter()
        .map(|&d| isize::try_from(d).map_err(|_| too_big()))
        .collect::<Result<_, _>>()?;
    let strides = &h.strides[..shape.len()];
    let strides = if strides.iter().all(|&s| s == 0) {
        None
    } else {
        let item = dtype.size() as i64;
        Some(
            strides
                .iter()
                .map(|&s| {
                    s.checked_mul(item)
                        .and_then(|b| isize::try_from(b).ok())
                        .ok_or_else(too_big)
                })
                .collect::<Result<_, _>>()?,
        )
    };
    Ok((t, shape, strides))
}
