//! Hosts on one machine for the bridge tests: a network namespace per host, each with a veth
//! into a switch namespace (a Linux bridge), addresses 10.77.0.1, .2, ...; and each host its
//! own shared-memory directory, so nerve on one host never sees another's topics except
//! through the bridge. Everything is removed when the `Net` drops.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::NERVE;

/// Runs `ip args`; an error says what failed.
fn ip(args: &[&str]) -> Result<(), String> {
    let out = Command::new("ip")
        .args(args)
        .output()
        .map_err(|e| format!("cannot run `ip` (iproute2): {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "`ip {}` failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// One host.
pub struct Host {
    /// Its network namespace.
    pub ns: String,
    /// Its address.
    pub ip: String,
    /// Its veth (inside `ns`).
    pub dev: String,
    /// Its nerve shared-memory directory.
    pub shm: PathBuf,
}

/// Hosts on a switch.
pub struct Net {
    switch: String,
    pub hosts: Vec<Host>,
    /// A scratch directory (logs, go files).
    pub dir: PathBuf,
}

impl Net {
    /// `n` hosts, or why they cannot be made here (the caller skips, printing it). `name`
    /// (a letter) keeps the nets of tests running at once apart.
    pub fn new(n: usize, name: char) -> Result<Net, String> {
        let tag = format!("nz{}{name}", std::process::id() % 100_000);
        let switch = format!("{tag}sw");
        let dir = std::env::temp_dir().join(format!("nerve-net-{tag}"));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        ip(&["netns", "add", &switch])?;
        let mut net = Net {
            switch: switch.clone(),
            hosts: Vec::new(),
            dir,
        };
        ip(&["-n", &switch, "link", "add", "br0", "type", "bridge"])?;
        ip(&["-n", &switch, "link", "set", "br0", "up"])?;
        for i in 0..n {
            let ns = format!("{tag}h{i}");
            let (dev, port) = (format!("{tag}v{i}"), format!("{tag}p{i}"));
            ip(&["netns", "add", &ns])?;
            let shm = PathBuf::from(format!("/dev/shm/nerve-net-{tag}-h{i}"));
            let _ = std::fs::remove_dir_all(&shm);
            std::fs::create_dir_all(&shm).map_err(|e| e.to_string())?;
            net.hosts.push(Host {
                ns: ns.clone(),
                ip: format!("10.77.0.{}", i + 1),
                dev: dev.clone(),
                shm,
            });
            ip(&["link", "add", &dev, "type", "veth", "peer", "name", &port])?;
            ip(&["link", "set", &dev, "netns", &ns])?;
            ip(&["link", "set", &port, "netns", &switch])?;
            ip(&["-n", &switch, "link", "set", &port, "master", "br0", "up"])?;
            let addr = format!("10.77.0.{}/24", i + 1);
            ip(&["-n", &ns, "addr", "add", &addr, "dev", &dev])?;
            ip(&["-n", &ns, "link", "set", &dev, "up"])?;
            ip(&["-n", &ns, "link", "set", "lo", "up"])?;
        }
        Ok(net)
    }

    /// Takes host `i`'s link down or up.
    pub fn link(&self, i: usize, up: bool) {
        let h = &self.hosts[i];
        ip(&[
            "-n",
            &h.ns,
            "link",
            "set",
            &h.dev,
            if up { "up" } else { "down" },
        ])
        .unwrap();
    }

    /// Starts `nerve bridge zenoh` on host `i` (listening on its address, connecting to host
    /// 0's unless it is host 0), its output in `<dir>/bridge-<i>.log`.
    pub fn bridge(&self, i: usize, extra: &[&str]) -> Proc {
        let h = &self.hosts[i];
        let listen = format!("tcp/{}:7447", h.ip);
        let connect = format!("tcp/{}:7447", self.hosts[0].ip);
        let host = format!("h{i}");
        let mut args = vec!["--listen", &listen, "--no-multicast", "--host", &host];
        if i != 0 {
            args.extend(["--connect", &connect]);
        }
        args.extend(extra);
        self.bridge_args(i, &args)
    }

    /// Starts `nerve bridge zenoh ARGS --stats-every 1` on host `i`.
    pub fn bridge_args(&self, i: usize, args: &[&str]) -> Proc {
        let h = &self.hosts[i];
        let mut args: Vec<&str> =
            [&["netns", "exec", &h.ns, NERVE, "bridge", "zenoh"], args].concat();
        args.extend(["--stats-every", "1"]);
        let log = std::fs::File::create(self.log(i)).unwrap();
        Command::new("ip")
            .args(&args)
            .env("NERVE_SHM_DIR", &h.shm)
            .env("NERVE_DOMAIN", "0")
            .env("RUST_LOG", "nerve_zenoh=info")
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .map(Proc)
            .expect("start a bridge")
    }

    /// `nerve ARGS` on host `i` (its shared memory; no network needed): its stdout.
    pub fn nerve(&self, i: usize, args: &[&str]) -> String {
        self.nerve_full(i, args).1
    }

    /// `nerve ARGS` on host `i`: (status, stdout, stderr).
    pub fn nerve_full(&self, i: usize, args: &[&str]) -> (i32, String, String) {
        let out = Command::new(NERVE)
            .args(args)
            .env("NERVE_SHM_DIR", &self.hosts[i].shm)
            .env("NERVE_DOMAIN", "0")
            .env_remove("RUST_LOG")
            .stdin(Stdio::null())
            .output()
            .expect("run nerve");
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    /// Waits until `nerve ARGS` on host `i` prints something containing `text` (or, with
    /// `present` false, stops printing it).
    pub fn wait_nerve(&self, i: usize, args: &[&str], text: &str, present: bool) {
        let end = Instant::now() + Duration::from_secs(20);
        loop {
            let out = self.nerve(i, args);
            if out.contains(text) == present {
                return;
            }
            assert!(
                Instant::now() < end,
                "`nerve {}` on h{i}: {text:?} {}; it printed:\n{out}",
                args.join(" "),
                if present {
                    "never appeared"
                } else {
                    "never went"
                }
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// Bridge `i`'s log.
    pub fn log(&self, i: usize) -> PathBuf {
        self.dir.join(format!("bridge-{i}.log"))
    }

    /// Waits until bridge `i`'s log contains `text` (panics with the log after `within`).
    pub fn wait_log(&self, i: usize, text: &str, within: Duration) {
        let end = Instant::now() + within;
        loop {
            let log = std::fs::read_to_string(self.log(i)).unwrap_or_default();
            if log.contains(text) {
                return;
            }
            assert!(
                Instant::now() < end,
                "bridge {i} never said {text:?}; its log:\n{log}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// A path in the scratch directory.
    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }
}

impl Drop for Net {
    fn drop(&mut self) {
        for h in &self.hosts {
            let _ = ip(&["netns", "del", &h.ns]);
            let _ = std::fs::remove_dir_all(&h.shm);
        }
        let _ = ip(&["netns", "del", &self.switch]);
        if std::env::var_os("KEEP_NET").is_none() {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// A process the test started: killed and reaped when dropped (a failing test leaves none
/// behind).
pub struct Proc(pub Child);

impl Proc {
    /// Its pid.
    pub fn id(&self) -> u32 {
        self.0.id()
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Kills a process (`kill -9`) and reaps it.
pub fn kill(p: Proc) {
    drop(p);
}

/// Ends a bridge with SIGINT (its summary is printed) and reaps it.
pub fn stop(mut p: Proc) {
    // SAFETY: kill(2) with a pid this test started and has not reaped.
    unsafe { libc::kill(p.0.id() as i32, libc::SIGINT) };
    let _ = p.0.wait();
}

/// Whether `path` exists.
pub fn exists(path: &Path) -> bool {
    path.exists()
}
