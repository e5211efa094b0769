//! The two processes of the demo graph that `nerve demo` starts: the **sensor** (Imu at
//! 1 kHz, LaserScan at 10 Hz, a 640×480 rgb8 Image at 30 Hz, each a node on the scheduler)
//! and the **controller** (an event node woken by each Imu message, publishing CmdVel at a
//! tenth of its rate, its top speed and stop distance parameters anyone can set while it
//! runs). The scheduler handles SIGINT/SIGTERM in these processes: every node's
//! shutdown runs.

use std::time::Duration;

use nerve::exec::{Context, ExecClass, FailurePolicy, MissPolicy, Node, Scheduler};
use nerve::exec::{Inbox, TopicSource};
use nerve::msgs::{CmdVel, Encoding, Header, Image, ImageHeader, Imu, LaserScan, LaserScanHeader};
use nerve::rpc::{ParamDescriptor, Parameters};
use nerve::time::now_ns;
use nerve::Topic;

/// The sensor process: three nodes on the scheduler.
pub fn sensor(domain: u32, rt: bool) -> anyhow::Result<()> {
    let imu = ImuNode {
        publisher: Topic::<Imu>::builder("demo/imu")
            .domain(domain)
            .depth(64)
            .open()?
            .publisher()?,
        seq: 0,
    };
    let scan = ScanNode {
        publisher: Topic::<LaserScan>::builder("demo/scan")
            .domain(domain)
            .depth(8)
            .open()?
            .publisher()?,
        seq: 0,
    };
    let camera = CameraNode {
        publisher: Topic::<Image>::builder("demo/image")
            .domain(domain)
            .depth(4)
            .open()?
            .publisher()?,
        seq: 0,
    };
    let mut b = Scheduler::builder()
        .domain(domain)
        .estop_topic(Some(domain))
        .node(imu)
        .rate(1000.0)
        .order(0) // first in every tick of the compute lane, before the camera's frame fill
        .on_miss(MissPolicy::Warn);
    if rt {
        b = b.class(ExecClass::Rt {
            priority: 80,
            cpu: Some(1),
        });
    }
    let mut sched = b
        .node(scan)
        .rate(10.0)
        .node(camera)
        .rate(30.0)
        .on_panic(FailurePolicy::Restart {
            max: 3,
            backoff: Duration::from_millis(100),
        })
        .build()?;
    run_sched(&mut sched)
}

/// Runs until SIGINT/SIGTERM (from `nerve demo` when it stops, or from the kernel when it
/// dies), every node's shutdown included.
fn run_sched(sched: &mut Scheduler) -> anyhow::Result<()> {
    sched.run()?;
    Ok(())
}

struct ImuNode {
    publisher: nerve::Publisher<Imu>,
    seq: u64,
}

impl Node for ImuNode {
    fn name(&self) -> &str {
        "imu_driver"
    }
    fn tick(&mut self, _ctx: &mut Context<'_>) {
        let t = self.seq as f64 * 1e-3;
        let Ok(header) = Header::new(now_ns(), self.seq, "imu_link") else {
            return;
        };
        let mut imu = Imu {
            header,
            ..Imu::default()
        };
        imu.angular_velocity.z = 0.3 * (t * 0.5).sin();
        imu.linear_acceleration.z = 9.81;
        if let Err(e) = self.publisher.send(&imu) {
            tracing::warn!("imu: {e}");
        }
        self.seq += 1;
    }
}

struct ScanNode {
    publisher: nerve::Publisher<LaserScan>,
    seq: u64,
}

impl Node for ScanNode {
    fn name(&self) -> &str {
        "lidar_driver"
    }
    fn tick(&mut self, _ctx: &mut Context<'_>) {
        let t = self.seq as f64 * 0.1;
        let mut loan = match self.publisher.loan(LaserScan::SEED_RANGES) {
            Ok(l) => l,
            Err(e) => return tracing::warn!("scan: {e}"),
        };
        let angle_increment = std::f32::consts::TAU / LaserScan::SEED_RANGES as f32;
        let Ok(header) = Header::new(0, self.seq, "laser") else {
            return;
        };
        *loan.header_mut() = LaserScanHeader {
            header,
            angle_min: 0.0,
            angle_max: std::f32::consts::TAU - angle_increment,
            angle_increment,
            time_increment: 0.0,
            scan_time: 0.1,
            range_min: 0.05,
            range_max: 30.0,
            _pad: 0,
        };
        // A wall that comes and goes in front of the robot.
        let wall = 1.5 + (t * 0.3).sin() as f32;
        for (i, r) in loan.data_mut().iter_mut().enumerate() {
            *r = if !(30..330).contains(&i) { wall } else { 10.0 };
        }
        loan.header_mut().header.stamp_ns = now_ns();
        if let Err(e) = loan.send() {
            tracing::warn!("scan: {e}");
        }
        self.seq += 1;
    }
}

