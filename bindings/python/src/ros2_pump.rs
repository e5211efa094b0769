//! The ROS 2 bridge's messages without Python on the way, through rcl's C API on the handles of
//! the publishers and subscriptions rclpy created (their `handle.pointer`):
//! - `Ros2Pump` (nerve → ROS 2): a Rust thread waits on a nerve topic, converts each message to
//!   CDR and publishes it (`rcl_publish_serialized_message`).
//! - `Ros2Intake` (ROS 2 → nerve): rcl calls back on its own thread when a message arrives
//!   (`rcl_subscription_set_on_new_message_callback`); the callback takes it as CDR
//!   (`rcl_take_serialized_message`) and a `Ros2Writer` publishes it into nerve, there.
//!
//! No GIL is taken per message; Python threads doing the same paid a wake-up, the GIL and
//! rclpy's calls (measured in docs/design/ros2-bridge.md).
//!
//! rcl is the library rclpy has already loaded in this process: it is found with
//! `dlopen(RTLD_NOLOAD)`, never loaded here, so nerve itself has no link to ROS 2.

use std::ffi::{c_char, c_void, CStr};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use nerve::echo::{self, EchoFilter as Filter};
use nerve::raw::RawMessage;
use nerve_ros2::TopicForm;
use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;

use crate::errors::guard;
use crate::ros2::{EchoFilter, Ros2Writer, WriteError, WriterCore};

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
type TakeFn =
    unsafe extern "C" fn(*const c_void, *mut SerializedMessage, *mut c_void, *mut c_void) -> i32;
/// `rcl_event_callback_t`: `(user_data, number_of_events)`.
type EventCallback = unsafe extern "C" fn(*const c_void, usize);
type SetCallbackFn =
    unsafe extern "C" fn(*const c_void, Option<EventCallback>, *const c_void) -> i32;
type DefaultAllocatorFn = unsafe extern "C" fn() -> Allocator;
type DeallocateFn = unsafe extern "C" fn(*mut c_void, *mut c_void);

/// `RCL_RET_SUBSCRIPTION_TAKE_FAILED`: nothing (more) to take.
const TAKE_FAILED: i32 = 401;

/// rcl's functions, from the copy rclpy loaded.
#[derive(Clone, Copy)]
struct Rcl {
    publish: PublishFn,
    reset_error: Option<ResetErrorFn>,
    take: Option<TakeFn>,
    set_callback: Option<SetCallbackFn>,
    default_allocator: Option<DefaultAllocatorFn>,
}

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
    /// rcl's functions, looked up once (rclpy never unloads the library).
    fn find() -> Result<Rcl, String> {
        static FOUND: std::sync::OnceLock<Rcl> = std::sync::OnceLock::new();
        if let Some(rcl) = FOUND.get() {
            return Ok(*rcl);
        }
        // Not cached while it fails: rclpy may be imported later.
        let rcl = Self::lookup()?;
        Ok(*FOUND.get_or_init(|| rcl))
    }

    fn lookup() -> Result<Rcl, String> {
        let rcl = loaded(c"librcl.so")
            .ok_or("librcl.so is not loaded in this process (import rclpy first)")?;
        let publish = symbol(rcl, c"rcl_publish_serialized_message")
            .ok_or("librcl.so has no rcl_publish_serialized_message")?;
        let rcutils = loaded(c"librcutils.so");
        let reset = rcutils.and_then(|l| symbol(l, c"rcutils_reset_error"));
        let allocator = rcutils.and_then(|l| symbol(l, c"rcutils_get_default_allocator"));
        let take = symbol(rcl, c"rcl_take_serialized_message");
        let set_callback = symbol(rcl, c"rcl_subscription_set_on_new_message_callback");
        // SAFETY: the symbols are the C functions of these names, whose signatures are rcl's
        // and rcutils' (`rcl_ret_t rcl_publish_serialized_message(const rcl_publisher_t *,
        // const rcl_serialized_message_t *, rmw_publisher_allocation_t *)`, `rcl_ret_t
        // rcl_take_serialized_message(const rcl_subscription_t *, rcl_serialized_message_t *,
        // rmw_message_info_t *, rmw_subscription_allocation_t *)`, `rcl_ret_t
        // rcl_subscription_set_on_new_message_callback(const rcl_subscription_t *,
        // rcl_event_callback_t, const void *)`, `rcutils_allocator_t
        // rcutils_get_default_allocator(void)`, `void rcutils_reset_error(void)`); rcl_ret_t
        // is an int32.
        unsafe {
            Ok(Rcl {
                publish: std::mem::transmute::<*mut c_void, PublishFn>(publish),
                reset_error: reset.map(|r| std::mem::transmute::<*mut c_void, ResetErrorFn>(r)),
                take: take.map(|f| std::mem::transmute::<*mut c_void, TakeFn>(f)),
                set_callback: set_callback
                    .map(|f| std::mem::transmute::<*mut c_void, SetCallbackFn>(f)),
                default_allocator: allocator
                    .map(|f| std::mem::transmute::<*mut c_void, DefaultAllocatorFn>(f)),
            })
        }
    }
}

