//! nerve → ROS 2 without Python on the way: a Rust thread waits on a nerve topic, converts each
//! message to CDR and publishes it through rcl's C API (`rcl_publish_serialized_message`) on
//! the handle of a publisher rclpy created (`Publisher.handle.pointer`). No GIL is taken per
//! message; a Python thread doing the same paid a wake-up, the GIL and rclpy's call (measured
//! in docs/design/ros2-bridge.md).
//!
//! rcl is the library rclpy has already loaded in this process: it is found with
//! `dlopen(RTLD_NOLOAD)`, never loaded here, so nerve itself has no link to ROS 2.

use std::ffi::{c_char, c_void, CStr};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use nerve::echo::{self, EchoFilter as Filter};
use nerve::raw::{RawMessage, RawTopic};
use nerve_bag::ros2::TopicForm;
use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;

use crate::errors::{guard, open_err};
use crate::ros2::EchoFilter;

/// `rcutils_allocator_t`: four function pointers and a state (unused when publishing).
#[repr(C)]
struct Allocator([*mut c_void; 5]);

/// `rcl_serialized_message_t` (`rcutils_uint8_array_t`).
#[repr(C)]
struct SerializedMessage {
    buffer: *mut u8,
    buffer_length: usize,
    buffer_capacity: usize,
    allocator: Allocator,
}

type PublishFn = unsafe extern "C" fn(*const c_void, *const SerializedMessage, *mut c_void) -> i32;
type ResetErrorFn = unsafe extern "C" fn();

/// rcl's functions, from the copy rclpy loaded.
#[derive(Clone, Copy)]
struct Rcl {
    publish: PublishFn,
    reset_error: Option<ResetErrorFn>,
}

// SAFETY: plain function pointers into a loaded library that stays loaded (rclpy never unloads
// it); rcl's publish is documented thread-safe for one publisher.
unsafe impl Send for Rcl {}

fn loaded(name: &CStr) -> Option<*mut c_void> {
    // SAFETY: RTLD_NOLOAD only looks up a library already in the process; the name is a
    // NUL-terminated string.
    let h = unsafe { libc::dlopen(name.as_ptr(), libc::RTLD_NOW | libc::RTLD_NOLOAD) };
    (!h.is_null()).then_some(h)
}

fn symbol(lib: *mut c_void, name: &CStr) -> Option<*mut c_void> {
    // SAFETY: `lib` is a handle dlopen returned; the name is NUL-terminated.
    let s = unsafe { libc::dlsym(lib, name.as_ptr() as *const c_char) };
    (!s.is_null()).then_some(s)
}

impl Rcl {
    fn find() -> Result<Rcl, String> {
        let rcl = loaded(c"librcl.so")
            .ok_or("librcl.so is not loaded in this process (import rclpy first)")?;
        let publish = symbol(rcl, c"rcl_publish_serialized_message")
            .ok_or("librcl.so has no rcl_publish_serialized_message")?;
        let reset = loaded(c"librcutils.so").and_then(|l| symbol(l, c"rcutils_reset_error"));
        // SAFETY: the symbols are the C functions of these names, whose signatures are rcl's
        // (`rcl_ret_t rcl_publish_serialized_message(const rcl_publisher_t *, const
        // rcl_serialized_message_t *, rmw_publisher_allocation_t *)`, `void
        // rcutils_reset_error(void)`); rcl_ret_t is an int32.
        unsafe {
            Ok(Rcl {
                publish: std::mem::transmute::<*mut c_void, PublishFn>(publish),
                reset_error: reset.map(|r| std::mem::transmute::<*mut c_void, ResetErrorFn>(r)),
            })
        }
    }
}

/// The rcl publisher handle, as an address rclpy gave.
struct Handle(*const c_void);

// SAFETY: rcl's publish may be called from any thread; the publisher outlives the pump (the
// Python side closes the pump before destroying the publisher).
unsafe impl Send for Handle {}

#[derive(Default)]
struct Counts {
    sent: AtomicU64,
    failed: AtomicU64,
}

/// Publishes a nerve topic's messages in ROS 2 from a Rust thread, until closed.
#[pyclass(module = "nerve._nerve")]
pub(crate) struct Ros2Pump {
    stop: Arc<AtomicBool>,
    counts: Arc<Counts>,
    thread: Option<JoinHandle<()>>,
}

