//! [`Tensor`]: an n-dimensional array of any numeric type, the message learned models, vision
//! pipelines and the frameworks of Python (numpy, PyTorch, JAX, TensorFlow, pandas, PIL) send.
//!
//! A tensor is a chunked message: a [`TensorHeader`] (element type, shape, strides, device)
//! and the elements' bytes in a shared chunk, so it is written in place (loan → fill → send)
//! and read without a copy; the Python binding exports a received tensor through DLPack and the
//! buffer protocol. The layout follows DLPack's `DLTensor`: strides in elements, an element
//! type code, a device (where the bytes of a tensor on an accelerator would live; a tensor
//! sent through shared memory is on the CPU).

use crate::limits::TooMany;
use crate::std_msgs::Header;

/// Element type of a [`Tensor`] (`TensorHeader::dtype` holds the raw `u32`). The names are
/// numpy's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum DType {
    /// `bool`, one byte (0 or 1).
    Bool = 1,
    /// `u8`.
    U8 = 2,
    /// `i8`.
    I8 = 3,
    /// `u16`.
    U16 = 4,
    /// `i16`.
    I16 = 5,
    /// `u32`.
    U32 = 6,
    /// `i32`.
    I32 = 7,
    /// `u64`.
    U64 = 8,
    /// `i64`.
    I64 = 9,
    /// IEEE half precision.
    F16 = 10,
    /// bfloat16.
    BF16 = 11,
    /// `f32`.
    F32 = 12,
    /// `f64`.
    F64 = 13,
    /// Two `f32` (real, imaginary).
    C64 = 14,
    /// Two `f64` (real, imaginary).
    C128 = 15,
}

impl DType {
    /// Every element type, in code order.
    pub const ALL: [DType; 15] = [
        Self::Bool,
        Self::U8,
        Self::I8,
        Self::U16,
        Self::I16,
        Self::U32,
        Self::I32,
        Self::U64,
        Self::I64,
        Self::F16,
        Self::BF16,
        Self::F32,
        Self::F64,
        Self::C64,
        Self::C128,
    ];

    /// Decodes the raw value; `None` for an unknown code.
    pub fn from_raw(raw: u32) -> Option<Self> {
        Self::ALL.into_iter().find(|d| *d as u32 == raw)
    }

    /// Bytes of one element.
    pub fn size(self) -> usize {
        match self {
            Self::Bool | Self::U8 | Self::I8 => 1,
            Self::U16 | Self::I16 | Self::F16 | Self::BF16 => 2,
            Self::U32 | Self::I32 | Self::F32 => 4,
            Self::U64 | Self::I64 | Self::F64 | Self::C64 => 8,
            Self::C128 => 16,
        }
    }

    /// numpy's name (`"float32"`).
    pub fn name(self) -> &'static str {
        <Self as crate::schema::Codes>::VALUES[self as usize - 1].0
    }
}

impl crate::schema::Codes for DType {
    const VALUES: &'static [(&'static str, i64)] = &[
        ("bool", 1),
        ("uint8", 2),
        ("int8", 3),
        ("uint16", 4),
        ("int16", 5),
        ("uint32", 6),
        ("int32", 7),
        ("uint64", 8),
        ("int64", 9),
        ("float16", 10),
        ("bfloat16", 11),
        ("float32", 12),
        ("float64", 13),
        ("complex64", 14),
        ("complex128", 15),
    ];
}

/// Where a tensor's bytes live, as DLPack's `DLDeviceType` (`TensorHeader::device_type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum Device {
    /// Host memory (every tensor sent through shared memory).
    Cpu = 1,
    /// CUDA device memory.
    Cuda = 2,
    /// CUDA pinned host memory.
    CudaHost = 3,
}

impl crate::schema::Codes for Device {
    const VALUES: &'static [(&'static str, i64)] = &[("cpu", 1), ("cuda", 2), ("cuda_host", 3)];
}

/// Fixed part of a [`Tensor`]: 192 bytes. At most [`TensorHeader::MAX_DIMS`] dimensions;
/// [`TensorHeader::set_shape`] refuses more.
#[derive(Clone, Copy, Debug, PartialEq, crate::Message)]
#[message(crate = "crate", name = "nerve/Tensor", chunked(elem = u8, message = Tensor, doc = "An n-dimensional array (chunked; header 192 bytes: element type, shape, strides in elements, device; payload: the elements' bytes, little-endian). Written in place and read without a copy; Python exports it through DLPack and the buffer protocol."), default = "zeroed")]
#[repr(C)]
pub struct TensorHeader {
    /// Stamp and frame of the data.
    pub header: Header,
    /// A [`DType`] code.
    #[field(codes = DType)]
    pub dtype: u32,
    /// Number of dimensions (0 for a scalar), at most [`Self::MAX_DIMS`].
    pub ndim: u32,
    /// A [`Device`] code: where the data lived when it was sent (1, the CPU, for shared memory).
    #[field(codes = Device)]
    pub device_type: u32,
    /// The device's index (0 for the CPU).
    pub device_id: u32,
    /// Size of each dimension; the first `ndim` are valid, the rest zero.
    pub shape: [u64; TensorHeader::MAX_DIMS],
    /// Elements (not bytes) to step in each dimension; the first `ndim` are valid. All zero:
    /// C-contiguous (row-major).
    pub strides: [i64; TensorHeader::MAX_DIMS],
}

impl TensorHeader {
    /// The most dimensions a tensor has (DLPack and numpy allow more; no framework's common
    /// use needs them).
    pub const MAX_DIMS: usize = 8;

    /// A C-contiguous tensor of `shape` and `dtype` on the CPU.
    pub fn new(header: Header, dtype: DType, shape: &[u64]) -> Result<Self, TooMany> {
        let mut h = TensorHeader {
            header,
            dtype: dtype as u32,
            device_type: Device::Cpu as u32,
            ..Default::default()
        };
        h.set_shape(shape)?;
        Ok(h)
    }

    /// Sets `shape` and `ndim` (C-contiguous: strides zero). More than [`Self::MAX_DIMS`]
    /// dimensions: an error, nothing changed.
    pub fn set_shape(&mut self, shape: &[u64]) -> Result<(), TooMany> {
        self.ndim = crate::limits::write_list(&mut self.shape, "tensor dimensions", shape)?;
        self.strides = [0; Self::MAX_DIMS];
        Ok(())
    }

    /// The shape; `None` if `ndim` exceeds [`Self::MAX_DIMS`] (a corrupt message).
    pub fn shape(&self) -> Option<&[u64]> {
        crate::limits::read_list(&self.shape, self.ndim)
    }

    /// The element type; `None` for an unknown code.
    pub fn dtype(&self) -> Option<DType> {
        DType::from_raw(self.dtype)
    }

    /// Elements of the whole tensor; `None` on overflow or a corrupt header.
    pub fn numel(&self) -> Option<u64> {
        self.shape()?
            .iter()
            .try_fold(1u64, |n, &d| n.checked_mul(d))
    }

    /// Payload bytes of a C-contiguous tensor with this header; `None` on overflow, an unknown
    /// element type or a corrupt header.
    pub fn data_len(&self) -> Option<u64> {
        self.numel()?.checked_mul(self.dtype()?.size() as u64)
    }
}
