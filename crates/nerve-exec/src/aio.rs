//! Async API (work in progress).
