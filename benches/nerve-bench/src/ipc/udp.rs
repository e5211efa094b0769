//! `udp`: loopback UDP sockets from `std`, the kernel path. Each subscriber is a socket; each
//! publisher is a socket that sends its message to every subscriber (`P x S` datagrams per
//! step). The echo goes from subscriber 0's socket back to publisher 0's socket.
//!
//! Poll mode: non-blocking sockets, spinning on `WouldBlock`. Blocking mode: blocking `recv_from`
//! (with a read timeout of [`TIMEOUT`]).

use super::payload;
use super::{
    check_echo, check_message, Deadline, EchoSide, Mode, PingSide, Spec, StepTracker, TIMEOUT,
};
use anyhow::{anyhow, bail, Context, Result};
use std::io::ErrorKind;
use std::net::{SocketAddr, UdpSocket};

/// Largest UDP payload over IPv4.
pub const MAX_DATAGRAM: usize = 65_507;

/// Datagrams up to 65,507 bytes; there is no fragmentation layer in this peer.
pub fn supports(spec: &Spec) -> Result<(), String> {
    // A throughput window is sent before the echo reads: past the receive buffer, loopback
    // UDP drops datagrams (the kernel charges up to 2 KiB more than the payload per datagram).
    let in_flight = spec.window as usize * (spec.payload + 2048);
    if spec.window > 1 && in_flight > RECV_BUFFER {
        return Err(format!(
            "not applicable: a window of {} datagrams of {} B overflows the {} KiB socket receive buffer, where UDP drops datagrams",
            spec.window,
            spec.payload,
            RECV_BUFFER >> 10
        ));
    }
    if spec.payload > MAX_DATAGRAM {
        return Err(format!(
            "not applicable: {} B exceeds the {MAX_DATAGRAM} B UDP datagram limit (no fragmentation layer)",
            spec.payload
        ));
    }
    Ok(())
}

/// The receive buffer asked for (`SO_RCVBUF`; the kernel caps it at `net.core.rmem_max`).
const RECV_BUFFER: usize = 4 << 20;

