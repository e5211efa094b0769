/* nerve's standard messages for C: every struct laid out as the Rust type, its size,
 * alignment and offsets checked by the compiler, and nerve_msgs_<Type>_type() giving
 * the nerve_type every language shares. Generated from nerve's schemas by
 * bindings/c/tests/msgs_header.rs: do not edit. */
#ifndef NERVE_MSGS_H
#define NERVE_MSGS_H

#include "../nerve.h"

#ifdef __cplusplus
#define NERVE_MSGS_ASSERT(e, m) static_assert(e, m)
#else
#define NERVE_MSGS_ASSERT(e, m) _Static_assert(e, m)
#endif

/* A point in time: 8 bytes. Nanoseconds, see the [module docs](self) for the epoch.
 * nerve/Time (8 bytes), ROS 2 builtin_interfaces/msg/Time */
typedef struct nerve_msgs_Time {
    uint64_t ns; /* ns */
} nerve_msgs_Time;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_Time) == 8, "Time: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_Time) == 8, "Time: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Time, ns) == 0, "Time.ns: offset");
/* Time's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_Time_type(nerve_type *out) {
    return nerve_standard_type_checked("Time", UINT64_C(0xf6c6a65b26becb42), out);
}

/* Common header of stamped messages: 48 bytes.
 * `frame_id` is a fixed `[u8; 32]`, NUL-padded UTF-8 of at most [`FRAME_ID_MAX`] (31)
 * bytes; use [`Header::frame_id`] / [`Header::set_frame_id`] rather than the raw bytes.
 * nerve/Header (48 bytes), ROS 2 std_msgs/msg/Header */
typedef struct nerve_msgs_Header {
    uint64_t stamp_ns; /* ns */
    uint64_t seq;
    char frame_id[32];
} nerve_msgs_Header;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_Header) == 48, "Header: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_Header) == 8, "Header: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Header, stamp_ns) == 0, "Header.stamp_ns: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Header, seq) == 8, "Header.seq: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Header, frame_id) == 16, "Header.frame_id: offset");
/* Header's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_Header_type(nerve_type *out) {
    return nerve_standard_type_checked("Header", UINT64_C(0x30db420c383333d2), out);
}

/* Velocity command for a planar base: 16 bytes.
 * nerve/CmdVel (16 bytes), ROS 2 geometry_msgs/msg/Twist */
typedef struct nerve_msgs_CmdVel {
    uint64_t stamp_ns; /* ns */
    float linear; /* m/s */
    float angular; /* rad/s */
} nerve_msgs_CmdVel;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_CmdVel) == 16, "CmdVel: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_CmdVel) == 8, "CmdVel: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_CmdVel, stamp_ns) == 0, "CmdVel.stamp_ns: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_CmdVel, linear) == 8, "CmdVel.linear: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_CmdVel, angular) == 12, "CmdVel.angular: offset");
/* CmdVel's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_CmdVel_type(nerve_type *out) {
    return nerve_standard_type_checked("CmdVel", UINT64_C(0xbc5e3eeb335f7fb8), out);
}

/* Simulation time, published by a simulator on the clock topic: 16 bytes.
 * nerve/Clock (16 bytes), ROS 2 rosgraph_msgs/msg/Clock */
typedef struct nerve_msgs_Clock {
    uint64_t sim_ns; /* ns */
    double real_time_factor; /* 1 */
} nerve_msgs_Clock;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_Clock) == 16, "Clock: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_Clock) == 8, "Clock: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Clock, sim_ns) == 0, "Clock.sim_ns: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Clock, real_time_factor) == 8, "Clock.real_time_factor: offset");
/* Clock's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_Clock_type(nerve_type *out) {
    return nerve_standard_type_checked("Clock", UINT64_C(0xd0080b8de2c54839), out);
}

/* Liveness beacon of a node: 32 bytes.
 * nerve/Heartbeat (32 bytes) */
typedef struct nerve_msgs_Heartbeat {
    uint64_t node_id_hash;
    uint64_t seq;
    uint64_t stamp_ns; /* ns */
    uint32_t pid;
    uint32_t state;
} nerve_msgs_Heartbeat;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_Heartbeat) == 32, "Heartbeat: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_Heartbeat) == 8, "Heartbeat: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Heartbeat, node_id_hash) == 0, "Heartbeat.node_id_hash: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Heartbeat, seq) == 8, "Heartbeat.seq: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Heartbeat, stamp_ns) == 16, "Heartbeat.stamp_ns: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Heartbeat, pid) == 24, "Heartbeat.pid: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Heartbeat, state) == 28, "Heartbeat.state: offset");
#define NERVE_MSGS_HEARTBEAT_STATE_STARTING (1)
#define NERVE_MSGS_HEARTBEAT_STATE_RUNNING (2)
#define NERVE_MSGS_HEARTBEAT_STATE_DEGRADED (3)
#define NERVE_MSGS_HEARTBEAT_STATE_STOPPING (4)
#define NERVE_MSGS_HEARTBEAT_STATE_ERROR (5)
/* Heartbeat's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_Heartbeat_type(nerve_type *out) {
    return nerve_standard_type_checked("Heartbeat", UINT64_C(0x5978bd7a7eb2019b), out);
}

/* A 3D vector (a position in metres, a velocity in m/s, ...): 24 bytes.
 * nerve/Vector3 (24 bytes), ROS 2 geometry_msgs/msg/Vector3 */
typedef struct nerve_msgs_Vector3 {
    double x;
    double y;
    double z;
} nerve_msgs_Vector3;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_Vector3) == 24, "Vector3: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_Vector3) == 8, "Vector3: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Vector3, x) == 0, "Vector3.x: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Vector3, y) == 8, "Vector3.y: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Vector3, z) == 16, "Vector3.z: offset");
/* Vector3's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_Vector3_type(nerve_type *out) {
    return nerve_standard_type_checked("Vector3", UINT64_C(0xe161e2c684a2114b), out);
}

/* A rotation as a unit quaternion (x, y, z, w): 32 bytes. `Default` is the identity
 * (w = 1), not all zeroes.
 * nerve/Quaternion (32 bytes), ROS 2 geometry_msgs/msg/Quaternion */
typedef struct nerve_msgs_Quaternion {
    double x;
    double y;
    double z;
    double w;
} nerve_msgs_Quaternion;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_Quaternion) == 32, "Quaternion: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_Quaternion) == 8, "Quaternion: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Quaternion, x) == 0, "Quaternion.x: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Quaternion, y) == 8, "Quaternion.y: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Quaternion, z) == 16, "Quaternion.z: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Quaternion, w) == 24, "Quaternion.w: offset");
/* Quaternion's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_Quaternion_type(nerve_type *out) {
    return nerve_standard_type_checked("Quaternion", UINT64_C(0x41f75b88ac35f0a2), out);
}

/* Linear and angular velocity: 48 bytes.
 * nerve/Twist (48 bytes), ROS 2 geometry_msgs/msg/Twist */
typedef struct nerve_msgs_Twist {
    nerve_msgs_Vector3 linear; /* m/s */
    nerve_msgs_Vector3 angular; /* rad/s */
} nerve_msgs_Twist;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_Twist) == 48, "Twist: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_Twist) == 8, "Twist: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Twist, linear) == 0, "Twist.linear: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Twist, angular) == 24, "Twist.angular: offset");
/* Twist's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_Twist_type(nerve_type *out) {
    return nerve_standard_type_checked("Twist", UINT64_C(0xe8f8f1d056edca19), out);
}

/* A pose in the plane: 24 bytes.
 * nerve/Pose2D (24 bytes), ROS 2 geometry_msgs/msg/Pose2D */
typedef struct nerve_msgs_Pose2D {
    double x; /* m */
    double y; /* m */
    double theta; /* rad */
} nerve_msgs_Pose2D;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_Pose2D) == 24, "Pose2D: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_Pose2D) == 8, "Pose2D: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Pose2D, x) == 0, "Pose2D.x: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Pose2D, y) == 8, "Pose2D.y: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Pose2D, theta) == 16, "Pose2D.theta: offset");
/* Pose2D's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_Pose2D_type(nerve_type *out) {
    return nerve_standard_type_checked("Pose2D", UINT64_C(0x0117c584a05ab792), out);
}

/* A position and orientation: 56 bytes. `Default` has the identity orientation.
 * nerve/Pose (56 bytes), ROS 2 geometry_msgs/msg/Pose */
typedef struct nerve_msgs_Pose {
    nerve_msgs_Vector3 position; /* m */
    nerve_msgs_Quaternion orientation;
} nerve_msgs_Pose;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_Pose) == 56, "Pose: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_Pose) == 8, "Pose: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Pose, position) == 0, "Pose.position: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Pose, orientation) == 24, "Pose.orientation: offset");
/* Pose's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_Pose_type(nerve_type *out) {
    return nerve_standard_type_checked("Pose", UINT64_C(0x63be714f8fe8e7a3), out);
}

/* A rigid transform (child frame expressed in the parent frame): 56 bytes. `Default` is
 * the identity transform.
 * nerve/Transform (56 bytes), ROS 2 geometry_msgs/msg/Transform */
typedef struct nerve_msgs_Transform {
    nerve_msgs_Vector3 translation; /* m */
    nerve_msgs_Quaternion rotation;
} nerve_msgs_Transform;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_Transform) == 56, "Transform: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_Transform) == 8, "Transform: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Transform, translation) == 0, "Transform.translation: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Transform, rotation) == 24, "Transform.rotation: offset");
/* Transform's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_Transform_type(nerve_type *out) {
    return nerve_standard_type_checked("Transform", UINT64_C(0x238d9bdfef1e52a8), out);
}

/* A transform from `header.frame_id` (parent) to `child_frame_id`, at `header.stamp_ns`:
 * 136 bytes. `Default` is the identity transform with empty frame names.
 * nerve/TransformStamped (136 bytes), ROS 2 geometry_msgs/msg/TransformStamped */
typedef struct nerve_msgs_TransformStamped {
    nerve_msgs_Header header;
    char child_frame_id[32];
    nerve_msgs_Transform transform;
} nerve_msgs_TransformStamped;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_TransformStamped) == 136, "TransformStamped: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_TransformStamped) == 8, "TransformStamped: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_TransformStamped, header) == 0, "TransformStamped.header: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_TransformStamped, child_frame_id) == 48, "TransformStamped.child_frame_id: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_TransformStamped, transform) == 80, "TransformStamped.transform: offset");
/* TransformStamped's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_TransformStamped_type(nerve_type *out) {
    return nerve_standard_type_checked("TransformStamped", UINT64_C(0xa77cee162eab21a1), out);
}

/* Inertial measurement: 344 bytes.
 * Covariances are row-major 3×3 over (x, y, z), in the squared units of the value. Set
 * element 0 of a covariance to -1 when the sensor does not provide that quantity (then
 * ignore the value), all zeroes when the covariance is unknown. `Default` has the
 * identity orientation.
 * nerve/Imu (344 bytes), ROS 2 sensor_msgs/msg/Imu */
typedef struct nerve_msgs_Imu {
    nerve_msgs_Header header;
    nerve_msgs_Quaternion orientation;
    double orientation_covariance[9]; /* rad² */
    nerve_msgs_Vector3 angular_velocity; /* rad/s */
    double angular_velocity_covariance[9]; /* (rad/s)² */
    nerve_msgs_Vector3 linear_acceleration; /* m/s² */
    double linear_acceleration_covariance[9]; /* (m/s²)² */
} nerve_msgs_Imu;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_Imu) == 344, "Imu: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_Imu) == 8, "Imu: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Imu, header) == 0, "Imu.header: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Imu, orientation) == 48, "Imu.orientation: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Imu, orientation_covariance) == 80, "Imu.orientation_covariance: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Imu, angular_velocity) == 152, "Imu.angular_velocity: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Imu, angular_velocity_covariance) == 176, "Imu.angular_velocity_covariance: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Imu, linear_acceleration) == 248, "Imu.linear_acceleration: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Imu, linear_acceleration_covariance) == 272, "Imu.linear_acceleration_covariance: offset");
/* Imu's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_Imu_type(nerve_type *out) {
    return nerve_standard_type_checked("Imu", UINT64_C(0x109a0695d316c9d0), out);
}

/* State of a battery or power supply: 104 bytes. Unknown `f32` quantities are NaN.
 * nerve/BatteryState (104 bytes), ROS 2 sensor_msgs/msg/BatteryState */
typedef struct nerve_msgs_BatteryState {
    nerve_msgs_Header header;
    float voltage; /* V */
    float current; /* A */
    float charge; /* Ah */
    float capacity; /* Ah */
    float design_capacity; /* Ah */
    float percentage; /* 1 */
    float temperature; /* °C */
    float cell_voltage_min; /* V */
    float cell_voltage_max; /* V */
    float time_to_empty_s; /* s */
    float time_to_full_s; /* s */
    uint32_t cell_count;
    uint8_t power_supply_status;
    uint8_t power_supply_health;
    uint8_t power_supply_technology;
    uint8_t present;
    uint32_t _pad;
} nerve_msgs_BatteryState;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_BatteryState) == 104, "BatteryState: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_BatteryState) == 8, "BatteryState: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_BatteryState, header) == 0, "BatteryState.header: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_BatteryState, voltage) == 48, "BatteryState.voltage: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_BatteryState, current) == 52, "BatteryState.current: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_BatteryState, charge) == 56, "BatteryState.charge: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_BatteryState, capacity) == 60, "BatteryState.capacity: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_BatteryState, design_capacity) == 64, "BatteryState.design_capacity: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_BatteryState, percentage) == 68, "BatteryState.percentage: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_BatteryState, temperature) == 72, "BatteryState.temperature: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_BatteryState, cell_voltage_min) == 76, "BatteryState.cell_voltage_min: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_BatteryState, cell_voltage_max) == 80, "BatteryState.cell_voltage_max: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_BatteryState, time_to_empty_s) == 84, "BatteryState.time_to_empty_s: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_BatteryState, time_to_full_s) == 88, "BatteryState.time_to_full_s: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_BatteryState, cell_count) == 92, "BatteryState.cell_count: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_BatteryState, power_supply_status) == 96, "BatteryState.power_supply_status: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_BatteryState, power_supply_health) == 97, "BatteryState.power_supply_health: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_BatteryState, power_supply_technology) == 98, "BatteryState.power_supply_technology: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_BatteryState, present) == 99, "BatteryState.present: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_BatteryState, _pad) == 100, "BatteryState._pad: offset");
/* BatteryState's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_BatteryState_type(nerve_type *out) {
    return nerve_standard_type_checked("BatteryState", UINT64_C(0x57317f0c0da3c793), out);
}

/* Calibration of a pinhole camera: 368 bytes. Matrices are row-major. All-zero `k`
 * means "uncalibrated".
 * nerve/CameraInfo (368 bytes), ROS 2 sensor_msgs/msg/CameraInfo */
