// EXPERIMENT (not committed): typed vs raw API cross-process ping-pong, 6 MiB chunked poll.
use nerve::msgs::Image;
use nerve::raw::{RawMessage, RawTopic};
use nerve::Topic;
use std::time::Instant;

const N: usize = 6 << 20;

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let (mode, role, n): (&str, &str, u64) = (&a[1], &a[2], a[3].parse().unwrap());
    let d = 777_002;
    let (out, inp) = if role == "ping" { ("rc/a", "rc/b") } else { ("rc/b", "rc/a") };
    let open = |name| Topic::<Image>::builder(name).domain(d).depth(4).max_message_bytes(N + 4096).open().unwrap();
    let (to, ti) = (open(out), open(inp));
    std::thread::sleep(std::time::Duration::from_millis(300));
    let mut samples = Vec::new();
    if mode == "typed" {
        let p = to.publisher().unwrap();
        let mut s = ti.subscriber().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(300));
        for i in 0..n {
            let t0 = Instant::now();
            let send = |seq: u64| {
                let mut l = p.loan(N).unwrap();
                l.header_mut().width = seq as u32;
                let d = l.data_mut(); for k in 0..64 { d[k] = seq as u8; d[N - 64 + k] = seq as u8; }
                l.send().unwrap();
            };
            if role == "ping" { send(i); }
            let seq = loop { if let Some(m) = s.try_recv().unwrap() { let d = m.data(); assert_eq!(d[0], d[N-1]); break m.header().width; } };
            if role == "echo" { send(seq as u64); } else { samples.push(t0.elapsed().as_nanos() as u64); }
        }
    } else {
        let ro = RawTopic::join(out, d).unwrap();
        let ri = RawTopic::join(inp, d).unwrap();
        let p = ro.publisher().unwrap();
        let mut s = ri.subscriber(0).unwrap();
        let hl = ro.stored_type().size as usize;
        std::thread::sleep(std::time::Duration::from_millis(300));
        for i in 0..n {
            let t0 = Instant::now();
            let send = |seq: u64| {
                let mut l = p.loan(hl, N).unwrap();
                l.header_mut()[..8].copy_from_slice(&seq.to_le_bytes());
                let d = l.data_mut(); for k in 0..64 { d[k] = seq as u8; d[N - 64 + k] = seq as u8; }
                l.send().unwrap();
            };
            if role == "ping" { send(i); }
            let seq = loop { if let Some(RawMessage::Chunk(m)) = s.try_recv().unwrap() { let d = m.data(); assert_eq!(d[0], d[N-1]); break u64::from_le_bytes(m.header()[..8].try_into().unwrap()); } };
            if role == "echo" { send(seq); } else { samples.push(t0.elapsed().as_nanos() as u64); }
        }
    }
    if role == "ping" { samples.sort(); println!("{mode} one-way p50 {} ns", samples[samples.len()/2]/2); }
}