fn socket(mode: Mode) -> Result<UdpSocket> {
    use std::os::fd::AsRawFd;
    let s = UdpSocket::bind("127.0.0.1:0").context("binding a loopback UDP socket")?;
    let size = RECV_BUFFER as libc::c_int;
    // SAFETY: `s` owns a live socket descriptor; `size` outlives the call and its length is
    // passed with it.
    let rc = unsafe {
        libc::setsockopt(
            s.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_RCVBUF,
            std::ptr::from_ref(&size).cast(),
            size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
    if rc != 0 {
        bail!("setting SO_RCVBUF: {}", std::io::Error::last_os_error());
    }
    match mode {
        Mode::Poll => s.set_nonblocking(true)?,
        Mode::Blocking => s.set_read_timeout(Some(TIMEOUT))?,
    }
    Ok(s)
}

/// Receives one datagram into `buf`; returns its length and sender.
#[inline]
fn recv(
    sock: &UdpSocket,
    buf: &mut [u8],
    mode: Mode,
    what: &dyn Fn() -> String,
) -> Result<(usize, SocketAddr)> {
    let mut d = Deadline::new();
    loop {
        match sock.recv_from(buf) {
            Ok(r) => return Ok(r),
            Err(e) if e.kind() == ErrorKind::WouldBlock || e.kind() == ErrorKind::TimedOut => {
                match mode {
                    Mode::Poll => d.tick(what)?,
                    Mode::Blocking => bail!("timed out after {TIMEOUT:?} waiting for {}", what()),
                }
            }
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Err(anyhow!("recv_from: {e} while waiting for {}", what())),
        }
    }
}

struct UdpPing {
    pubs: Vec<UdpSocket>,
    subs: Vec<SocketAddr>,
    buf: Vec<u8>,
    rbuf: Vec<u8>,
    spec: Spec,
    _idle: Vec<UdpSocket>,
}

struct UdpEcho {
    subs: Vec<UdpSocket>,
    trackers: Vec<StepTracker>,
    pong_to: Option<SocketAddr>,
    buf: Vec<u8>,
    rbuf: Vec<u8>,
    spec: Spec,
    _idle: Vec<UdpSocket>,
}

/// Binds the subscriber sockets; the rendezvous is their ports, comma separated.
pub fn echo_side(spec: &Spec) -> Result<(Box<dyn EchoSide>, String)> {
    let subs: Vec<UdpSocket> = (0..spec.subscribers)
        .map(|_| socket(spec.mode))
        .collect::<Result<_>>()?;
    let ports: Vec<String> = subs
        .iter()
        .map(|s| s.local_addr().map(|a| a.port().to_string()))
        .collect::<std::io::Result<_>>()?;
    let idle = (1..spec.topics)
        .map(|_| socket(spec.mode))
        .collect::<Result<_>>()?;
    let echo = UdpEcho {
        trackers: vec![StepTracker::new(spec.publishers); subs.len()],
        subs,
        pong_to: None,
        buf: vec![0; spec.payload],
        rbuf: vec![0; spec.payload + 1],
        spec: spec.clone(),
        _idle: idle,
    };
    Ok((Box::new(echo), ports.join(",")))
}

/// Binds the publisher sockets and aims them at the echo side's subscribers.
pub fn ping_side(spec: &Spec, rendezvous: &str) -> Result<Box<dyn PingSide>> {
    let subs = rendezvous
        .split(',')
        .map(|p| Ok(SocketAddr::from(([127, 0, 0, 1], p.parse::<u16>()?))))
        .collect::<Result<Vec<_>>>()
        .with_context(|| format!("bad UDP rendezvous `{rendezvous}`"))?;
    let pubs = (0..spec.publishers)
        .map(|_| socket(spec.mode))
        .collect::<Result<_>>()?;
    let idle = (1..spec.topics)
        .map(|_| socket(spec.mode))
        .collect::<Result<_>>()?;
    Ok(Box::new(UdpPing {
        pubs,
        subs,
        buf: vec![0; spec.payload],
        rbuf: vec![0; spec.payload + 1],
        spec: spec.clone(),
        _idle: idle,
    }))
}

fn send_all(sock: &UdpSocket, buf: &[u8], to: SocketAddr) -> Result<()> {
    let mut d = Deadline::new();
    loop {
        match sock.send_to(buf, to) {
            Ok(n) if n == buf.len() => return Ok(()),
            Ok(n) => bail!("UDP sent {n} of {} bytes", buf.len()),
            // A full socket buffer on a non-blocking socket: retry.
            Err(e) if e.kind() == ErrorKind::WouldBlock || e.kind() == ErrorKind::Interrupted => {
                d.tick(|| format!("UDP send to {to}"))?
            }
            Err(e) => bail!("UDP send_to {to}: {e}"),
        }
    }
}

impl PingSide for UdpPing {
    fn send(&mut self, seq: u64) -> Result<()> {
        let p = self.pubs.len();
        for i in (1..p).chain(std::iter::once(0)) {
            payload::write(&mut self.buf, seq, i as u32, self.spec.check);
            for to in &self.subs {
                send_all(&self.pubs[i], &self.buf, *to)?;
            }
        }
        Ok(())
    }

    fn recv_echo(&mut self, seq: u64) -> Result<()> {
        let (n, _) = recv(&self.pubs[0], &mut self.rbuf, self.spec.mode, &|| {
            format!("UDP echo {seq}")
        })?;
        check_echo(&self.rbuf[..n], self.spec.check, seq)
    }
}

impl UdpEcho {
    fn drain(&mut self, j: usize, seq: u64) -> Result<()> {
        self.trackers[j].begin(seq);
        while !self.trackers[j].complete() {
            let (n, from) = recv(&self.subs[j], &mut self.rbuf, self.spec.mode, &|| {
                format!("UDP message {seq} on subscriber {j}")
            })?;
            check_message(&self.rbuf[..n], self.spec.check, &mut self.trackers[j])?;
            if j == 0 && payload::header(&self.rbuf[..n]).map(|h| h.1) == Ok(0) {
                self.pong_to = Some(from);
            }
        }
        Ok(())
    }
}

impl EchoSide for UdpEcho {
    fn recv(&mut self, seq: u64) -> Result<()> {
        self.drain(0, seq)
    }

    fn echo(&mut self, seq: u64) -> Result<()> {
        let to = self
            .pong_to
            .ok_or_else(|| anyhow!("no message from publisher 0 yet"))?;
        payload::write(&mut self.buf, seq, 0, self.spec.check);
        send_all(&self.subs[0], &self.buf, to)
    }

    fn drain_others(&mut self, seq: u64) -> Result<()> {
        for j in 1..self.subs.len() {
            self.drain(j, seq)?;
        }
        Ok(())
    }
}