typedef struct nerve_msgs_CameraInfo {
    nerve_msgs_Header header;
    uint32_t width; /* px */
    uint32_t height; /* px */
    uint32_t distortion_model;
    uint32_t d_len;
    double k[9]; /* px */
    double d[8];
    double r[9];
    double p[12]; /* px */
} nerve_msgs_CameraInfo;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_CameraInfo) == 368, "CameraInfo: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_CameraInfo) == 8, "CameraInfo: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_CameraInfo, header) == 0, "CameraInfo.header: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_CameraInfo, width) == 48, "CameraInfo.width: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_CameraInfo, height) == 52, "CameraInfo.height: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_CameraInfo, distortion_model) == 56, "CameraInfo.distortion_model: offset");
#define NERVE_MSGS_CAMERAINFO_DISTORTION_MODEL_NONE (0)
#define NERVE_MSGS_CAMERAINFO_DISTORTION_MODEL_PLUMB_BOB (1)
#define NERVE_MSGS_CAMERAINFO_DISTORTION_MODEL_RATIONAL_POLYNOMIAL (2)
#define NERVE_MSGS_CAMERAINFO_DISTORTION_MODEL_EQUIDISTANT (3)
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_CameraInfo, d_len) == 60, "CameraInfo.d_len: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_CameraInfo, k) == 64, "CameraInfo.k: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_CameraInfo, d) == 136, "CameraInfo.d: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_CameraInfo, r) == 200, "CameraInfo.r: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_CameraInfo, p) == 272, "CameraInfo.p: offset");
/* CameraInfo's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_CameraInfo_type(nerve_type *out) {
    return nerve_standard_type_checked("CameraInfo", UINT64_C(0x9de9046b6934548a), out);
}

/* Estimated pose and velocity of a body: 760 bytes.
 * The pose is in `header.frame_id` (e.g. `odom`); the twist is in `child_frame_id` (the
 * body, e.g. `base_link`). Covariances are row-major 6×6 over (x, y, z, rot x, rot y,
 * rot z), in m², rad² and their products (pose) and (m/s)², (rad/s)² (twist). `Default`
 * has the identity orientation.
 * nerve/Odometry (760 bytes), ROS 2 nav_msgs/msg/Odometry */
typedef struct nerve_msgs_Odometry {
    nerve_msgs_Header header;
    char child_frame_id[32];
    nerve_msgs_Pose pose;
    double pose_covariance[36]; /* m², m·rad, rad² */
    nerve_msgs_Twist twist;
    double twist_covariance[36]; /* (m/s)², m·rad/s², (rad/s)² */
} nerve_msgs_Odometry;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_Odometry) == 760, "Odometry: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_Odometry) == 8, "Odometry: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Odometry, header) == 0, "Odometry.header: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Odometry, child_frame_id) == 48, "Odometry.child_frame_id: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Odometry, pose) == 80, "Odometry.pose: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Odometry, pose_covariance) == 136, "Odometry.pose_covariance: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Odometry, twist) == 424, "Odometry.twist: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Odometry, twist_covariance) == 472, "Odometry.twist_covariance: offset");
/* Odometry's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_Odometry_type(nerve_type *out) {
    return nerve_standard_type_checked("Odometry", UINT64_C(0x4b7c1c6e7946360f), out);
}

/* A boolean: 1 byte. Stored as a `u8` (0 = false, 1 = true) because `bool` is not Pod: a
 * byte other than 0 or 1 written by another process would be undefined behaviour to read as
 * `bool`. [`Bool::get`] reads any non-zero byte as true.
 * nerve/Bool (1 bytes), ROS 2 std_msgs/msg/Bool */
typedef struct nerve_msgs_Bool {
    uint8_t data;
} nerve_msgs_Bool;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_Bool) == 1, "Bool: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_Bool) == 1, "Bool: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Bool, data) == 0, "Bool.data: offset");
/* Bool's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_Bool_type(nerve_type *out) {
    return nerve_standard_type_checked("Bool", UINT64_C(0x8bbf13f019bf3979), out);
}

/* A single `i8`: 1 byte.
 * nerve/Int8 (1 bytes), ROS 2 std_msgs/msg/Int8 */
typedef struct nerve_msgs_Int8 {
    int8_t data;
} nerve_msgs_Int8;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_Int8) == 1, "Int8: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_Int8) == 1, "Int8: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Int8, data) == 0, "Int8.data: offset");
/* Int8's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_Int8_type(nerve_type *out) {
    return nerve_standard_type_checked("Int8", UINT64_C(0x720108a2374671d0), out);
}

/* A single `i16`: 2 bytes.
 * nerve/Int16 (2 bytes), ROS 2 std_msgs/msg/Int16 */
typedef struct nerve_msgs_Int16 {
    int16_t data;
} nerve_msgs_Int16;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_Int16) == 2, "Int16: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_Int16) == 2, "Int16: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Int16, data) == 0, "Int16.data: offset");
/* Int16's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_Int16_type(nerve_type *out) {
    return nerve_standard_type_checked("Int16", UINT64_C(0xce6aa91c19bc905b), out);
}

/* A single `i32`: 4 bytes.
 * nerve/Int32 (4 bytes), ROS 2 std_msgs/msg/Int32 */
typedef struct nerve_msgs_Int32 {
    int32_t data;
} nerve_msgs_Int32;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_Int32) == 4, "Int32: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_Int32) == 4, "Int32: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Int32, data) == 0, "Int32.data: offset");
/* Int32's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_Int32_type(nerve_type *out) {
    return nerve_standard_type_checked("Int32", UINT64_C(0x3b82c26ff0241858), out);
}

/* A single `i64`: 8 bytes.
 * nerve/Int64 (8 bytes), ROS 2 std_msgs/msg/Int64 */
typedef struct nerve_msgs_Int64 {
    int64_t data;
} nerve_msgs_Int64;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_Int64) == 8, "Int64: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_Int64) == 8, "Int64: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Int64, data) == 0, "Int64.data: offset");
/* Int64's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_Int64_type(nerve_type *out) {
    return nerve_standard_type_checked("Int64", UINT64_C(0xac4cafc16d814e5b), out);
}

/* A single `u8`: 1 byte.
 * nerve/UInt8 (1 bytes), ROS 2 std_msgs/msg/UInt8 */
typedef struct nerve_msgs_UInt8 {
    uint8_t data;
} nerve_msgs_UInt8;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_UInt8) == 1, "UInt8: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_UInt8) == 1, "UInt8: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_UInt8, data) == 0, "UInt8.data: offset");
/* UInt8's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_UInt8_type(nerve_type *out) {
    return nerve_standard_type_checked("UInt8", UINT64_C(0x04cb67db33d7b2b2), out);
}

/* A single `u16`: 2 bytes.
 * nerve/UInt16 (2 bytes), ROS 2 std_msgs/msg/UInt16 */
typedef struct nerve_msgs_UInt16 {
    uint16_t data;
} nerve_msgs_UInt16;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_UInt16) == 2, "UInt16: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_UInt16) == 2, "UInt16: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_UInt16, data) == 0, "UInt16.data: offset");
/* UInt16's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_UInt16_type(nerve_type *out) {
    return nerve_standard_type_checked("UInt16", UINT64_C(0xf5d19ddd6d35d230), out);
}

/* A single `u32`: 4 bytes.
 * nerve/UInt32 (4 bytes), ROS 2 std_msgs/msg/UInt32 */
typedef struct nerve_msgs_UInt32 {
    uint32_t data;
} nerve_msgs_UInt32;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_UInt32) == 4, "UInt32: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_UInt32) == 4, "UInt32: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_UInt32, data) == 0, "UInt32.data: offset");
/* UInt32's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_UInt32_type(nerve_type *out) {
    return nerve_standard_type_checked("UInt32", UINT64_C(0x98b240e6d1c7c0c3), out);
}

/* A single `u64`: 8 bytes.
 * nerve/UInt64 (8 bytes), ROS 2 std_msgs/msg/UInt64 */
typedef struct nerve_msgs_UInt64 {
    uint64_t data;
} nerve_msgs_UInt64;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_UInt64) == 8, "UInt64: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_UInt64) == 8, "UInt64: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_UInt64, data) == 0, "UInt64.data: offset");
/* UInt64's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_UInt64_type(nerve_type *out) {
    return nerve_standard_type_checked("UInt64", UINT64_C(0xf6bb5e7e570687b7), out);
}

/* A single `f32`: 4 bytes.
 * nerve/Float32 (4 bytes), ROS 2 std_msgs/msg/Float32 */
typedef struct nerve_msgs_Float32 {
    float data;
} nerve_msgs_Float32;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_Float32) == 4, "Float32: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_Float32) == 4, "Float32: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Float32, data) == 0, "Float32.data: offset");
/* Float32's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_Float32_type(nerve_type *out) {
    return nerve_standard_type_checked("Float32", UINT64_C(0x02fd9043371136ac), out);
}

/* A single `f64`: 8 bytes.
 * nerve/Float64 (8 bytes), ROS 2 std_msgs/msg/Float64 */
typedef struct nerve_msgs_Float64 {
    double data;
} nerve_msgs_Float64;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_Float64) == 8, "Float64: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_Float64) == 8, "Float64: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Float64, data) == 0, "Float64.data: offset");
/* Float64's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_Float64_type(nerve_type *out) {
    return nerve_standard_type_checked("Float64", UINT64_C(0xd852358621466581), out);
}

/* A colour, red, green, blue and alpha from 0.0 to 1.0 (alpha 1.0 = opaque): 16 bytes.
 * nerve/ColorRGBA (16 bytes), ROS 2 std_msgs/msg/ColorRGBA */
typedef struct nerve_msgs_ColorRGBA {
    float r;
    float g;
    float b;
    float a;
} nerve_msgs_ColorRGBA;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_ColorRGBA) == 16, "ColorRGBA: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_ColorRGBA) == 4, "ColorRGBA: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_ColorRGBA, r) == 0, "ColorRGBA.r: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_ColorRGBA, g) == 4, "ColorRGBA.g: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_ColorRGBA, b) == 8, "ColorRGBA.b: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_ColorRGBA, a) == 12, "ColorRGBA.a: offset");
/* ColorRGBA's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_ColorRGBA_type(nerve_type *out) {
    return nerve_standard_type_checked("ColorRGBA", UINT64_C(0x33938527a99b6fff), out);
}

/* A position in metres: 24 bytes.
 * nerve/Point (24 bytes), ROS 2 geometry_msgs/msg/Point */
typedef struct nerve_msgs_Point {
    double x; /* m */
    double y; /* m */
    double z; /* m */
} nerve_msgs_Point;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_Point) == 24, "Point: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_Point) == 8, "Point: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Point, x) == 0, "Point.x: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Point, y) == 8, "Point.y: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Point, z) == 16, "Point.z: offset");
/* Point's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_Point_type(nerve_type *out) {
    return nerve_standard_type_checked("Point", UINT64_C(0x91b2f5a3702af63f), out);
}

/* A position in metres, single precision (the vertices of a [`Polygon`]): 12 bytes.
 * nerve/Point32 (12 bytes), ROS 2 geometry_msgs/msg/Point32 */
typedef struct nerve_msgs_Point32 {
    float x; /* m */
    float y; /* m */
    float z; /* m */
} nerve_msgs_Point32;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_Point32) == 12, "Point32: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_Point32) == 4, "Point32: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Point32, x) == 0, "Point32.x: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Point32, y) == 4, "Point32.y: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Point32, z) == 8, "Point32.z: offset");
/* Point32's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_Point32_type(nerve_type *out) {
    return nerve_standard_type_checked("Point32", UINT64_C(0xe7254524761a76f8), out);
}

/* A [`Point`] with a stamp and a frame: 72 bytes.
 * nerve/PointStamped (72 bytes), ROS 2 geometry_msgs/msg/PointStamped */
typedef struct nerve_msgs_PointStamped {
    nerve_msgs_Header header;
    nerve_msgs_Point point; /* m */
} nerve_msgs_PointStamped;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_PointStamped) == 72, "PointStamped: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_PointStamped) == 8, "PointStamped: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_PointStamped, header) == 0, "PointStamped.header: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_PointStamped, point) == 48, "PointStamped.point: offset");
/* PointStamped's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_PointStamped_type(nerve_type *out) {
    return nerve_standard_type_checked("PointStamped", UINT64_C(0xd54ad67691dc42ca), out);
}

/* A [`Vector3`] with a stamp and a frame: 72 bytes.
 * nerve/Vector3Stamped (72 bytes), ROS 2 geometry_msgs/msg/Vector3Stamped */
typedef struct nerve_msgs_Vector3Stamped {
    nerve_msgs_Header header;
    nerve_msgs_Vector3 vector;
} nerve_msgs_Vector3Stamped;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_Vector3Stamped) == 72, "Vector3Stamped: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_Vector3Stamped) == 8, "Vector3Stamped: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Vector3Stamped, header) == 0, "Vector3Stamped.header: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Vector3Stamped, vector) == 48, "Vector3Stamped.vector: offset");
/* Vector3Stamped's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_Vector3Stamped_type(nerve_type *out) {
    return nerve_standard_type_checked("Vector3Stamped", UINT64_C(0x0784b932244a9fce), out);
}

/* A [`Quaternion`] with a stamp and a frame: 80 bytes. `Default` is the identity.
 * nerve/QuaternionStamped (80 bytes), ROS 2 geometry_msgs/msg/QuaternionStamped */
