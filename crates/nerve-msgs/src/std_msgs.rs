//! The standard message set. Sizes are part of the contract and checked by tests.

fixed_message! {
    /// Velocity command for a planar base: 16 bytes.
    pub struct CmdVel ("nerve/CmdVel") {
        /// Publisher's timestamp, nanoseconds.
        pub stamp_ns: u64,
        /// Forward velocity, m/s.
        pub linear: f32,
        /// Yaw rate, rad/s.
        pub angular: f32,
    }
}