/// The rcl publisher handle, as an address rclpy gave.
struct Handle(*const c_void);

// SAFETY: rcl's publish may be called from any thread; the publisher outlives the pump (the
// Python side closes the pump before destroying the publisher).
unsafe impl Send for Handle {}

/// Statistics only: `Relaxed` everywhere (nothing is published through them; a reader may
/// see a count a message late).
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
            let (mut sub, form, echo) = crate::ros2::subscribe(topic, domain, 0, echo)?;
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
            // Relaxed: the pump's `run` polls it (see there); the join orders the rest.
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
        // Relaxed: as in `close`.
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

/// What rcl's callback works with; boxed, at a fixed address given to rcl as `user_data`.
struct Intake {
    rcl: Rcl,
    take: TakeFn,
    subscription: *const c_void,
    writer: Arc<WriterCore>,
    ros_echo: Option<Arc<Filter>>,
    /// The serialized message rcl takes into (grown by rcl with its allocator).
    buffer: std::sync::Mutex<SerializedMessage>,
    counts: Counts,
}

// SAFETY: the subscription handle is used only for rcl's take, which may be called from any
// thread; the buffer's pointers are behind the mutex; the rest is Send + Sync.
unsafe impl Send for Intake {}
// SAFETY: as for Send.
unsafe impl Sync for Intake {}

impl Intake {
    /// Takes every message waiting and publishes it into nerve.
    fn drain(&self) {
        let mut m = nerve::sys::lock(&self.buffer);
        loop {
            // SAFETY: a live rcl subscription (the Python side closes the intake before
            // destroying it); `m` is a serialized message whose buffer rcl's allocator owns.
            let ret = unsafe {
                (self.take)(
                    self.subscription,
                    &mut *m,
                    std::ptr::null_mut(),
                    std::ptr::null_mut(),
                )
            };
            if ret != 0 {
                if ret != TAKE_FAILED {
                    self.counts.failed.fetch_add(1, Relaxed);
                    tracing::warn!(topic = %self.writer.topic, rcl_ret = ret, "rcl could not take a message");
                }
                if let Some(reset) = self.rcl.reset_error {
                    // SAFETY: clears this thread's rcl error; takes nothing.
                    unsafe { reset() };
                }
                return;
            }
            let cdr: &[u8] = if m.buffer.is_null() {
                &[]
            } else {
                // SAFETY: rcl filled `buffer_length` bytes of `buffer`.
                unsafe { std::slice::from_raw_parts(m.buffer, m.buffer_length) }
            };
            if let Some(f) = self.ros_echo.as_deref().filter(|f| f.has_pending()) {
                if f.is_echo(echo::hash(cdr)) {
                    continue;
                }
            }
            match self.writer.write(cdr) {
                Ok(()) => self.counts.sent.fetch_add(1, Relaxed),
                Err(WriteError::Encode(e)) => {
                    tracing::warn!(error = %e, "a message from ROS 2 not published");
                    self.counts.failed.fetch_add(1, Relaxed)
                }
                Err(WriteError::Send(e)) => {
                    tracing::warn!(topic = %self.writer.topic, error = %e, "a message from ROS 2 not published");
                    self.counts.failed.fetch_add(1, Relaxed)
                }
            };
        }
    }
}

impl Drop for Intake {
    fn drop(&mut self) {
        let m = self.buffer.get_mut().unwrap_or_else(|e| e.into_inner());
        if !m.buffer.is_null() {
            // SAFETY: the buffer was allocated by rcl with this allocator (`deallocate`,
            // `state`), and nothing uses it any more.
            unsafe {
                let dealloc = std::mem::transmute::<*mut c_void, DeallocateFn>(m.allocator.0[1]);
                dealloc(m.buffer.cast(), m.allocator.0[4]);
            }
        }
    }
}