typedef struct nerve_msgs_QuaternionStamped {
    nerve_msgs_Header header;
    nerve_msgs_Quaternion quaternion;
} nerve_msgs_QuaternionStamped;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_QuaternionStamped) == 80, "QuaternionStamped: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_QuaternionStamped) == 8, "QuaternionStamped: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_QuaternionStamped, header) == 0, "QuaternionStamped.header: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_QuaternionStamped, quaternion) == 48, "QuaternionStamped.quaternion: offset");
/* QuaternionStamped's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_QuaternionStamped_type(nerve_type *out) {
    return nerve_standard_type_checked("QuaternionStamped", UINT64_C(0xc13cd07aa5b5305e), out);
}

/* A [`Pose`] with a stamp and a frame: 104 bytes. `Default` has the identity orientation.
 * nerve/PoseStamped (104 bytes), ROS 2 geometry_msgs/msg/PoseStamped */
typedef struct nerve_msgs_PoseStamped {
    nerve_msgs_Header header;
    nerve_msgs_Pose pose;
} nerve_msgs_PoseStamped;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_PoseStamped) == 104, "PoseStamped: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_PoseStamped) == 8, "PoseStamped: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_PoseStamped, header) == 0, "PoseStamped.header: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_PoseStamped, pose) == 48, "PoseStamped.pose: offset");
/* PoseStamped's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_PoseStamped_type(nerve_type *out) {
    return nerve_standard_type_checked("PoseStamped", UINT64_C(0x3e0ffb3f414e3543), out);
}

/* A [`Pose`] with its uncertainty: 344 bytes. `Default` has the identity orientation and a
 * zero covariance.
 * The covariance is row-major 6×6 over (x, y, z, rotation about x, about y, about z), the
 * rotations being a fixed-axis (roll, pitch, yaw) perturbation as in ROS: units m², m·rad
 * and rad² by block.
 * nerve/PoseWithCovariance (344 bytes), ROS 2 geometry_msgs/msg/PoseWithCovariance */
typedef struct nerve_msgs_PoseWithCovariance {
    nerve_msgs_Pose pose;
    double covariance[36]; /* m², m·rad, rad² */
} nerve_msgs_PoseWithCovariance;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_PoseWithCovariance) == 344, "PoseWithCovariance: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_PoseWithCovariance) == 8, "PoseWithCovariance: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_PoseWithCovariance, pose) == 0, "PoseWithCovariance.pose: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_PoseWithCovariance, covariance) == 56, "PoseWithCovariance.covariance: offset");
/* PoseWithCovariance's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_PoseWithCovariance_type(nerve_type *out) {
    return nerve_standard_type_checked("PoseWithCovariance", UINT64_C(0x9ded5d55e21f3b40), out);
}

/* A [`PoseWithCovariance`] with a stamp and a frame: 392 bytes.
 * nerve/PoseWithCovarianceStamped (392 bytes), ROS 2 geometry_msgs/msg/PoseWithCovarianceStamped */
typedef struct nerve_msgs_PoseWithCovarianceStamped {
    nerve_msgs_Header header;
    nerve_msgs_PoseWithCovariance pose;
} nerve_msgs_PoseWithCovarianceStamped;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_PoseWithCovarianceStamped) == 392, "PoseWithCovarianceStamped: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_PoseWithCovarianceStamped) == 8, "PoseWithCovarianceStamped: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_PoseWithCovarianceStamped, header) == 0, "PoseWithCovarianceStamped.header: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_PoseWithCovarianceStamped, pose) == 48, "PoseWithCovarianceStamped.pose: offset");
/* PoseWithCovarianceStamped's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_PoseWithCovarianceStamped_type(nerve_type *out) {
    return nerve_standard_type_checked("PoseWithCovarianceStamped", UINT64_C(0x805f52bb403ff9a2), out);
}

/* A [`Twist`] with a stamp and a frame: 96 bytes.
 * nerve/TwistStamped (96 bytes), ROS 2 geometry_msgs/msg/TwistStamped */
typedef struct nerve_msgs_TwistStamped {
    nerve_msgs_Header header;
    nerve_msgs_Twist twist;
} nerve_msgs_TwistStamped;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_TwistStamped) == 96, "TwistStamped: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_TwistStamped) == 8, "TwistStamped: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_TwistStamped, header) == 0, "TwistStamped.header: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_TwistStamped, twist) == 48, "TwistStamped.twist: offset");
/* TwistStamped's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_TwistStamped_type(nerve_type *out) {
    return nerve_standard_type_checked("TwistStamped", UINT64_C(0x1192b3f258b0bfaa), out);
}

/* A [`Twist`] with its uncertainty: 336 bytes. The covariance is row-major 6×6 over
 * (vx, vy, vz, ωx, ωy, ωz): (m/s)², m·rad/s² and (rad/s)² by block.
 * nerve/TwistWithCovariance (336 bytes), ROS 2 geometry_msgs/msg/TwistWithCovariance */
typedef struct nerve_msgs_TwistWithCovariance {
    nerve_msgs_Twist twist;
    double covariance[36]; /* (m/s)², m·rad/s², (rad/s)² */
} nerve_msgs_TwistWithCovariance;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_TwistWithCovariance) == 336, "TwistWithCovariance: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_TwistWithCovariance) == 8, "TwistWithCovariance: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_TwistWithCovariance, twist) == 0, "TwistWithCovariance.twist: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_TwistWithCovariance, covariance) == 48, "TwistWithCovariance.covariance: offset");
/* TwistWithCovariance's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_TwistWithCovariance_type(nerve_type *out) {
    return nerve_standard_type_checked("TwistWithCovariance", UINT64_C(0x081308209381986a), out);
}

/* A [`TwistWithCovariance`] with a stamp and a frame: 384 bytes.
 * nerve/TwistWithCovarianceStamped (384 bytes), ROS 2 geometry_msgs/msg/TwistWithCovarianceStamped */
typedef struct nerve_msgs_TwistWithCovarianceStamped {
    nerve_msgs_Header header;
    nerve_msgs_TwistWithCovariance twist;
} nerve_msgs_TwistWithCovarianceStamped;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_TwistWithCovarianceStamped) == 384, "TwistWithCovarianceStamped: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_TwistWithCovarianceStamped) == 8, "TwistWithCovarianceStamped: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_TwistWithCovarianceStamped, header) == 0, "TwistWithCovarianceStamped.header: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_TwistWithCovarianceStamped, twist) == 48, "TwistWithCovarianceStamped.twist: offset");
/* TwistWithCovarianceStamped's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_TwistWithCovarianceStamped_type(nerve_type *out) {
    return nerve_standard_type_checked("TwistWithCovarianceStamped", UINT64_C(0x5d36790491803dfb), out);
}

/* Force and torque: 48 bytes.
 * nerve/Wrench (48 bytes), ROS 2 geometry_msgs/msg/Wrench */
typedef struct nerve_msgs_Wrench {
    nerve_msgs_Vector3 force; /* N */
    nerve_msgs_Vector3 torque; /* N·m */
} nerve_msgs_Wrench;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_Wrench) == 48, "Wrench: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_Wrench) == 8, "Wrench: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Wrench, force) == 0, "Wrench.force: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Wrench, torque) == 24, "Wrench.torque: offset");
/* Wrench's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_Wrench_type(nerve_type *out) {
    return nerve_standard_type_checked("Wrench", UINT64_C(0x26c95ddf688ae8d1), out);
}

/* A [`Wrench`] with a stamp and a frame: 96 bytes.
 * nerve/WrenchStamped (96 bytes), ROS 2 geometry_msgs/msg/WrenchStamped */
typedef struct nerve_msgs_WrenchStamped {
    nerve_msgs_Header header;
    nerve_msgs_Wrench wrench;
} nerve_msgs_WrenchStamped;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_WrenchStamped) == 96, "WrenchStamped: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_WrenchStamped) == 8, "WrenchStamped: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_WrenchStamped, header) == 0, "WrenchStamped.header: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_WrenchStamped, wrench) == 48, "WrenchStamped.wrench: offset");
/* WrenchStamped's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_WrenchStamped_type(nerve_type *out) {
    return nerve_standard_type_checked("WrenchStamped", UINT64_C(0x6d2eb3af8f311733), out);
}

/* Linear and angular acceleration: 48 bytes.
 * nerve/Accel (48 bytes), ROS 2 geometry_msgs/msg/Accel */
typedef struct nerve_msgs_Accel {
    nerve_msgs_Vector3 linear; /* m/s² */
    nerve_msgs_Vector3 angular; /* rad/s² */
} nerve_msgs_Accel;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_Accel) == 48, "Accel: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_Accel) == 8, "Accel: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Accel, linear) == 0, "Accel.linear: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Accel, angular) == 24, "Accel.angular: offset");
/* Accel's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_Accel_type(nerve_type *out) {
    return nerve_standard_type_checked("Accel", UINT64_C(0xda63d31363e724eb), out);
}

/* An [`Accel`] with a stamp and a frame: 96 bytes.
 * nerve/AccelStamped (96 bytes), ROS 2 geometry_msgs/msg/AccelStamped */
typedef struct nerve_msgs_AccelStamped {
    nerve_msgs_Header header;
    nerve_msgs_Accel accel;
} nerve_msgs_AccelStamped;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_AccelStamped) == 96, "AccelStamped: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_AccelStamped) == 8, "AccelStamped: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_AccelStamped, header) == 0, "AccelStamped.header: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_AccelStamped, accel) == 48, "AccelStamped.accel: offset");
/* AccelStamped's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_AccelStamped_type(nerve_type *out) {
    return nerve_standard_type_checked("AccelStamped", UINT64_C(0x879d69631fe35016), out);
}

/* An [`Accel`] with its uncertainty: 336 bytes. The covariance is row-major 6×6 over
 * (ax, ay, az, αx, αy, αz): (m/s²)², m·rad/s⁴ and (rad/s²)² by block.
 * nerve/AccelWithCovariance (336 bytes), ROS 2 geometry_msgs/msg/AccelWithCovariance */
typedef struct nerve_msgs_AccelWithCovariance {
    nerve_msgs_Accel accel;
    double covariance[36]; /* (m/s²)², m·rad/s⁴, (rad/s²)² */
} nerve_msgs_AccelWithCovariance;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_AccelWithCovariance) == 336, "AccelWithCovariance: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_AccelWithCovariance) == 8, "AccelWithCovariance: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_AccelWithCovariance, accel) == 0, "AccelWithCovariance.accel: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_AccelWithCovariance, covariance) == 48, "AccelWithCovariance.covariance: offset");
/* AccelWithCovariance's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_AccelWithCovariance_type(nerve_type *out) {
    return nerve_standard_type_checked("AccelWithCovariance", UINT64_C(0x3dfbc935e974387c), out);
}

/* An [`AccelWithCovariance`] with a stamp and a frame: 384 bytes.
 * nerve/AccelWithCovarianceStamped (384 bytes), ROS 2 geometry_msgs/msg/AccelWithCovarianceStamped */
typedef struct nerve_msgs_AccelWithCovarianceStamped {
    nerve_msgs_Header header;
    nerve_msgs_AccelWithCovariance accel;
} nerve_msgs_AccelWithCovarianceStamped;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_AccelWithCovarianceStamped) == 384, "AccelWithCovarianceStamped: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_AccelWithCovarianceStamped) == 8, "AccelWithCovarianceStamped: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_AccelWithCovarianceStamped, header) == 0, "AccelWithCovarianceStamped.header: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_AccelWithCovarianceStamped, accel) == 48, "AccelWithCovarianceStamped.accel: offset");
/* AccelWithCovarianceStamped's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_AccelWithCovarianceStamped_type(nerve_type *out) {
    return nerve_standard_type_checked("AccelWithCovarianceStamped", UINT64_C(0xa7f38c787081f332), out);
}

/* The mass properties of a rigid body: 80 bytes.
 * nerve/Inertia (80 bytes), ROS 2 geometry_msgs/msg/Inertia */
typedef struct nerve_msgs_Inertia {
    double m; /* kg */
    nerve_msgs_Vector3 com;
    double ixx; /* kg·m² */
    double ixy; /* kg·m² */
    double ixz; /* kg·m² */
    double iyy; /* kg·m² */
    double iyz; /* kg·m² */
    double izz; /* kg·m² */
} nerve_msgs_Inertia;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_Inertia) == 80, "Inertia: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_Inertia) == 8, "Inertia: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Inertia, m) == 0, "Inertia.m: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Inertia, com) == 8, "Inertia.com: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Inertia, ixx) == 32, "Inertia.ixx: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Inertia, ixy) == 40, "Inertia.ixy: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Inertia, ixz) == 48, "Inertia.ixz: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Inertia, iyy) == 56, "Inertia.iyy: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Inertia, iyz) == 64, "Inertia.iyz: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Inertia, izz) == 72, "Inertia.izz: offset");
/* Inertia's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_Inertia_type(nerve_type *out) {
    return nerve_standard_type_checked("Inertia", UINT64_C(0x5049dd10070baaea), out);
}

/* An [`Inertia`] with a stamp and a frame: 128 bytes.
 * nerve/InertiaStamped (128 bytes), ROS 2 geometry_msgs/msg/InertiaStamped */
typedef struct nerve_msgs_InertiaStamped {
    nerve_msgs_Header header;
    nerve_msgs_Inertia inertia;
} nerve_msgs_InertiaStamped;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_InertiaStamped) == 128, "InertiaStamped: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_InertiaStamped) == 8, "InertiaStamped: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_InertiaStamped, header) == 0, "InertiaStamped.header: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_InertiaStamped, inertia) == 48, "InertiaStamped.inertia: offset");
/* InertiaStamped's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_InertiaStamped_type(nerve_type *out) {
    return nerve_standard_type_checked("InertiaStamped", UINT64_C(0xe0557f7d183ff90c), out);
}

/* One distance from a single-beam rangefinder: 72 bytes. `range` below `min_range` or
 * above `max_range` is not a valid reading; −inf means an object closer than detectable,
 * +inf nothing in range (as in ROS).
 * nerve/Range (72 bytes), ROS 2 sensor_msgs/msg/Range */
typedef struct nerve_msgs_Range {
    nerve_msgs_Header header;
    uint8_t radiation_type;
    uint8_t _pad[3];
    float field_of_view; /* rad */
    float min_range; /* m */
    float max_range; /* m */
    float range; /* m */
    float variance; /* m² */
} nerve_msgs_Range;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_Range) == 72, "Range: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_Range) == 8, "Range: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Range, header) == 0, "Range.header: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Range, radiation_type) == 48, "Range.radiation_type: offset");
#define NERVE_MSGS_RANGE_RADIATION_TYPE_ULTRASOUND (0)
#define NERVE_MSGS_RANGE_RADIATION_TYPE_INFRARED (1)
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Range, _pad) == 49, "Range._pad: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Range, field_of_view) == 52, "Range.field_of_view: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Range, min_range) == 56, "Range.min_range: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Range, max_range) == 60, "Range.max_range: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Range, range) == 64, "Range.range: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Range, variance) == 68, "Range.variance: offset");
/* Range's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_Range_type(nerve_type *out) {
    return nerve_standard_type_checked("Range", UINT64_C(0xb908fdf2365c7236), out);
}

/* A temperature: 64 bytes.
 * nerve/Temperature (64 bytes), ROS 2 sensor_msgs/msg/Temperature */