struct CameraNode {
    publisher: nerve::Publisher<Image>,
    seq: u64,
}

impl Node for CameraNode {
    fn name(&self) -> &str {
        "camera_driver"
    }
    fn tick(&mut self, _ctx: &mut Context<'_>) {
        let (w, h) = (640u32, 480u32);
        let mut loan = match self.publisher.loan((w * h * 3) as usize) {
            Ok(l) => l,
            Err(e) => return tracing::warn!("camera: {e}"),
        };
        // The "camera" writes the frame straight into shared memory.
        let shift = self.seq as u8;
        for (row, line) in loan.data_mut().chunks_mut((w * 3) as usize).enumerate() {
            line.fill((row as u8).wrapping_add(shift));
        }
        let Ok(header) = Header::new(now_ns(), self.seq, "camera") else {
            return;
        };
        *loan.header_mut() = ImageHeader::new(header, w, h, Encoding::Rgb8);
        if let Err(e) = loan.send() {
            tracing::warn!("camera: {e}");
        }
        self.seq += 1;
    }
}

/// The controller process: one event node, woken by each Imu message (no polling), that
/// publishes CmdVel at a tenth of the Imu rate and slows down near obstacles. In safe state
/// (e-stop) it commands zero velocity.
pub fn controller(domain: u32) -> anyhow::Result<()> {
    let imu_sub = Topic::<Imu>::builder("demo/imu")
        .domain(domain)
        .depth(64)
        .open()?
        .subscriber()?;
    let (source, inbox) = TopicSource::new(imu_sub, 64);
    // Tunable while the robot runs: `nerve param set controller max_speed 0.3`.
    let params = Parameters::with_domain("controller", domain);
    params.declare(
        ParamDescriptor::new("max_speed", 1.0)
            .float_range(0.0, 2.0)
            .description("top speed, m/s"),
    )?;
    params.declare(
        ParamDescriptor::new("stop_distance", 0.8)
            .float_range(0.1, 5.0)
            .description("distance to the nearest obstacle at which the robot stops, m"),
    )?;
    let _served = params.serve()?;
    let node = Controller {
        params,
        imu: inbox,
        scan: Topic::<LaserScan>::builder("demo/scan")
            .domain(domain)
            .depth(8)
            .open()?
            .subscriber()?,
        cmd: Topic::<CmdVel>::builder("demo/cmd_vel")
            .domain(domain)
            .open()?
            .publisher()?,
        nearest: f32::INFINITY,
        imus: 0,
    };
    let mut sched = Scheduler::builder()
        .domain(domain)
        .estop_topic(Some(domain))
        .node(node)
        .wake_on(source)
        .build()?;
    run_sched(&mut sched)
}

struct Controller {
    params: Parameters,
    imu: Inbox<Imu>,
    scan: nerve::Subscriber<LaserScan>,
    cmd: nerve::Publisher<CmdVel>,
    nearest: f32,
    imus: u64,
}

impl Node for Controller {
    fn name(&self) -> &str {
        "controller"
    }
    fn tick(&mut self, ctx: &mut Context<'_>) {
        while let Ok(Some(scan)) = self.scan.try_recv() {
            self.nearest = scan
                .data()
                .iter()
                .copied()
                .filter(|r| r.is_finite())
                .fold(f32::INFINITY, f32::min);
        }
        for imu in self.imu.drain() {
            self.imus += 1;
            if !self.imus.is_multiple_of(10) {
                continue;
            }
            let param = |name: &str, default: f64| {
                self.params
                    .get(name)
                    .and_then(|v| v.as_float())
                    .unwrap_or(default) as f32
            };
            let (max_speed, stop) = (param("max_speed", 1.0), param("stop_distance", 0.8));
            let (linear, angular) = if ctx.in_safe_state() {
                (0.0, 0.0)
            } else {
                (
                    (0.5 * (self.nearest - stop)).clamp(0.0, max_speed),
                    -0.5 * imu.angular_velocity.z as f32,
                )
            };
            if let Err(e) = self.cmd.send(&CmdVel {
                stamp_ns: now_ns(),
                linear,
                angular,
            }) {
                tracing::warn!("controller: {e}");
            }
        }
    }
    fn on_safe_state(&mut self, _ctx: &mut Context<'_>) {
        let _ = self.cmd.send(&CmdVel {
            stamp_ns: now_ns(),
            linear: 0.0,
            angular: 0.0,
        });
    }
}