#[pymethods]
impl Ros2Pump {
    /// Starts publishing topic `topic`'s messages (a standard type with a ROS 2 form) through
    /// the rcl publisher at address `publisher` (`rclpy` `Publisher.handle.pointer`, of the
    /// topic's ROS 2 type; it must stay alive until `close()`). `echo`: skip what the
    /// `Ros2Writer` sharing it published; `ros_echo`: note what is published, for the bridge's
    /// ROS 2 subscription of the same topic to skip.
    #[new]
    #[pyo3(signature = (topic, publisher, *, domain=None, echo=None, ros_echo=None))]
    fn new(
        topic: &str,
        publisher: usize,
        domain: Option<u32>,
        echo: Option<&Bound<'_, EchoFilter>>,
        ros_echo: Option<&Bound<'_, EchoFilter>>,
    ) -> PyResult<Self> {
        guard("Ros2Pump", || {
            if publisher == 0 {
                return Err(PyTypeError::new_err(
                    "publisher: a null rcl publisher handle",
                ));
            }
            let rcl = Rcl::find().map_err(PyRuntimeError::new_err)?;
            let raw = RawTopic::join(topic, domain.unwrap_or_else(nerve::default_domain))
                .map_err(open_err)?;
            let form = TopicForm::of(&raw).ok_or_else(|| {
                PyTypeError::new_err(format!(
                    "topic '{topic}' carries {}, which has no ROS 2 form",
                    raw.stored_type().name
                ))
            })?;
            let echo = echo.map(|e| e.get().filter());
            if let Some(e) = &echo {
                e.watch(); // before subscribing: see Ros2Reader
            }
            let mut sub = raw.subscriber(0).map_err(open_err)?;
            // A pump blocks in the kernel rather than spinning: it shares the cores with the
            // ROS 2 graph.
            sub.set_spin(Duration::ZERO);
            let ros_echo = ros_echo.map(|e| e.get().filter());
            let (stop, counts) = (
                Arc::new(AtomicBool::new(false)),
                Arc::new(Counts::default()),
            );
            let (s, c, handle, name) = (
                stop.clone(),
                counts.clone(),
                Handle(publisher as *const c_void),
                topic.to_owned(),
            );
            let thread = std::thread::Builder::new()
                .name(format!("nerve-ros2 {topic}"))
                .spawn(move || {
                    let pump = Pump {
                        rcl,
                        handle,
                        form,
                        echo,
                        ros_echo,
                        counts: c,
                        topic: name,
                    };
                    pump.run(&mut sub, &s)
                })
                .map_err(|e| PyRuntimeError::new_err(format!("cannot start the pump: {e}")))?;
            Ok(Ros2Pump {
                stop,
                counts,
                thread: Some(thread),
            })
        })
    }

    /// `(sent, failed)`: messages published, and those that could not be (not convertible,
    /// or refused by rcl).
    fn counts(&self) -> PyResult<(u64, u64)> {
        guard("Ros2Pump.counts", || {
            Ok((
                self.counts.sent.load(Relaxed),
                self.counts.failed.load(Relaxed),
            ))
        })
    }

    /// Stops the pump and waits for its thread (at most ~0.1 s); the publisher may then go.
    fn close(&mut self, py: Python<'_>) -> PyResult<()> {
        guard("Ros2Pump.close", || {
            self.stop.store(true, Relaxed);
            if let Some(t) = self.thread.take() {
                py.detach(|| t.join())
                    .map_err(|_| PyRuntimeError::new_err("the pump's thread panicked"))?;
            }
            Ok(())
        })
    }
}

impl Drop for Ros2Pump {
    fn drop(&mut self) {
        self.stop.store(true, Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

struct Pump {
    rcl: Rcl,
    handle: Handle,
    form: TopicForm,
    echo: Option<Arc<Filter>>,
    ros_echo: Option<Arc<Filter>>,
    counts: Arc<Counts>,
    topic: String,
}

impl Pump {
    fn run(&self, sub: &mut nerve::raw::RawSubscriber, stop: &AtomicBool) {
        // Relaxed: a flag with nothing behind it; seen within one 100 ms wait.
        while !stop.load(Relaxed) {
            let msg = match sub.recv_timeout(Duration::from_millis(100)) {
                Ok(Some(m)) => m,
                Ok(None) => continue,
                Err(e) => {
                    tracing::error!(topic = %self.topic, error = %e, "nerve → ROS 2 stops");
                    return;
                }
            };
            if let Some(f) = self.echo.as_deref().filter(|f| f.has_pending()) {
                let (fixed, payload) = msg.parts();
                if f.is_echo(echo::hash_parts(fixed, payload)) {
                    continue;
                }
            }
            self.publish(&msg);
        }
    }

    fn publish(&self, msg: &RawMessage) {
        let mut cdr = match self.form.encode(msg) {
            Ok(c) => c,
            Err(e) => {
                self.counts.failed.fetch_add(1, Relaxed);
                tracing::warn!(topic = %self.topic, error = %e, "a message not sent to ROS 2");
                return;
            }
        };
        if let Some(f) = self.ros_echo.as_deref().filter(|f| f.is_watched()) {
            f.imported(echo::hash(&cdr));
        }
        let m = SerializedMessage {
            buffer: cdr.as_mut_ptr(),
            buffer_length: cdr.len(),
            buffer_capacity: cdr.capacity(),
            allocator: Allocator([std::ptr::null_mut(); 5]),
        };
        // SAFETY: `handle` is a live rcl publisher (see `Handle`); `m` points at `cdr`, alive
        // for the call; rcl reads `buffer_length` bytes and keeps nothing after returning; no
        // publisher allocation is passed.
        let ret = unsafe { (self.rcl.publish)(self.handle.0, &m, std::ptr::null_mut()) };
        if ret == 0 {
            self.counts.sent.fetch_add(1, Relaxed);
        } else {
            self.counts.failed.fetch_add(1, Relaxed);
            if let Some(reset) = self.rcl.reset_error {
                // SAFETY: rcutils_reset_error takes nothing and clears this thread's error.
                unsafe { reset() };
            }
            tracing::warn!(topic = %self.topic, rcl_ret = ret, "rcl refused a message");
        }
    }
}