typedef struct nerve_msgs_Temperature {
    nerve_msgs_Header header;
    double temperature; /* °C */
    double variance; /* °C² */
} nerve_msgs_Temperature;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_Temperature) == 64, "Temperature: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_Temperature) == 8, "Temperature: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Temperature, header) == 0, "Temperature.header: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Temperature, temperature) == 48, "Temperature.temperature: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Temperature, variance) == 56, "Temperature.variance: offset");
/* Temperature's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_Temperature_type(nerve_type *out) {
    return nerve_standard_type_checked("Temperature", UINT64_C(0x279383c9d7e6bdd4), out);
}

/* A pressure of a fluid (air, water): 64 bytes.
 * nerve/FluidPressure (64 bytes), ROS 2 sensor_msgs/msg/FluidPressure */
typedef struct nerve_msgs_FluidPressure {
    nerve_msgs_Header header;
    double fluid_pressure; /* Pa */
    double variance; /* Pa² */
} nerve_msgs_FluidPressure;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_FluidPressure) == 64, "FluidPressure: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_FluidPressure) == 8, "FluidPressure: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_FluidPressure, header) == 0, "FluidPressure.header: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_FluidPressure, fluid_pressure) == 48, "FluidPressure.fluid_pressure: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_FluidPressure, variance) == 56, "FluidPressure.variance: offset");
/* FluidPressure's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_FluidPressure_type(nerve_type *out) {
    return nerve_standard_type_checked("FluidPressure", UINT64_C(0x9651ebf1dd856013), out);
}

/* Relative humidity of the air: 64 bytes.
 * nerve/RelativeHumidity (64 bytes), ROS 2 sensor_msgs/msg/RelativeHumidity */
typedef struct nerve_msgs_RelativeHumidity {
    nerve_msgs_Header header;
    double relative_humidity; /* 1 */
    double variance; /* 1 */
} nerve_msgs_RelativeHumidity;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_RelativeHumidity) == 64, "RelativeHumidity: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_RelativeHumidity) == 8, "RelativeHumidity: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_RelativeHumidity, header) == 0, "RelativeHumidity.header: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_RelativeHumidity, relative_humidity) == 48, "RelativeHumidity.relative_humidity: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_RelativeHumidity, variance) == 56, "RelativeHumidity.variance: offset");
/* RelativeHumidity's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_RelativeHumidity_type(nerve_type *out) {
    return nerve_standard_type_checked("RelativeHumidity", UINT64_C(0x27b7a804b64db270), out);
}

/* Illuminance (light falling on a surface): 64 bytes.
 * nerve/Illuminance (64 bytes), ROS 2 sensor_msgs/msg/Illuminance */
typedef struct nerve_msgs_Illuminance {
    nerve_msgs_Header header;
    double illuminance; /* lx */
    double variance; /* lx² */
} nerve_msgs_Illuminance;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_Illuminance) == 64, "Illuminance: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_Illuminance) == 8, "Illuminance: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Illuminance, header) == 0, "Illuminance.header: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Illuminance, illuminance) == 48, "Illuminance.illuminance: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Illuminance, variance) == 56, "Illuminance.variance: offset");
/* Illuminance's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_Illuminance_type(nerve_type *out) {
    return nerve_standard_type_checked("Illuminance", UINT64_C(0xe6b30703cd800f61), out);
}

/* A magnetic field vector: 144 bytes. Set element 0 of the covariance to −1 when unknown,
 * as for [`Imu`].
 * nerve/MagneticField (144 bytes), ROS 2 sensor_msgs/msg/MagneticField */
typedef struct nerve_msgs_MagneticField {
    nerve_msgs_Header header;
    nerve_msgs_Vector3 magnetic_field; /* T */
    double magnetic_field_covariance[9]; /* T² */
} nerve_msgs_MagneticField;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_MagneticField) == 144, "MagneticField: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_MagneticField) == 8, "MagneticField: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_MagneticField, header) == 0, "MagneticField.header: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_MagneticField, magnetic_field) == 48, "MagneticField.magnetic_field: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_MagneticField, magnetic_field_covariance) == 72, "MagneticField.magnetic_field_covariance: offset");
/* MagneticField's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_MagneticField_type(nerve_type *out) {
    return nerve_standard_type_checked("MagneticField", UINT64_C(0xb152750d500cde31), out);
}

/* A joystick or gamepad: 440 bytes. At most [`Joy::AXES_MAX`] axes and
 * [`Joy::BUTTONS_MAX`] buttons; [`Joy::set_axes`] and [`Joy::set_buttons`] refuse more.
 * nerve/Joy (440 bytes), ROS 2 sensor_msgs/msg/Joy */
typedef struct nerve_msgs_Joy {
    nerve_msgs_Header header;
    uint32_t axes_len;
    uint32_t buttons_len;
    float axes[32]; /* 1 */
    int32_t buttons[64];
} nerve_msgs_Joy;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_Joy) == 440, "Joy: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_Joy) == 8, "Joy: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Joy, header) == 0, "Joy.header: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Joy, axes_len) == 48, "Joy.axes_len: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Joy, buttons_len) == 52, "Joy.buttons_len: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Joy, axes) == 56, "Joy.axes: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Joy, buttons) == 184, "Joy.buttons: offset");
/* Joy's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_Joy_type(nerve_type *out) {
    return nerve_standard_type_checked("Joy", UINT64_C(0x5e9296d9afd2d8b3), out);
}

/* A rectangle of an image (a crop, a detection): 20 bytes. All zero means the full image.
 * nerve/RegionOfInterest (20 bytes), ROS 2 sensor_msgs/msg/RegionOfInterest */
typedef struct nerve_msgs_RegionOfInterest {
    uint32_t x_offset; /* px */
    uint32_t y_offset; /* px */
    uint32_t height; /* px */
    uint32_t width; /* px */
    uint8_t do_rectify;
    uint8_t _pad[3];
} nerve_msgs_RegionOfInterest;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_RegionOfInterest) == 20, "RegionOfInterest: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_RegionOfInterest) == 4, "RegionOfInterest: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_RegionOfInterest, x_offset) == 0, "RegionOfInterest.x_offset: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_RegionOfInterest, y_offset) == 4, "RegionOfInterest.y_offset: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_RegionOfInterest, height) == 8, "RegionOfInterest.height: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_RegionOfInterest, width) == 12, "RegionOfInterest.width: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_RegionOfInterest, do_rectify) == 16, "RegionOfInterest.do_rectify: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_RegionOfInterest, _pad) == 17, "RegionOfInterest._pad: offset");
/* RegionOfInterest's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_RegionOfInterest_type(nerve_type *out) {
    return nerve_standard_type_checked("RegionOfInterest", UINT64_C(0x43986fe9d74930a9), out);
}

/* Size, resolution and placement of an [`OccupancyGrid`]: 80 bytes. `Default` has the
 * identity origin orientation.
 * nerve/MapMetaData (80 bytes), ROS 2 nav_msgs/msg/MapMetaData */
typedef struct nerve_msgs_MapMetaData {
    uint64_t map_load_time_ns; /* ns */
    float resolution; /* m */
    uint32_t width;
    uint32_t height;
    uint32_t _pad;
    nerve_msgs_Pose origin;
} nerve_msgs_MapMetaData;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_MapMetaData) == 80, "MapMetaData: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_MapMetaData) == 8, "MapMetaData: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_MapMetaData, map_load_time_ns) == 0, "MapMetaData.map_load_time_ns: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_MapMetaData, resolution) == 8, "MapMetaData.resolution: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_MapMetaData, width) == 12, "MapMetaData.width: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_MapMetaData, height) == 16, "MapMetaData.height: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_MapMetaData, _pad) == 20, "MapMetaData._pad: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_MapMetaData, origin) == 24, "MapMetaData.origin: offset");
/* MapMetaData's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_MapMetaData_type(nerve_type *out) {
    return nerve_standard_type_checked("MapMetaData", UINT64_C(0xfd6616968f17e5ec), out);
}

/* A rectangle in an image, possibly rotated: 40 bytes.
 * nerve/BoundingBox2D (40 bytes), ROS 2 vision_msgs/msg/BoundingBox2D */
typedef struct nerve_msgs_BoundingBox2D {
    double center_x; /* px */
    double center_y; /* px */
    double theta; /* rad */
    double size_x; /* px */
    double size_y; /* px */
} nerve_msgs_BoundingBox2D;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_BoundingBox2D) == 40, "BoundingBox2D: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_BoundingBox2D) == 8, "BoundingBox2D: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_BoundingBox2D, center_x) == 0, "BoundingBox2D.center_x: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_BoundingBox2D, center_y) == 8, "BoundingBox2D.center_y: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_BoundingBox2D, theta) == 16, "BoundingBox2D.theta: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_BoundingBox2D, size_x) == 24, "BoundingBox2D.size_x: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_BoundingBox2D, size_y) == 32, "BoundingBox2D.size_y: offset");
/* BoundingBox2D's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_BoundingBox2D_type(nerve_type *out) {
    return nerve_standard_type_checked("BoundingBox2D", UINT64_C(0x599b9778601340e1), out);
}

/* An oriented box in space: 80 bytes. `Default` has the identity orientation.
 * nerve/BoundingBox3D (80 bytes), ROS 2 vision_msgs/msg/BoundingBox3D */
typedef struct nerve_msgs_BoundingBox3D {
    nerve_msgs_Pose center;
    nerve_msgs_Vector3 size; /* m */
} nerve_msgs_BoundingBox3D;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_BoundingBox3D) == 80, "BoundingBox3D: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_BoundingBox3D) == 8, "BoundingBox3D: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_BoundingBox3D, center) == 0, "BoundingBox3D.center: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_BoundingBox3D, size) == 56, "BoundingBox3D.size: offset");
/* BoundingBox3D's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_BoundingBox3D_type(nerve_type *out) {
    return nerve_standard_type_checked("BoundingBox3D", UINT64_C(0x32a058265cc3c161), out);
}

/* Fixed part of a [`LaserScan`]: 80 bytes.
 * nerve/LaserScan (80 bytes), ROS 2 sensor_msgs/msg/LaserScan */
typedef struct nerve_msgs_LaserScanHeader {
    nerve_msgs_Header header;
    float angle_min; /* rad */
    float angle_max; /* rad */
    float angle_increment; /* rad */
    float time_increment; /* s */
    float scan_time; /* s */
    float range_min; /* m */
    float range_max; /* m */
    uint32_t _pad;
} nerve_msgs_LaserScanHeader;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_LaserScanHeader) == 80, "LaserScanHeader: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_LaserScanHeader) == 8, "LaserScanHeader: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_LaserScanHeader, header) == 0, "LaserScanHeader.header: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_LaserScanHeader, angle_min) == 48, "LaserScanHeader.angle_min: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_LaserScanHeader, angle_max) == 52, "LaserScanHeader.angle_max: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_LaserScanHeader, angle_increment) == 56, "LaserScanHeader.angle_increment: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_LaserScanHeader, time_increment) == 60, "LaserScanHeader.time_increment: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_LaserScanHeader, scan_time) == 64, "LaserScanHeader.scan_time: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_LaserScanHeader, range_min) == 68, "LaserScanHeader.range_min: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_LaserScanHeader, range_max) == 72, "LaserScanHeader.range_max: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_LaserScanHeader, _pad) == 76, "LaserScanHeader._pad: offset");
/* The elements of a LaserScan message. */
typedef float nerve_msgs_LaserScan_elem;
/* LaserScan's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_LaserScan_type(nerve_type *out) {
    return nerve_standard_type_checked("LaserScan", UINT64_C(0xf13bf04d31dc73ea), out);
}

/* Fixed part of an [`Image`]: 64 bytes.
 * nerve/Image (64 bytes), ROS 2 sensor_msgs/msg/Image */
typedef struct nerve_msgs_ImageHeader {
    nerve_msgs_Header header;
    uint32_t width; /* px */
    uint32_t height; /* px */
    uint32_t step; /* B */
    uint32_t encoding;
} nerve_msgs_ImageHeader;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_ImageHeader) == 64, "ImageHeader: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_ImageHeader) == 8, "ImageHeader: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_ImageHeader, header) == 0, "ImageHeader.header: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_ImageHeader, width) == 48, "ImageHeader.width: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_ImageHeader, height) == 52, "ImageHeader.height: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_ImageHeader, step) == 56, "ImageHeader.step: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_ImageHeader, encoding) == 60, "ImageHeader.encoding: offset");
#define NERVE_MSGS_IMAGEHEADER_ENCODING_RGB8 (1)
#define NERVE_MSGS_IMAGEHEADER_ENCODING_BGR8 (2)
#define NERVE_MSGS_IMAGEHEADER_ENCODING_RGBA8 (3)
#define NERVE_MSGS_IMAGEHEADER_ENCODING_BGRA8 (4)
#define NERVE_MSGS_IMAGEHEADER_ENCODING_MONO8 (5)
#define NERVE_MSGS_IMAGEHEADER_ENCODING_MONO16 (6)
#define NERVE_MSGS_IMAGEHEADER_ENCODING_16UC1 (7)
#define NERVE_MSGS_IMAGEHEADER_ENCODING_32FC1 (8)
/* The elements of a Image message. */
typedef uint8_t nerve_msgs_Image_elem;
/* Image's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_Image_type(nerve_type *out) {
    return nerve_standard_type_checked("Image", UINT64_C(0x4811ba5d76c3dc55), out);
}

/* Fixed part of a [`DepthImage`]: 72 bytes.
 * nerve/DepthImage (72 bytes), ROS 2 sensor_msgs/msg/Image */
