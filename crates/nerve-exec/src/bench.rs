//! Scheduler benchmark (work in progress).