/// rcl's "new message" callback, on its own thread: take and publish. A panic stops here.
///
/// # Safety
///
/// `user_data` must be the address of a live [`Intake`] (rcl passes back what
/// `Ros2Intake::start` registered, until `stop` unregisters it).
unsafe extern "C" fn on_new_message(user_data: *const c_void, _events: usize) {
    // SAFETY: `user_data` is the boxed Intake registered with this callback; it is
    // unregistered before the box is dropped (Ros2Intake::stop).
    let intake = unsafe { &*(user_data as *const Intake) };
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| intake.drain()));
}

/// ROS 2 → nerve without Python: rcl calls back when the subscription has a message, and the
/// message is taken and published into nerve on rcl's thread.
#[pyclass(module = "nerve._nerve")]
pub(crate) struct Ros2Intake {
    intake: Option<Box<Intake>>,
}

impl Ros2Intake {
    fn start(
        writer: Arc<WriterCore>,
        subscription: usize,
        ros_echo: Option<Arc<Filter>>,
    ) -> PyResult<Self> {
        if subscription == 0 {
            return Err(PyTypeError::new_err(
                "subscription: a null rcl subscription handle",
            ));
        }
        let rcl = Rcl::find().map_err(PyRuntimeError::new_err)?;
        let (Some(take), Some(set), Some(alloc)) =
            (rcl.take, rcl.set_callback, rcl.default_allocator)
        else {
            return Err(PyRuntimeError::new_err(
                "this rcl has no rcl_take_serialized_message, \
                 rcl_subscription_set_on_new_message_callback or rcutils_get_default_allocator",
            ));
        };
        let intake = Box::new(Intake {
            rcl,
            take,
            subscription: subscription as *const c_void,
            writer,
            ros_echo,
            buffer: std::sync::Mutex::new(SerializedMessage {
                buffer: std::ptr::null_mut(),
                buffer_length: 0,
                buffer_capacity: 0,
                // SAFETY: rcutils_get_default_allocator takes nothing and returns a value.
                allocator: unsafe { alloc() },
            }),
            counts: Counts::default(),
        });
        let user: *const Intake = &*intake;
        // SAFETY: a live rcl subscription; `user` stays valid until the callback is removed
        // (`stop`); rcl calls back with it (at once if messages already wait).
        let ret = unsafe { set(intake.subscription, Some(on_new_message), user.cast()) };
        if ret != 0 {
            if let Some(reset) = rcl.reset_error {
                // SAFETY: clears this thread's rcl error.
                unsafe { reset() };
            }
            return Err(PyRuntimeError::new_err(format!(
                "rcl refused the subscription's callback (rcl_ret_t {ret})"
            )));
        }
        Ok(Ros2Intake {
            intake: Some(intake),
        })
    }

    fn stop(&mut self) {
        if let Some(intake) = self.intake.take() {
            if let Some(set) = intake.rcl.set_callback {
                // SAFETY: removes the callback; rmw holds its listener's lock while calling
                // back, so once this returns no call is running and none will start.
                unsafe { set(intake.subscription, None, std::ptr::null()) };
            }
            drop(intake);
        }
    }
}

#[pymethods]
impl Ros2Intake {
    /// Publishes through `writer` what the rclpy subscription at address `subscription` (its
    /// `handle.pointer`; a subscription no executor spins) receives, taken on rcl's own
    /// thread: no Python per message. `ros_echo`: skip what the bridge itself published in
    /// ROS 2. Close the intake before destroying the subscription.
    #[new]
    #[pyo3(signature = (writer, subscription, *, ros_echo=None))]
    fn new(
        writer: &Bound<'_, Ros2Writer>,
        subscription: usize,
        ros_echo: Option<&Bound<'_, EchoFilter>>,
    ) -> PyResult<Self> {
        guard("Ros2Intake", || {
            Self::start(
                writer.get().0.clone(),
                subscription,
                ros_echo.map(|e| e.get().filter()),
            )
        })
    }

    /// `(published, failed)`: messages published into nerve, and those that could not be.
    fn counts(&self) -> PyResult<(u64, u64)> {
        guard("Ros2Intake.counts", || {
            Ok(self.intake.as_ref().map_or((0, 0), |i| {
                (i.counts.sent.load(Relaxed), i.counts.failed.load(Relaxed))
            }))
        })
    }

    /// Stops taking messages (the subscription may then be destroyed).
    fn close(&mut self, py: Python<'_>) -> PyResult<()> {
        guard("Ros2Intake.close", || {
            py.detach(|| self.stop());
            Ok(())
        })
    }
}

impl Drop for Ros2Intake {
    fn drop(&mut self) {
        self.stop();
    }
}