typedef struct nerve_msgs_DepthImageHeader {
    nerve_msgs_Header header;
    uint32_t width; /* px */
    uint32_t height; /* px */
    uint32_t step; /* B */
    uint32_t encoding;
    float depth_scale; /* m */
    uint32_t _pad;
} nerve_msgs_DepthImageHeader;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_DepthImageHeader) == 72, "DepthImageHeader: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_DepthImageHeader) == 8, "DepthImageHeader: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_DepthImageHeader, header) == 0, "DepthImageHeader.header: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_DepthImageHeader, width) == 48, "DepthImageHeader.width: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_DepthImageHeader, height) == 52, "DepthImageHeader.height: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_DepthImageHeader, step) == 56, "DepthImageHeader.step: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_DepthImageHeader, encoding) == 60, "DepthImageHeader.encoding: offset");
#define NERVE_MSGS_DEPTHIMAGEHEADER_ENCODING_RGB8 (1)
#define NERVE_MSGS_DEPTHIMAGEHEADER_ENCODING_BGR8 (2)
#define NERVE_MSGS_DEPTHIMAGEHEADER_ENCODING_RGBA8 (3)
#define NERVE_MSGS_DEPTHIMAGEHEADER_ENCODING_BGRA8 (4)
#define NERVE_MSGS_DEPTHIMAGEHEADER_ENCODING_MONO8 (5)
#define NERVE_MSGS_DEPTHIMAGEHEADER_ENCODING_MONO16 (6)
#define NERVE_MSGS_DEPTHIMAGEHEADER_ENCODING_16UC1 (7)
#define NERVE_MSGS_DEPTHIMAGEHEADER_ENCODING_32FC1 (8)
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_DepthImageHeader, depth_scale) == 64, "DepthImageHeader.depth_scale: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_DepthImageHeader, _pad) == 68, "DepthImageHeader._pad: offset");
/* The elements of a DepthImage message. */
typedef uint8_t nerve_msgs_DepthImage_elem;
/* DepthImage's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_DepthImage_type(nerve_type *out) {
    return nerve_standard_type_checked("DepthImage", UINT64_C(0x65b442fbbe9d60aa), out);
}

/* Fixed part of a [`PointCloud`]: 72 bytes.
 * nerve/PointCloud (72 bytes), ROS 2 sensor_msgs/msg/PointCloud2 */
typedef struct nerve_msgs_PointCloudHeader {
    nerve_msgs_Header header;
    uint32_t width;
    uint32_t height;
    uint32_t format;
    uint32_t point_step; /* B */
    uint32_t is_dense;
    uint32_t _pad;
} nerve_msgs_PointCloudHeader;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_PointCloudHeader) == 72, "PointCloudHeader: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_PointCloudHeader) == 8, "PointCloudHeader: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_PointCloudHeader, header) == 0, "PointCloudHeader.header: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_PointCloudHeader, width) == 48, "PointCloudHeader.width: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_PointCloudHeader, height) == 52, "PointCloudHeader.height: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_PointCloudHeader, format) == 56, "PointCloudHeader.format: offset");
#define NERVE_MSGS_POINTCLOUDHEADER_FORMAT_XYZ (1)
#define NERVE_MSGS_POINTCLOUDHEADER_FORMAT_XYZI (2)
#define NERVE_MSGS_POINTCLOUDHEADER_FORMAT_XYZRGB (3)
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_PointCloudHeader, point_step) == 60, "PointCloudHeader.point_step: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_PointCloudHeader, is_dense) == 64, "PointCloudHeader.is_dense: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_PointCloudHeader, _pad) == 68, "PointCloudHeader._pad: offset");
/* The elements of a PointCloud message. */
typedef uint8_t nerve_msgs_PointCloud_elem;
/* PointCloud's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_PointCloud_type(nerve_type *out) {
    return nerve_standard_type_checked("PointCloud", UINT64_C(0xdecba59b8b142e9f), out);
}

/* Fixed part of a [`Text`]: 4 bytes, reserved (ROS 2's `String` has nothing besides its
 * text, and a C struct cannot be empty).
 * nerve/Text (4 bytes), ROS 2 std_msgs/msg/String */
typedef struct nerve_msgs_TextHeader {
    uint32_t _pad;
} nerve_msgs_TextHeader;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_TextHeader) == 4, "TextHeader: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_TextHeader) == 4, "TextHeader: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_TextHeader, _pad) == 0, "TextHeader._pad: offset");
/* The elements of a Text message. */
typedef uint8_t nerve_msgs_Text_elem;
/* Text's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_Text_type(nerve_type *out) {
    return nerve_standard_type_checked("Text", UINT64_C(0x5757bafbbe77a322), out);
}

/* Fixed part of a [`Polygon`]: 4 bytes, reserved (ROS 2's `Polygon` has nothing besides its
 * points, and a C struct cannot be empty).
 * nerve/Polygon (4 bytes), ROS 2 geometry_msgs/msg/Polygon */
typedef struct nerve_msgs_PolygonHeader {
    uint32_t _pad;
} nerve_msgs_PolygonHeader;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_PolygonHeader) == 4, "PolygonHeader: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_PolygonHeader) == 4, "PolygonHeader: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_PolygonHeader, _pad) == 0, "PolygonHeader._pad: offset");
/* The elements of a Polygon message. */
typedef nerve_msgs_Point32 nerve_msgs_Polygon_elem;
/* Polygon's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_Polygon_type(nerve_type *out) {
    return nerve_standard_type_checked("Polygon", UINT64_C(0xf1a4a3fed42295a0), out);
}

/* Fixed part of a [`PolygonStamped`]: 48 bytes.
 * nerve/PolygonStamped (48 bytes), ROS 2 geometry_msgs/msg/PolygonStamped */
typedef struct nerve_msgs_PolygonStampedHeader {
    nerve_msgs_Header header;
} nerve_msgs_PolygonStampedHeader;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_PolygonStampedHeader) == 48, "PolygonStampedHeader: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_PolygonStampedHeader) == 8, "PolygonStampedHeader: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_PolygonStampedHeader, header) == 0, "PolygonStampedHeader.header: offset");
/* The elements of a PolygonStamped message. */
typedef nerve_msgs_Point32 nerve_msgs_PolygonStamped_elem;
/* PolygonStamped's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_PolygonStamped_type(nerve_type *out) {
    return nerve_standard_type_checked("PolygonStamped", UINT64_C(0xc25215a960e8f24a), out);
}

/* Fixed part of a [`CompressedImage`]: 80 bytes.
 * nerve/CompressedImage (80 bytes), ROS 2 sensor_msgs/msg/CompressedImage */
typedef struct nerve_msgs_CompressedImageHeader {
    nerve_msgs_Header header;
    char format[32];
} nerve_msgs_CompressedImageHeader;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_CompressedImageHeader) == 80, "CompressedImageHeader: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_CompressedImageHeader) == 8, "CompressedImageHeader: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_CompressedImageHeader, header) == 0, "CompressedImageHeader.header: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_CompressedImageHeader, format) == 48, "CompressedImageHeader.format: offset");
/* The elements of a CompressedImage message. */
typedef uint8_t nerve_msgs_CompressedImage_elem;
/* CompressedImage's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_CompressedImage_type(nerve_type *out) {
    return nerve_standard_type_checked("CompressedImage", UINT64_C(0x846f960a93831179), out);
}

/* Fixed part of an [`OccupancyGrid`]: 128 bytes. `Default` has the identity origin
 * orientation.
 * nerve/OccupancyGrid (128 bytes), ROS 2 nav_msgs/msg/OccupancyGrid */
typedef struct nerve_msgs_OccupancyGridHeader {
    nerve_msgs_Header header;
    nerve_msgs_MapMetaData info;
} nerve_msgs_OccupancyGridHeader;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_OccupancyGridHeader) == 128, "OccupancyGridHeader: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_OccupancyGridHeader) == 8, "OccupancyGridHeader: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_OccupancyGridHeader, header) == 0, "OccupancyGridHeader.header: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_OccupancyGridHeader, info) == 48, "OccupancyGridHeader.info: offset");
/* The elements of a OccupancyGrid message. */
typedef int8_t nerve_msgs_OccupancyGrid_elem;
/* OccupancyGrid's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_OccupancyGrid_type(nerve_type *out) {
    return nerve_standard_type_checked("OccupancyGrid", UINT64_C(0x7605fb8ea4477651), out);
}

/* Fixed part of a [`Path`]: 48 bytes.
 * nerve/Path (48 bytes), ROS 2 nav_msgs/msg/Path */
typedef struct nerve_msgs_PathHeader {
    nerve_msgs_Header header;
} nerve_msgs_PathHeader;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_PathHeader) == 48, "PathHeader: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_PathHeader) == 8, "PathHeader: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_PathHeader, header) == 0, "PathHeader.header: offset");
/* The elements of a Path message. */
typedef nerve_msgs_PoseStamped nerve_msgs_Path_elem;
/* Path's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_Path_type(nerve_type *out) {
    return nerve_standard_type_checked("Path", UINT64_C(0x5c30eb05a91612cc), out);
}

/* Fixed part of a [`TFMessage`]: 4 bytes, reserved (ROS 2's `TFMessage` has nothing besides
 * its transforms, and a C struct cannot be empty).
 * nerve/TFMessage (4 bytes), ROS 2 tf2_msgs/msg/TFMessage */
typedef struct nerve_msgs_TFMessageHeader {
    uint32_t _pad;
} nerve_msgs_TFMessageHeader;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_TFMessageHeader) == 4, "TFMessageHeader: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_TFMessageHeader) == 4, "TFMessageHeader: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_TFMessageHeader, _pad) == 0, "TFMessageHeader._pad: offset");
/* The elements of a TFMessage message. */
typedef nerve_msgs_TransformStamped nerve_msgs_TFMessage_elem;
/* TFMessage's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_TFMessage_type(nerve_type *out) {
    return nerve_standard_type_checked("TFMessage", UINT64_C(0xba7cbf6ee8bd65a6), out);
}

/* Fixed part of a [`Tensor`]: 192 bytes. At most [`TensorHeader::MAX_DIMS`] dimensions;
 * [`TensorHeader::set_shape`] refuses more.
 * nerve/Tensor (192 bytes) */
typedef struct nerve_msgs_TensorHeader {
    nerve_msgs_Header header;
    uint32_t dtype;
    uint32_t ndim;
    uint32_t device_type;
    uint32_t device_id;
    uint64_t shape[8];
    int64_t strides[8];
} nerve_msgs_TensorHeader;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_TensorHeader) == 192, "TensorHeader: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_TensorHeader) == 8, "TensorHeader: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_TensorHeader, header) == 0, "TensorHeader.header: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_TensorHeader, dtype) == 48, "TensorHeader.dtype: offset");
#define NERVE_MSGS_TENSORHEADER_DTYPE_BOOL (1)
#define NERVE_MSGS_TENSORHEADER_DTYPE_UINT8 (2)
#define NERVE_MSGS_TENSORHEADER_DTYPE_INT8 (3)
#define NERVE_MSGS_TENSORHEADER_DTYPE_UINT16 (4)
#define NERVE_MSGS_TENSORHEADER_DTYPE_INT16 (5)
#define NERVE_MSGS_TENSORHEADER_DTYPE_UINT32 (6)
#define NERVE_MSGS_TENSORHEADER_DTYPE_INT32 (7)
#define NERVE_MSGS_TENSORHEADER_DTYPE_UINT64 (8)
#define NERVE_MSGS_TENSORHEADER_DTYPE_INT64 (9)
#define NERVE_MSGS_TENSORHEADER_DTYPE_FLOAT16 (10)
#define NERVE_MSGS_TENSORHEADER_DTYPE_BFLOAT16 (11)
#define NERVE_MSGS_TENSORHEADER_DTYPE_FLOAT32 (12)
#define NERVE_MSGS_TENSORHEADER_DTYPE_FLOAT64 (13)
#define NERVE_MSGS_TENSORHEADER_DTYPE_COMPLEX64 (14)
#define NERVE_MSGS_TENSORHEADER_DTYPE_COMPLEX128 (15)
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_TensorHeader, ndim) == 52, "TensorHeader.ndim: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_TensorHeader, device_type) == 56, "TensorHeader.device_type: offset");
#define NERVE_MSGS_TENSORHEADER_DEVICE_TYPE_CPU (1)
#define NERVE_MSGS_TENSORHEADER_DEVICE_TYPE_CUDA (2)
#define NERVE_MSGS_TENSORHEADER_DEVICE_TYPE_CUDA_HOST (3)
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_TensorHeader, device_id) == 60, "TensorHeader.device_id: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_TensorHeader, shape) == 64, "TensorHeader.shape: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_TensorHeader, strides) == 128, "TensorHeader.strides: offset");
/* The elements of a Tensor message. */
typedef uint8_t nerve_msgs_Tensor_elem;
/* Tensor's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_Tensor_type(nerve_type *out) {
    return nerve_standard_type_checked("Tensor", UINT64_C(0xeee5b1355ecdc760), out);
}

/* One joint of a [`JointState`]: 24 bytes. Unknown values are NaN.
 * JointSample (24 bytes) */
typedef struct nerve_msgs_JointSample {
    double position; /* rad or m */
    double velocity; /* rad/s or m/s */
    double effort; /* N·m or N */
} nerve_msgs_JointSample;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_JointSample) == 24, "JointSample: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_JointSample) == 8, "JointSample: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_JointSample, position) == 0, "JointSample.position: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_JointSample, velocity) == 8, "JointSample.velocity: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_JointSample, effort) == 16, "JointSample.effort: offset");
/* JointSample's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_JointSample_type(nerve_type *out) {
    return nerve_standard_type_checked("JointSample", UINT64_C(0xfc98861f6b60350a), out);
}

/* A point with position: 12 bytes ([`PointFormat::Xyz`]).
 * PointXYZ (12 bytes) */
typedef struct nerve_msgs_PointXYZ {
    float x; /* m */
    float y; /* m */
    float z; /* m */
} nerve_msgs_PointXYZ;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_PointXYZ) == 12, "PointXYZ: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_PointXYZ) == 4, "PointXYZ: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_PointXYZ, x) == 0, "PointXYZ.x: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_PointXYZ, y) == 4, "PointXYZ.y: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_PointXYZ, z) == 8, "PointXYZ.z: offset");
/* PointXYZ's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_PointXYZ_type(nerve_type *out) {
    return nerve_standard_type_checked("PointXYZ", UINT64_C(0x2afdc37c8a14f0e0), out);
}

/* A point with position and intensity: 16 bytes ([`PointFormat::Xyzi`]).
 * PointXYZI (16 bytes) */
