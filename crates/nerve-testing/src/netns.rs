//! Hosts on one machine, for tests and benchmarks of what crosses a network: a network
//! namespace per host, each with a veth into a switch namespace (a Linux bridge), addresses
//! 10.77.0.1, .2, ...; each host its own nerve shared-memory directory, so nerve on one host
//! never sees another's topics except through a bridge. Everything is removed when the `Net`
//! drops. Needs root (or CAP_NET_ADMIN); [`Net::new`] says why when it cannot.

use std::path::PathBuf;
use std::process::{Child, Command};

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
    /// The hosts, by index.
    pub hosts: Vec<Host>,
    /// A scratch directory (logs, files the hosts share).
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
            // Multicast leaves by the veth (discovery protocols such as DDS's use it).
            ip(&["-n", &ns, "route", "add", "224.0.0.0/4", "dev", &dev])?;
        }
        Ok(net)
    }

    /// Takes host `i`'s link down or up.
    pub fn link(&self, i: usize, up: bool) {
        let h = &self.hosts[i];
        let state = if up { "up" } else { "down" };
        ip(&["-n", &h.ns, "link", "set", &h.dev, state]).expect("set a link up or down");
    }

    /// `program` run on host `i`: in its namespace, with its shared memory and domain 0.
    pub fn command(&self, i: usize, program: &str) -> Command {
        let h = &self.hosts[i];
        let mut c = Command::new("ip");
        c.args(["netns", "exec", &h.ns, program])
            .env("NERVE_SHM_DIR", &h.shm)
            .env("NERVE_DOMAIN", "0");
        c
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

/// A process started for a test or benchmark: killed and reaped when dropped (a failing test
/// leaves none behind).
pub struct Proc(pub Child);

impl Proc {
    /// Its pid.
    pub fn id(&self) -> u32 {
        self.0.id()
    }

    /// Ends it with SIGINT (it finishes its own way) and reaps it.
    pub fn interrupt(mut self) {
        // SAFETY: kill(2) with a pid this process started and has not reaped.
        unsafe { libc::kill(self.0.id() as i32, libc::SIGINT) };
        let _ = self.0.wait();
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
