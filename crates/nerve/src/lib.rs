//! nerve