typedef struct nerve_msgs_PointXYZI {
    float x; /* m */
    float y; /* m */
    float z; /* m */
    float intensity;
} nerve_msgs_PointXYZI;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_PointXYZI) == 16, "PointXYZI: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_PointXYZI) == 4, "PointXYZI: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_PointXYZI, x) == 0, "PointXYZI.x: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_PointXYZI, y) == 4, "PointXYZI.y: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_PointXYZI, z) == 8, "PointXYZI.z: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_PointXYZI, intensity) == 12, "PointXYZI.intensity: offset");
/* PointXYZI's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_PointXYZI_type(nerve_type *out) {
    return nerve_standard_type_checked("PointXYZI", UINT64_C(0xc30813a58c02e197), out);
}

/* A point with position and colour: 16 bytes ([`PointFormat::Xyzrgb`]).
 * PointXYZRGB (16 bytes) */
typedef struct nerve_msgs_PointXYZRGB {
    float x; /* m */
    float y; /* m */
    float z; /* m */
    uint8_t r;
    uint8_t g;
    uint8_t b;
    uint8_t a;
} nerve_msgs_PointXYZRGB;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_PointXYZRGB) == 16, "PointXYZRGB: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_PointXYZRGB) == 4, "PointXYZRGB: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_PointXYZRGB, x) == 0, "PointXYZRGB.x: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_PointXYZRGB, y) == 4, "PointXYZRGB.y: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_PointXYZRGB, z) == 8, "PointXYZRGB.z: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_PointXYZRGB, r) == 12, "PointXYZRGB.r: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_PointXYZRGB, g) == 13, "PointXYZRGB.g: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_PointXYZRGB, b) == 14, "PointXYZRGB.b: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_PointXYZRGB, a) == 15, "PointXYZRGB.a: offset");
/* PointXYZRGB's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_PointXYZRGB_type(nerve_type *out) {
    return nerve_standard_type_checked("PointXYZRGB", UINT64_C(0x38fbaaf9482b5528), out);
}

/* One dimension of a multi-dimensional array: 40 bytes.
 * MultiArrayDimension (40 bytes), ROS 2 std_msgs/msg/MultiArrayDimension */
typedef struct nerve_msgs_MultiArrayDimension {
    char label[32];
    uint32_t size;
    uint32_t stride;
} nerve_msgs_MultiArrayDimension;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_MultiArrayDimension) == 40, "MultiArrayDimension: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_MultiArrayDimension) == 4, "MultiArrayDimension: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_MultiArrayDimension, label) == 0, "MultiArrayDimension.label: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_MultiArrayDimension, size) == 32, "MultiArrayDimension.size: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_MultiArrayDimension, stride) == 36, "MultiArrayDimension.stride: offset");
/* MultiArrayDimension's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_MultiArrayDimension_type(nerve_type *out) {
    return nerve_standard_type_checked("MultiArrayDimension", UINT64_C(0x830bc34c047e5348), out);
}

/* The shape of a multi-dimensional array: 328 bytes. At most [`MultiArrayLayout::DIMS_MAX`]
 * dimensions; [`MultiArrayLayout::set_dims`] refuses more.
 * MultiArrayLayout (328 bytes), ROS 2 std_msgs/msg/MultiArrayLayout */
typedef struct nerve_msgs_MultiArrayLayout {
    nerve_msgs_MultiArrayDimension dim[8];
    uint32_t dim_count;
    uint32_t data_offset;
} nerve_msgs_MultiArrayLayout;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_MultiArrayLayout) == 328, "MultiArrayLayout: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_MultiArrayLayout) == 4, "MultiArrayLayout: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_MultiArrayLayout, dim) == 0, "MultiArrayLayout.dim: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_MultiArrayLayout, dim_count) == 320, "MultiArrayLayout.dim_count: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_MultiArrayLayout, data_offset) == 324, "MultiArrayLayout.data_offset: offset");
/* MultiArrayLayout's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_MultiArrayLayout_type(nerve_type *out) {
    return nerve_standard_type_checked("MultiArrayLayout", UINT64_C(0x26df973e99882788), out);
}

/* Satellite fix status: 4 bytes. `service` is a bit set, not a code: several systems may
 * contribute (`NavSatStatus::SERVICE_GPS | NavSatStatus::SERVICE_GALILEO`).
 * NavSatStatus (4 bytes), ROS 2 sensor_msgs/msg/NavSatStatus */
typedef struct nerve_msgs_NavSatStatus {
    int8_t status;
    uint8_t _pad;
    uint16_t service;
} nerve_msgs_NavSatStatus;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_NavSatStatus) == 4, "NavSatStatus: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_NavSatStatus) == 2, "NavSatStatus: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_NavSatStatus, status) == 0, "NavSatStatus.status: offset");
#define NERVE_MSGS_NAVSATSTATUS_STATUS_NO_FIX (-1)
#define NERVE_MSGS_NAVSATSTATUS_STATUS_FIX (0)
#define NERVE_MSGS_NAVSATSTATUS_STATUS_SBAS_FIX (1)
#define NERVE_MSGS_NAVSATSTATUS_STATUS_GBAS_FIX (2)
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_NavSatStatus, _pad) == 1, "NavSatStatus._pad: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_NavSatStatus, service) == 2, "NavSatStatus.service: offset");
/* NavSatStatus's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_NavSatStatus_type(nerve_type *out) {
    return nerve_standard_type_checked("NavSatStatus", UINT64_C(0xa5373d5a1bff4e80), out);
}

/* One named field of the points of a [`PointCloud2`]: 44 bytes.
 * PointField (44 bytes), ROS 2 sensor_msgs/msg/PointField */
typedef struct nerve_msgs_PointField {
    char name[32];
    uint32_t offset; /* B */
    uint8_t datatype;
    uint8_t _pad[3];
    uint32_t count;
} nerve_msgs_PointField;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_PointField) == 44, "PointField: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_PointField) == 4, "PointField: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_PointField, name) == 0, "PointField.name: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_PointField, offset) == 32, "PointField.offset: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_PointField, datatype) == 36, "PointField.datatype: offset");
#define NERVE_MSGS_POINTFIELD_DATATYPE_INT8 (1)
#define NERVE_MSGS_POINTFIELD_DATATYPE_UINT8 (2)
#define NERVE_MSGS_POINTFIELD_DATATYPE_INT16 (3)
#define NERVE_MSGS_POINTFIELD_DATATYPE_UINT16 (4)
#define NERVE_MSGS_POINTFIELD_DATATYPE_INT32 (5)
#define NERVE_MSGS_POINTFIELD_DATATYPE_UINT32 (6)
#define NERVE_MSGS_POINTFIELD_DATATYPE_FLOAT32 (7)
#define NERVE_MSGS_POINTFIELD_DATATYPE_FLOAT64 (8)
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_PointField, _pad) == 37, "PointField._pad: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_PointField, count) == 40, "PointField.count: offset");
/* PointField's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_PointField_type(nerve_type *out) {
    return nerve_standard_type_checked("PointField", UINT64_C(0x1617e4850cecc2f5), out);
}

/* A key and a value, both text: 192 bytes.
 * KeyValue (192 bytes), ROS 2 diagnostic_msgs/msg/KeyValue */
typedef struct nerve_msgs_KeyValue {
    char key[64];
    char value[128];
} nerve_msgs_KeyValue;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_KeyValue) == 192, "KeyValue: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_KeyValue) == 1, "KeyValue: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_KeyValue, key) == 0, "KeyValue.key: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_KeyValue, value) == 64, "KeyValue.value: offset");
/* KeyValue's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_KeyValue_type(nerve_type *out) {
    return nerve_standard_type_checked("KeyValue", UINT64_C(0x77ce1ac1b20642fb), out);
}

/* One element of a [`DiagnosticArray`]: a status or one of its values (module docs), 260
 * bytes.
 * DiagnosticEntry (260 bytes) */
typedef struct nerve_msgs_DiagnosticEntry {
    uint8_t kind;
    uint8_t level;
    uint8_t _pad[2];
    char name[64];
    char message[128];
    char hardware_id[64];
} nerve_msgs_DiagnosticEntry;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_DiagnosticEntry) == 260, "DiagnosticEntry: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_DiagnosticEntry) == 1, "DiagnosticEntry: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_DiagnosticEntry, kind) == 0, "DiagnosticEntry.kind: offset");
#define NERVE_MSGS_DIAGNOSTICENTRY_KIND_STATUS (1)
#define NERVE_MSGS_DIAGNOSTICENTRY_KIND_VALUE (2)
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_DiagnosticEntry, level) == 1, "DiagnosticEntry.level: offset");
#define NERVE_MSGS_DIAGNOSTICENTRY_LEVEL_OK (0)
#define NERVE_MSGS_DIAGNOSTICENTRY_LEVEL_WARN (1)
#define NERVE_MSGS_DIAGNOSTICENTRY_LEVEL_ERROR (2)
#define NERVE_MSGS_DIAGNOSTICENTRY_LEVEL_STALE (3)
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_DiagnosticEntry, _pad) == 2, "DiagnosticEntry._pad: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_DiagnosticEntry, name) == 4, "DiagnosticEntry.name: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_DiagnosticEntry, message) == 68, "DiagnosticEntry.message: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_DiagnosticEntry, hardware_id) == 196, "DiagnosticEntry.hardware_id: offset");
/* DiagnosticEntry's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_DiagnosticEntry_type(nerve_type *out) {
    return nerve_standard_type_checked("DiagnosticEntry", UINT64_C(0xe01dbf208ce49ca1), out);
}

/* A class and its score: 40 bytes.
 * ObjectHypothesis (40 bytes), ROS 2 vision_msgs/msg/ObjectHypothesis */
typedef struct nerve_msgs_ObjectHypothesis {
    char class_id[32];
    double score; /* 1 */
} nerve_msgs_ObjectHypothesis;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_ObjectHypothesis) == 40, "ObjectHypothesis: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_ObjectHypothesis) == 8, "ObjectHypothesis: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_ObjectHypothesis, class_id) == 0, "ObjectHypothesis.class_id: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_ObjectHypothesis, score) == 32, "ObjectHypothesis.score: offset");
/* ObjectHypothesis's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_ObjectHypothesis_type(nerve_type *out) {
    return nerve_standard_type_checked("ObjectHypothesis", UINT64_C(0x4312ce4db09d6c1e), out);
}

/* A class hypothesis with the object's pose: 384 bytes. `Default` has the identity
 * orientation.
 * ObjectHypothesisWithPose (384 bytes), ROS 2 vision_msgs/msg/ObjectHypothesisWithPose */
typedef struct nerve_msgs_ObjectHypothesisWithPose {
    nerve_msgs_ObjectHypothesis hypothesis;
    nerve_msgs_PoseWithCovariance pose;
} nerve_msgs_ObjectHypothesisWithPose;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_ObjectHypothesisWithPose) == 384, "ObjectHypothesisWithPose: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_ObjectHypothesisWithPose) == 8, "ObjectHypothesisWithPose: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_ObjectHypothesisWithPose, hypothesis) == 0, "ObjectHypothesisWithPose.hypothesis: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_ObjectHypothesisWithPose, pose) == 40, "ObjectHypothesisWithPose.pose: offset");
/* ObjectHypothesisWithPose's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_ObjectHypothesisWithPose_type(nerve_type *out) {
    return nerve_standard_type_checked("ObjectHypothesisWithPose", UINT64_C(0x74bd9df374a8cb04), out);
}

/* One point of a [`Marker`] with its colour: 40 bytes.
 * MarkerPoint (40 bytes) */
typedef struct nerve_msgs_MarkerPoint {
    nerve_msgs_Point point; /* m */
    nerve_msgs_ColorRGBA color;
} nerve_msgs_MarkerPoint;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_MarkerPoint) == 40, "MarkerPoint: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_MarkerPoint) == 8, "MarkerPoint: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_MarkerPoint, point) == 0, "MarkerPoint.point: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_MarkerPoint, color) == 24, "MarkerPoint.color: offset");
/* MarkerPoint's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_MarkerPoint_type(nerve_type *out) {
    return nerve_standard_type_checked("MarkerPoint", UINT64_C(0x4d288a5b33afc5c9), out);
}

/* A satellite navigation fix (WGS 84): 152 bytes. Unknown `latitude`, `longitude` or
 * `altitude` are NaN.
 * nerve/NavSatFix (152 bytes), ROS 2 sensor_msgs/msg/NavSatFix */
typedef struct nerve_msgs_NavSatFix {
    nerve_msgs_Header header;
    nerve_msgs_NavSatStatus status;
    uint8_t position_covariance_type;
    uint8_t _pad[3];
    double latitude; /* deg */
    double longitude; /* deg */
    double altitude; /* m */
    double position_covariance[9]; /* m² */
} nerve_msgs_NavSatFix;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_NavSatFix) == 152, "NavSatFix: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_NavSatFix) == 8, "NavSatFix: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_NavSatFix, header) == 0, "NavSatFix.header: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_NavSatFix, status) == 48, "NavSatFix.status: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_NavSatFix, position_covariance_type) == 52, "NavSatFix.position_covariance_type: offset");
#define NERVE_MSGS_NAVSATFIX_POSITION_COVARIANCE_TYPE_UNKNOWN (0)
#define NERVE_MSGS_NAVSATFIX_POSITION_COVARIANCE_TYPE_APPROXIMATED (1)
#define NERVE_MSGS_NAVSATFIX_POSITION_COVARIANCE_TYPE_DIAGONAL_KNOWN (2)
#define NERVE_MSGS_NAVSATFIX_POSITION_COVARIANCE_TYPE_KNOWN (3)
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_NavSatFix, _pad) == 53, "NavSatFix._pad: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_NavSatFix, latitude) == 56, "NavSatFix.latitude: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_NavSatFix, longitude) == 64, "NavSatFix.longitude: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_NavSatFix, altitude) == 72, "NavSatFix.altitude: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_NavSatFix, position_covariance) == 80, "NavSatFix.position_covariance: offset");
/* NavSatFix's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_NavSatFix_type(nerve_type *out) {
    return nerve_standard_type_checked("NavSatFix", UINT64_C(0x3a136bd0141534f7), out);
}

/* An object found in an image: 1664 bytes.
 * nerve/Detection2D (1664 bytes), ROS 2 vision_msgs/msg/Detection2D */
