//! realtime_control: a 500 Hz controller that reads an IMU and commands the wheels, run by
//! nerve's scheduler, which keeps it on time and says when it is not.
//!
//! ```sh
//! cargo run -p nerve-examples --bin realtime_control
//! ```
//!
//! Ticks are planned on an absolute timeline (tick k at start + k·period), so lateness never
//! accumulates; every tick is measured against its planned start and a tick that ends after
//! its deadline counts as a miss. On a real robot, `.class(ExecClass::Rt { priority: 80, cpu:
//! Some(1) })` asks for SCHED_FIFO on a pinned CPU (and says what the OS refused).
use std::time::Duration;

use nerve::exec::{Context, MissPolicy, Node, Scheduler};
use nerve::msgs::{CmdVel, Header, Imu};
use nerve::{Publisher, Subscriber, Topic};

/// The IMU driver: publishes a yaw rate that oscillates.
struct ImuDriver {
    imu: Publisher<Imu>,
    seq: u64,
}

impl Node for ImuDriver {
    fn name(&self) -> &str {
        "imu_driver"
    }
    fn tick(&mut self, ctx: &mut Context<'_>) {
        let header =
            Header::new(nerve::time::now_ns(), self.seq, "imu_link").expect("frame id fits");
        let mut imu = Imu {
            header,
            ..Imu::default()
        };
        imu.angular_velocity.z = (ctx.now().as_secs_f64() * 3.0).sin();
        let _ = self.imu.send(&imu);
        self.seq += 1;
    }
}

/// The controller: holds the heading by commanding the opposite of the measured yaw rate; in
/// safe state (an e-stop anywhere) it commands zero.
struct Controller {
    imu: Subscriber<Imu>,
    cmd: Publisher<CmdVel>,
    yaw_rate: f64,
}

impl Node for Controller {
    fn name(&self) -> &str {
        "controller"
    }
    fn tick(&mut self, ctx: &mut Context<'_>) {
        // Take the newest IMU reading there is, without blocking the loop.
        while let Ok(Some(imu)) = self.imu.try_recv() {
            self.yaw_rate = imu.angular_velocity.z;
        }
        let angular = if ctx.in_safe_state() {
            0.0
        } else {
            -0.8 * self.yaw_rate
        } as f32;
        let _ = self.cmd.send(&CmdVel {
            stamp_ns: nerve::time::now_ns(),
            linear: 0.5,
            angular,
        });
    }
    fn on_safe_state(&mut self, _ctx: &mut Context<'_>) {
        let _ = self.cmd.send(&CmdVel::default());
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let imu_topic = Topic::<Imu>::builder("robot/imu").depth(64).open()?;
    let cmd_topic = Topic::<CmdVel>::builder("robot/cmd_vel").depth(64).open()?;
    let mut wheels = cmd_topic.subscriber()?; // stands in for the motor driver

    let mut sched = Scheduler::builder()
        .print_stats(false)
        .node(ImuDriver {
            imu: imu_topic.publisher()?,
            seq: 0,
        })
        .rate(1000.0)
        .order(0) // due at the same instant as the controller: runs first
        .node(Controller {
            imu: imu_topic.subscriber()?,
            cmd: cmd_topic.publisher()?,
            yaw_rate: 0.0,
        })
        .rate(500.0)
        .order(1)
        .deadline(Duration::from_millis(1))
        .on_miss(MissPolicy::Warn)
        .build()?;
    sched.run_for(Duration::from_secs(1))?;
    println!("{}", sched.stats_table());

    let stats = sched.stats();
    let controller = stats
        .iter()
        .find(|s| s.name == "controller")
        .expect("controller stats");
    let mut commands = 0;
    while let Ok(Some(cmd)) = wheels.try_recv() {
        assert!(
            cmd.angular.abs() <= 0.8 + 1e-9,
            "command out of range: {cmd:?}"
        );
        commands += 1;
    }
    // A loaded 2-core machine may skip ticks; most of the 500 must still run and command.
    assert!(
        controller.ticks() >= 250,
        "only {} controller ticks",
        controller.ticks()
    );
    assert!(
        commands >= 60,
        "only {commands} commands reached the wheels (ring depth 64)"
    );
    println!(
        "ok: controller ran {} ticks at 500 Hz, {} missed their deadline",
        controller.ticks(),
        controller.misses
    );
    Ok(())
}