typedef struct nerve_msgs_Detection2D {
    nerve_msgs_Header header;
    uint32_t results_len;
    uint32_t _pad;
    nerve_msgs_ObjectHypothesisWithPose results[4];
    nerve_msgs_BoundingBox2D bbox;
    char id[32];
} nerve_msgs_Detection2D;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_Detection2D) == 1664, "Detection2D: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_Detection2D) == 8, "Detection2D: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Detection2D, header) == 0, "Detection2D.header: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Detection2D, results_len) == 48, "Detection2D.results_len: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Detection2D, _pad) == 52, "Detection2D._pad: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Detection2D, results) == 56, "Detection2D.results: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Detection2D, bbox) == 1592, "Detection2D.bbox: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Detection2D, id) == 1632, "Detection2D.id: offset");
/* Detection2D's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_Detection2D_type(nerve_type *out) {
    return nerve_standard_type_checked("Detection2D", UINT64_C(0xe18eaf0a0a0c555c), out);
}

/* An object found in space: 1704 bytes. `Default` has the box's identity orientation.
 * nerve/Detection3D (1704 bytes), ROS 2 vision_msgs/msg/Detection3D */
typedef struct nerve_msgs_Detection3D {
    nerve_msgs_Header header;
    uint32_t results_len;
    uint32_t _pad;
    nerve_msgs_ObjectHypothesisWithPose results[4];
    nerve_msgs_BoundingBox3D bbox;
    char id[32];
} nerve_msgs_Detection3D;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_Detection3D) == 1704, "Detection3D: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_Detection3D) == 8, "Detection3D: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Detection3D, header) == 0, "Detection3D.header: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Detection3D, results_len) == 48, "Detection3D.results_len: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Detection3D, _pad) == 52, "Detection3D._pad: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Detection3D, results) == 56, "Detection3D.results: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Detection3D, bbox) == 1592, "Detection3D.bbox: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Detection3D, id) == 1672, "Detection3D.id: offset");
/* Detection3D's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_Detection3D_type(nerve_type *out) {
    return nerve_standard_type_checked("Detection3D", UINT64_C(0xb9f4f357e3eca564), out);
}

/* Fixed part of a [`JointState`]: 56 bytes.
 * nerve/JointState (56 bytes), ROS 2 sensor_msgs/msg/JointState */
typedef struct nerve_msgs_JointStateHeader {
    nerve_msgs_Header header;
    uint64_t names_hash;
} nerve_msgs_JointStateHeader;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_JointStateHeader) == 56, "JointStateHeader: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_JointStateHeader) == 8, "JointStateHeader: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_JointStateHeader, header) == 0, "JointStateHeader.header: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_JointStateHeader, names_hash) == 48, "JointStateHeader.names_hash: offset");
/* The elements of a JointState message. */
typedef nerve_msgs_JointSample nerve_msgs_JointState_elem;
/* JointState's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_JointState_type(nerve_type *out) {
    return nerve_standard_type_checked("JointState", UINT64_C(0x9de3fd79349af375), out);
}

/* Fixed part of a multi-array message: 328 bytes, the layout.
 * nerve/Float32MultiArray (328 bytes), ROS 2 std_msgs/msg/Float32MultiArray */
typedef struct nerve_msgs_Float32MultiArrayHeader {
    nerve_msgs_MultiArrayLayout layout;
} nerve_msgs_Float32MultiArrayHeader;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_Float32MultiArrayHeader) == 328, "Float32MultiArrayHeader: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_Float32MultiArrayHeader) == 4, "Float32MultiArrayHeader: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Float32MultiArrayHeader, layout) == 0, "Float32MultiArrayHeader.layout: offset");
/* The elements of a Float32MultiArray message. */
typedef float nerve_msgs_Float32MultiArray_elem;
/* Float32MultiArray's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_Float32MultiArray_type(nerve_type *out) {
    return nerve_standard_type_checked("Float32MultiArray", UINT64_C(0x0502c9868f3412af), out);
}

/* Fixed part of a multi-array message: 328 bytes, the layout.
 * nerve/Float64MultiArray (328 bytes), ROS 2 std_msgs/msg/Float64MultiArray */
typedef struct nerve_msgs_Float64MultiArrayHeader {
    nerve_msgs_MultiArrayLayout layout;
} nerve_msgs_Float64MultiArrayHeader;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_Float64MultiArrayHeader) == 328, "Float64MultiArrayHeader: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_Float64MultiArrayHeader) == 4, "Float64MultiArrayHeader: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Float64MultiArrayHeader, layout) == 0, "Float64MultiArrayHeader.layout: offset");
/* The elements of a Float64MultiArray message. */
typedef double nerve_msgs_Float64MultiArray_elem;
/* Float64MultiArray's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_Float64MultiArray_type(nerve_type *out) {
    return nerve_standard_type_checked("Float64MultiArray", UINT64_C(0x0b9c0cb074efa514), out);
}

/* Fixed part of a multi-array message: 328 bytes, the layout.
 * nerve/Int8MultiArray (328 bytes), ROS 2 std_msgs/msg/Int8MultiArray */
typedef struct nerve_msgs_Int8MultiArrayHeader {
    nerve_msgs_MultiArrayLayout layout;
} nerve_msgs_Int8MultiArrayHeader;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_Int8MultiArrayHeader) == 328, "Int8MultiArrayHeader: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_Int8MultiArrayHeader) == 4, "Int8MultiArrayHeader: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Int8MultiArrayHeader, layout) == 0, "Int8MultiArrayHeader.layout: offset");
/* The elements of a Int8MultiArray message. */
typedef int8_t nerve_msgs_Int8MultiArray_elem;
/* Int8MultiArray's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_Int8MultiArray_type(nerve_type *out) {
    return nerve_standard_type_checked("Int8MultiArray", UINT64_C(0x5524062265e184bf), out);
}

/* Fixed part of a multi-array message: 328 bytes, the layout.
 * nerve/Int16MultiArray (328 bytes), ROS 2 std_msgs/msg/Int16MultiArray */
typedef struct nerve_msgs_Int16MultiArrayHeader {
    nerve_msgs_MultiArrayLayout layout;
} nerve_msgs_Int16MultiArrayHeader;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_Int16MultiArrayHeader) == 328, "Int16MultiArrayHeader: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_Int16MultiArrayHeader) == 4, "Int16MultiArrayHeader: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Int16MultiArrayHeader, layout) == 0, "Int16MultiArrayHeader.layout: offset");
/* The elements of a Int16MultiArray message. */
typedef int16_t nerve_msgs_Int16MultiArray_elem;
/* Int16MultiArray's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_Int16MultiArray_type(nerve_type *out) {
    return nerve_standard_type_checked("Int16MultiArray", UINT64_C(0x37d1699f8a58607b), out);
}

/* Fixed part of a multi-array message: 328 bytes, the layout.
 * nerve/Int32MultiArray (328 bytes), ROS 2 std_msgs/msg/Int32MultiArray */
typedef struct nerve_msgs_Int32MultiArrayHeader {
    nerve_msgs_MultiArrayLayout layout;
} nerve_msgs_Int32MultiArrayHeader;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_Int32MultiArrayHeader) == 328, "Int32MultiArrayHeader: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_Int32MultiArrayHeader) == 4, "Int32MultiArrayHeader: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Int32MultiArrayHeader, layout) == 0, "Int32MultiArrayHeader.layout: offset");
/* The elements of a Int32MultiArray message. */
typedef int32_t nerve_msgs_Int32MultiArray_elem;
/* Int32MultiArray's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_Int32MultiArray_type(nerve_type *out) {
    return nerve_standard_type_checked("Int32MultiArray", UINT64_C(0x9cdc839906118bf6), out);
}

/* Fixed part of a multi-array message: 328 bytes, the layout.
 * nerve/Int64MultiArray (328 bytes), ROS 2 std_msgs/msg/Int64MultiArray */
typedef struct nerve_msgs_Int64MultiArrayHeader {
    nerve_msgs_MultiArrayLayout layout;
} nerve_msgs_Int64MultiArrayHeader;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_Int64MultiArrayHeader) == 328, "Int64MultiArrayHeader: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_Int64MultiArrayHeader) == 4, "Int64MultiArrayHeader: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Int64MultiArrayHeader, layout) == 0, "Int64MultiArrayHeader.layout: offset");
/* The elements of a Int64MultiArray message. */
typedef int64_t nerve_msgs_Int64MultiArray_elem;
/* Int64MultiArray's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_Int64MultiArray_type(nerve_type *out) {
    return nerve_standard_type_checked("Int64MultiArray", UINT64_C(0x7fc775113bf5c34f), out);
}

/* Fixed part of a multi-array message: 328 bytes, the layout.
 * nerve/UInt8MultiArray (328 bytes), ROS 2 std_msgs/msg/UInt8MultiArray */
typedef struct nerve_msgs_UInt8MultiArrayHeader {
    nerve_msgs_MultiArrayLayout layout;
} nerve_msgs_UInt8MultiArrayHeader;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_UInt8MultiArrayHeader) == 328, "UInt8MultiArrayHeader: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_UInt8MultiArrayHeader) == 4, "UInt8MultiArrayHeader: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_UInt8MultiArrayHeader, layout) == 0, "UInt8MultiArrayHeader.layout: offset");
/* The elements of a UInt8MultiArray message. */
typedef uint8_t nerve_msgs_UInt8MultiArray_elem;
/* UInt8MultiArray's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_UInt8MultiArray_type(nerve_type *out) {
    return nerve_standard_type_checked("UInt8MultiArray", UINT64_C(0xeb4b5db3c66efaaa), out);
}

/* Fixed part of a multi-array message: 328 bytes, the layout.
 * nerve/UInt16MultiArray (328 bytes), ROS 2 std_msgs/msg/UInt16MultiArray */
typedef struct nerve_msgs_UInt16MultiArrayHeader {
    nerve_msgs_MultiArrayLayout layout;
} nerve_msgs_UInt16MultiArrayHeader;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_UInt16MultiArrayHeader) == 328, "UInt16MultiArrayHeader: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_UInt16MultiArrayHeader) == 4, "UInt16MultiArrayHeader: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_UInt16MultiArrayHeader, layout) == 0, "UInt16MultiArrayHeader.layout: offset");
/* The elements of a UInt16MultiArray message. */
typedef uint16_t nerve_msgs_UInt16MultiArray_elem;
/* UInt16MultiArray's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_UInt16MultiArray_type(nerve_type *out) {
    return nerve_standard_type_checked("UInt16MultiArray", UINT64_C(0x3893844a4bdd4b9e), out);
}

/* Fixed part of a multi-array message: 328 bytes, the layout.
 * nerve/UInt32MultiArray (328 bytes), ROS 2 std_msgs/msg/UInt32MultiArray */
typedef struct nerve_msgs_UInt32MultiArrayHeader {
    nerve_msgs_MultiArrayLayout layout;
} nerve_msgs_UInt32MultiArrayHeader;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_UInt32MultiArrayHeader) == 328, "UInt32MultiArrayHeader: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_UInt32MultiArrayHeader) == 4, "UInt32MultiArrayHeader: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_UInt32MultiArrayHeader, layout) == 0, "UInt32MultiArrayHeader.layout: offset");
/* The elements of a UInt32MultiArray message. */
typedef uint32_t nerve_msgs_UInt32MultiArray_elem;
/* UInt32MultiArray's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_UInt32MultiArray_type(nerve_type *out) {
    return nerve_standard_type_checked("UInt32MultiArray", UINT64_C(0x409457874f0617f1), out);
}

/* Fixed part of a multi-array message: 328 bytes, the layout.
 * nerve/UInt64MultiArray (328 bytes), ROS 2 std_msgs/msg/UInt64MultiArray */
typedef struct nerve_msgs_UInt64MultiArrayHeader {
    nerve_msgs_MultiArrayLayout layout;
} nerve_msgs_UInt64MultiArrayHeader;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_UInt64MultiArrayHeader) == 328, "UInt64MultiArrayHeader: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_UInt64MultiArrayHeader) == 4, "UInt64MultiArrayHeader: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_UInt64MultiArrayHeader, layout) == 0, "UInt64MultiArrayHeader.layout: offset");
/* The elements of a UInt64MultiArray message. */
typedef uint64_t nerve_msgs_UInt64MultiArray_elem;
/* UInt64MultiArray's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_UInt64MultiArray_type(nerve_type *out) {
    return nerve_standard_type_checked("UInt64MultiArray", UINT64_C(0xe0d3093114df8573), out);
}

/* Fixed part of a multi-array message: 328 bytes, the layout.
 * nerve/ByteMultiArray (328 bytes), ROS 2 std_msgs/msg/ByteMultiArray */
typedef struct nerve_msgs_ByteMultiArrayHeader {
    nerve_msgs_MultiArrayLayout layout;
} nerve_msgs_ByteMultiArrayHeader;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_ByteMultiArrayHeader) == 328, "ByteMultiArrayHeader: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_ByteMultiArrayHeader) == 4, "ByteMultiArrayHeader: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_ByteMultiArrayHeader, layout) == 0, "ByteMultiArrayHeader.layout: offset");
/* The elements of a ByteMultiArray message. */
typedef uint8_t nerve_msgs_ByteMultiArray_elem;
/* ByteMultiArray's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_ByteMultiArray_type(nerve_type *out) {
    return nerve_standard_type_checked("ByteMultiArray", UINT64_C(0x5a8d56c3bcd0bcd6), out);
}

/* Fixed part of a [`PointCloud2`]: 776 bytes. At most [`PointCloud2Header::FIELDS_MAX`] point
 * fields; [`PointCloud2Header::set_fields`] refuses more.
 * nerve/PointCloud2 (776 bytes), ROS 2 sensor_msgs/msg/PointCloud2 */
typedef struct nerve_msgs_PointCloud2Header {
    nerve_msgs_Header header;
    uint32_t height;
    uint32_t width;
    uint32_t point_step; /* B */
    uint32_t row_step; /* B */
    uint32_t fields_len;
    uint8_t is_bigendian;
    uint8_t is_dense;
    uint8_t _pad[2];
    nerve_msgs_PointField fields[16];
} nerve_msgs_PointCloud2Header;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_PointCloud2Header) == 776, "PointCloud2Header: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_PointCloud2Header) == 8, "PointCloud2Header: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_PointCloud2Header, header) == 0, "PointCloud2Header.header: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_PointCloud2Header, height) == 48, "PointCloud2Header.height: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_PointCloud2Header, width) == 52, "PointCloud2Header.width: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_PointCloud2Header, point_step) == 56, "PointCloud2Header.point_step: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_PointCloud2Header, row_step) == 60, "PointCloud2Header.row_step: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_PointCloud2Header, fields_len) == 64, "PointCloud2Header.fields_len: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_PointCloud2Header, is_bigendian) == 68, "PointCloud2Header.is_bigendian: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_PointCloud2Header, is_dense) == 69, "PointCloud2Header.is_dense: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_PointCloud2Header, _pad) == 70, "PointCloud2Header._pad: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_PointCloud2Header, fields) == 72, "PointCloud2Header.fields: offset");
/* The elements of a PointCloud2 message. */
typedef uint8_t nerve_msgs_PointCloud2_elem;
/* PointCloud2's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_PointCloud2_type(nerve_type *out) {
    return nerve_standard_type_checked("PointCloud2", UINT64_C(0x45dab9646d079965), out);
}

/* Fixed part of a [`DiagnosticStatus`]: 260 bytes.
 * nerve/DiagnosticStatus (260 bytes), ROS 2 diagnostic_msgs/msg/DiagnosticStatus */
typedef struct nerve_msgs_DiagnosticStatusHeader {
    uint8_t level;
    uint8_t _pad[3];
    char name[64];
    char message[128];
    char hardware_id[64];
} nerve_msgs_DiagnosticStatusHeader;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_DiagnosticStatusHeader) == 260, "DiagnosticStatusHeader: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_DiagnosticStatusHeader) == 1, "DiagnosticStatusHeader: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_DiagnosticStatusHeader, level) == 0, "DiagnosticStatusHeader.level: offset");
#define NERVE_MSGS_DIAGNOSTICSTATUSHEADER_LEVEL_OK (0)
#define NERVE_MSGS_DIAGNOSTICSTATUSHEADER_LEVEL_WARN (1)
#define NERVE_MSGS_DIAGNOSTICSTATUSHEADER_LEVEL_ERROR (2)
#define NERVE_MSGS_DIAGNOSTICSTATUSHEADER_LEVEL_STALE (3)
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_DiagnosticStatusHeader, _pad) == 1, "DiagnosticStatusHeader._pad: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_DiagnosticStatusHeader, name) == 4, "DiagnosticStatusHeader.name: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_DiagnosticStatusHeader, message) == 68, "DiagnosticStatusHeader.message: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_DiagnosticStatusHeader, hardware_id) == 196, "DiagnosticStatusHeader.hardware_id: offset");
/* The elements of a DiagnosticStatus message. */
typedef nerve_msgs_KeyValue nerve_msgs_DiagnosticStatus_elem;
/* DiagnosticStatus's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_DiagnosticStatus_type(nerve_type *out) {
    return nerve_standard_type_checked("DiagnosticStatus", UINT64_C(0x0ff0bb1d28fb4123), out);
}

/* Fixed part of a [`DiagnosticArray`]: 48 bytes.
 * nerve/DiagnosticArray (48 bytes), ROS 2 diagnostic_msgs/msg/DiagnosticArray */
typedef struct nerve_msgs_DiagnosticArrayHeader {
    nerve_msgs_Header header;
} nerve_msgs_DiagnosticArrayHeader;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_DiagnosticArrayHeader) == 48, "DiagnosticArrayHeader: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_DiagnosticArrayHeader) == 8, "DiagnosticArrayHeader: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_DiagnosticArrayHeader, header) == 0, "DiagnosticArrayHeader.header: offset");
/* The elements of a DiagnosticArray message. */
typedef nerve_msgs_DiagnosticEntry nerve_msgs_DiagnosticArray_elem;
/* DiagnosticArray's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_DiagnosticArray_type(nerve_type *out) {
    return nerve_standard_type_checked("DiagnosticArray", UINT64_C(0xff04b54a6c665fc4), out);
}

/* Fixed part of a [`Detection2DArray`]: 48 bytes.
 * nerve/Detection2DArray (48 bytes), ROS 2 vision_msgs/msg/Detection2DArray */
typedef struct nerve_msgs_Detection2DArrayHeader {
    nerve_msgs_Header header;
} nerve_msgs_Detection2DArrayHeader;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_Detection2DArrayHeader) == 48, "Detection2DArrayHeader: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_Detection2DArrayHeader) == 8, "Detection2DArrayHeader: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Detection2DArrayHeader, header) == 0, "Detection2DArrayHeader.header: offset");
/* The elements of a Detection2DArray message. */
typedef nerve_msgs_Detection2D nerve_msgs_Detection2DArray_elem;
/* Detection2DArray's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_Detection2DArray_type(nerve_type *out) {
    return nerve_standard_type_checked("Detection2DArray", UINT64_C(0x74a658bb3ecb3357), out);
}

/* Fixed part of a [`Detection3DArray`]: 48 bytes.
 * nerve/Detection3DArray (48 bytes), ROS 2 vision_msgs/msg/Detection3DArray */
typedef struct nerve_msgs_Detection3DArrayHeader {
    nerve_msgs_Header header;
} nerve_msgs_Detection3DArrayHeader;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_Detection3DArrayHeader) == 48, "Detection3DArrayHeader: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_Detection3DArrayHeader) == 8, "Detection3DArrayHeader: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_Detection3DArrayHeader, header) == 0, "Detection3DArrayHeader.header: offset");
/* The elements of a Detection3DArray message. */
typedef nerve_msgs_Detection3D nerve_msgs_Detection3DArray_elem;
/* Detection3DArray's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_Detection3DArray_type(nerve_type *out) {
    return nerve_standard_type_checked("Detection3DArray", UINT64_C(0xed3844dc7bc53d27), out);
}

/* Fixed part of a [`Marker`]: 456 bytes. `Default` has the identity orientation.
 * nerve/Marker (456 bytes), ROS 2 visualization_msgs/msg/Marker */
typedef struct nerve_msgs_MarkerHeader {
    nerve_msgs_Header header;
    char ns[32];
    int32_t id;
    int32_t marker_type;
    int32_t action;
    uint8_t frame_locked;
    uint8_t uses_point_colors;
    uint8_t mesh_use_embedded_materials;
    uint8_t _pad;
    nerve_msgs_Pose pose;
    nerve_msgs_Vector3 scale; /* m */
    nerve_msgs_ColorRGBA color;
    uint64_t lifetime_ns; /* ns */
    char text[128];
    char mesh_resource[128];
} nerve_msgs_MarkerHeader;
NERVE_MSGS_ASSERT(sizeof(nerve_msgs_MarkerHeader) == 456, "MarkerHeader: size");
NERVE_MSGS_ASSERT(NERVE_ALIGNOF(nerve_msgs_MarkerHeader) == 8, "MarkerHeader: alignment");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_MarkerHeader, header) == 0, "MarkerHeader.header: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_MarkerHeader, ns) == 48, "MarkerHeader.ns: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_MarkerHeader, id) == 80, "MarkerHeader.id: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_MarkerHeader, marker_type) == 84, "MarkerHeader.marker_type: offset");
#define NERVE_MSGS_MARKERHEADER_MARKER_TYPE_ARROW (0)
#define NERVE_MSGS_MARKERHEADER_MARKER_TYPE_CUBE (1)
#define NERVE_MSGS_MARKERHEADER_MARKER_TYPE_SPHERE (2)
#define NERVE_MSGS_MARKERHEADER_MARKER_TYPE_CYLINDER (3)
#define NERVE_MSGS_MARKERHEADER_MARKER_TYPE_LINE_STRIP (4)
#define NERVE_MSGS_MARKERHEADER_MARKER_TYPE_LINE_LIST (5)
#define NERVE_MSGS_MARKERHEADER_MARKER_TYPE_CUBE_LIST (6)
#define NERVE_MSGS_MARKERHEADER_MARKER_TYPE_SPHERE_LIST (7)
#define NERVE_MSGS_MARKERHEADER_MARKER_TYPE_POINTS (8)
#define NERVE_MSGS_MARKERHEADER_MARKER_TYPE_TEXT_VIEW_FACING (9)
#define NERVE_MSGS_MARKERHEADER_MARKER_TYPE_MESH_RESOURCE (10)
#define NERVE_MSGS_MARKERHEADER_MARKER_TYPE_TRIANGLE_LIST (11)
#define NERVE_MSGS_MARKERHEADER_MARKER_TYPE_ARROW_STRIP (12)
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_MarkerHeader, action) == 88, "MarkerHeader.action: offset");
#define NERVE_MSGS_MARKERHEADER_ACTION_ADD (0)
#define NERVE_MSGS_MARKERHEADER_ACTION_DELETE (2)
#define NERVE_MSGS_MARKERHEADER_ACTION_DELETEALL (3)
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_MarkerHeader, frame_locked) == 92, "MarkerHeader.frame_locked: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_MarkerHeader, uses_point_colors) == 93, "MarkerHeader.uses_point_colors: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_MarkerHeader, mesh_use_embedded_materials) == 94, "MarkerHeader.mesh_use_embedded_materials: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_MarkerHeader, _pad) == 95, "MarkerHeader._pad: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_MarkerHeader, pose) == 96, "MarkerHeader.pose: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_MarkerHeader, scale) == 152, "MarkerHeader.scale: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_MarkerHeader, color) == 176, "MarkerHeader.color: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_MarkerHeader, lifetime_ns) == 192, "MarkerHeader.lifetime_ns: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_MarkerHeader, text) == 200, "MarkerHeader.text: offset");
NERVE_MSGS_ASSERT(offsetof(nerve_msgs_MarkerHeader, mesh_resource) == 328, "MarkerHeader.mesh_resource: offset");
/* The elements of a Marker message. */
typedef nerve_msgs_MarkerPoint nerve_msgs_Marker_elem;
/* Marker's nerve_type (NERVE_E_TYPE_MISMATCH when libnerve_c is of another version). */
static inline int32_t nerve_msgs_Marker_type(nerve_type *out) {
    return nerve_standard_type_checked("Marker", UINT64_C(0xdc93794a375b28e9), out);
}

/* X(Type) for every fixed message. */
#define NERVE_MSGS_EACH_FIXED(X) \
    X(Time) \
    X(Header) \
    X(CmdVel) \
    X(Clock) \
    X(Heartbeat) \
    X(Vector3) \
    X(Quaternion) \
    X(Twist) \
    X(Pose2D) \
    X(Pose) \
    X(Transform) \
    X(TransformStamped) \
    X(Imu) \
    X(BatteryState) \
    X(CameraInfo) \
    X(Odometry) \
    X(Bool) \
    X(Int8) \
    X(Int16) \
    X(Int32) \
    X(Int64) \
    X(UInt8) \
    X(UInt16) \
    X(UInt32) \
    X(UInt64) \
    X(Float32) \
    X(Float64) \
    X(ColorRGBA) \
    X(Point) \
    X(Point32) \
    X(PointStamped) \
    X(Vector3Stamped) \
    X(QuaternionStamped) \
    X(PoseStamped) \
    X(PoseWithCovariance) \
    X(PoseWithCovarianceStamped) \
    X(TwistStamped) \
    X(TwistWithCovariance) \
    X(TwistWithCovarianceStamped) \
    X(Wrench) \
    X(WrenchStamped) \
    X(Accel) \
    X(AccelStamped) \
    X(AccelWithCovariance) \
    X(AccelWithCovarianceStamped) \
    X(Inertia) \
    X(InertiaStamped) \
    X(Range) \
    X(Temperature) \
    X(FluidPressure) \
    X(RelativeHumidity) \
    X(Illuminance) \
    X(MagneticField) \
    X(Joy) \
    X(RegionOfInterest) \
    X(MapMetaData) \
    X(BoundingBox2D) \
    X(BoundingBox3D) \
    X(NavSatFix) \
    X(Detection2D) \
    X(Detection3D)

/* X(Type, Header) for every chunked message. */
#define NERVE_MSGS_EACH_CHUNKED(X) \
    X(LaserScan, LaserScanHeader) \
    X(Image, ImageHeader) \
    X(DepthImage, DepthImageHeader) \
    X(PointCloud, PointCloudHeader) \
    X(Text, TextHeader) \
    X(Polygon, PolygonHeader) \
    X(PolygonStamped, PolygonStampedHeader) \
    X(CompressedImage, CompressedImageHeader) \
    X(OccupancyGrid, OccupancyGridHeader) \
    X(Path, PathHeader) \
    X(TFMessage, TFMessageHeader) \
    X(Tensor, TensorHeader) \
    X(JointState, JointStateHeader) \
    X(Float32MultiArray, Float32MultiArrayHeader) \
    X(Float64MultiArray, Float64MultiArrayHeader) \
    X(Int8MultiArray, Int8MultiArrayHeader) \
    X(Int16MultiArray, Int16MultiArrayHeader) \
    X(Int32MultiArray, Int32MultiArrayHeader) \
    X(Int64MultiArray, Int64MultiArrayHeader) \
    X(UInt8MultiArray, UInt8MultiArrayHeader) \
    X(UInt16MultiArray, UInt16MultiArrayHeader) \
    X(UInt32MultiArray, UInt32MultiArrayHeader) \
    X(UInt64MultiArray, UInt64MultiArrayHeader) \
    X(ByteMultiArray, ByteMultiArrayHeader) \
    X(PointCloud2, PointCloud2Header) \
    X(DiagnosticStatus, DiagnosticStatusHeader) \
    X(DiagnosticArray, DiagnosticArrayHeader) \
    X(Detection2DArray, Detection2DArrayHeader) \
    X(Detection3DArray, Detection3DArrayHeader) \
    X(Marker, MarkerHeader)

/* X(Type) for every struct that messages nest. */
#define NERVE_MSGS_EACH_STRUCT(X) \
    X(JointSample) \
    X(PointXYZ) \
    X(PointXYZI) \
    X(PointXYZRGB) \
    X(MultiArrayDimension) \
    X(MultiArrayLayout) \
    X(NavSatStatus) \
    X(PointField) \
    X(KeyValue) \
    X(DiagnosticEntry) \
    X(ObjectHypothesis) \
    X(ObjectHypothesisWithPose) \
    X(MarkerPoint)

#endif /* NERVE_MSGS_H */
