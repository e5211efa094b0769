//! `nerve record`, `nerve bag info | recover` and `nerve play`, run as a user runs them
//! against a live publisher: Ctrl-C ends a recording with a complete file, a `kill -9`ed one
//! is recovered, and playback reaches a subscriber message for message.

mod common;

use std::process::{Command, Stdio};
use std::time::Duration;

use common::{assert_fails, ok, NERVE};
use nerve::msgs::CmdVel;
use nerve::prelude::*;
use nerve_testing::{domain, process};

/// Child: `publisher` sends CmdVel (linear = its sequence number) at 200 Hz until killed.
#[test]
fn child_entry() {
    let Some(role) = process::role() else { return };
    assert_eq!(role, "publisher");
    let cmd = Topic::<CmdVel>::open("bag/cmd")
        .unwrap()
        .publisher()
        .unwrap();
    println!("READY");
    for i in 0u32.. {
        cmd.send(&CmdVel {
            stamp_ns: nerve::time::now_ns(),
            linear: i as f32,
            angular: 0.5,
        })
        .unwrap();
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn recorder(d: u32, args: &[&str]) -> std::process::Child {
    Command::new(NERVE)
        .arg("record")
        .args(args)
        .env("NERVE_DOMAIN", d.to_string())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

#[test]
fn record_info_recover_and_play() {
    let (d, _g) = domain();
    let dir = std::env::temp_dir().join(format!("nerve-cli-bag-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("run.mcap");
    let f = file.to_str().unwrap();
    let mut publisher = process::spawn_self("child_entry", "publisher", d, &[]);
    publisher.wait_line("READY");

    // Ctrl-C (SIGINT) ends the recording with a complete file and a summary.
    let rec = recorder(d, &["/bag/cmd", "-o", f]);
    std::thread::sleep(Duration::from_millis(1500));
    // SAFETY: kill(2) with a pid we own and a valid signal.
    unsafe { libc::kill(rec.id() as i32, libc::SIGINT) };
    let out = rec.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("bag/cmd") && stdout.contains("0 lost"),
        "{stdout}"
    );
    let info = ok(d, &["bag", "info", f]);
    assert!(info.contains("compression  zstd"), "{info}");
    let line = info.lines().find(|l| l.starts_with("bag/cmd")).unwrap();
    assert!(line.contains("geometry_msgs/msg/Twist"), "{info}");
    let recorded: u64 = line.split_whitespace().nth(2).unwrap().parse().unwrap();
    assert!(recorded > 100, "{info}");

    // kill -9: the file is incomplete, and recover makes a complete copy.
    let killed = dir.join("killed.mcap");
    let mut rec = recorder(
        d,
        &["-a", "-o", killed.to_str().unwrap(), "--compression", "lz4"],
    );
    std::thread::sleep(Duration::from_millis(1800));
    rec.kill().unwrap();
    rec.wait().unwrap();
    assert!(ok(d, &["bag", "info", killed.to_str().unwrap()]).contains("complete     no"));
    let fixed = dir.join("fixed.mcap");
    let out = ok(
        d,
        &[
            "bag",
            "recover",
            killed.to_str().unwrap(),
            "-o",
            fixed.to_str().unwrap(),
        ],
    );
    assert!(out.starts_with("recovered "), "{out}");
    let n: u64 = out.split_whitespace().nth(1).unwrap().parse().unwrap();
    assert!(n > 100, "at least the first second's messages: {out}");
    let info = ok(d, &["bag", "info", fixed.to_str().unwrap()]);
    assert!(!info.contains("complete     no"), "{info}");
    publisher.kill9();

    // Play into another domain: every recorded message, in order.
    let (d2, _g2) = domain();
    let topic = Topic::<CmdVel>::builder("bag/cmd")
        .domain(d2)
        .depth(4096)
        .open()
        .unwrap();
    let mut sub = topic.subscriber().unwrap();
    let out = ok(d2, &["play", f, "--rate", "4"]);
    assert_eq!(out.trim(), format!("played {recorded} messages from {f}"));
    let got: Vec<f32> = std::iter::from_fn(|| sub.try_recv().unwrap())
        .map(|m| m.linear)
        .collect();
    assert_eq!(got.len() as u64, recorded);
    assert!(
        got.windows(2).all(|w| w[1] == w[0] + 1.0),
        "in order, none missing"
    );

    // Errors: one line, naming what is wrong.
    assert_fails(d, &["record"], "say what to record");
    assert_fails(
        d,
        &["record", "-e", "(", "-o", f],
        "is not a regular expression",
    );
    assert_fails(
        d,
        &["bag", "info", "/nonexistent/x.mcap"],
        "/nonexistent/x.mcap",
    );
    assert_fails(d, &["play", "/nonexistent/x.mcap"], "/nonexistent/x.mcap");
    std::fs::write(dir.join("junk.mcap"), b"not an mcap file").unwrap();
    assert_fails(
        d,
        &["bag", "info", dir.join("junk.mcap").to_str().unwrap()],
        "junk.mcap",
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// MCAP's magic, at both ends of a file.
const MAGIC: &[u8] = b"\x89MCAP0\r\n";

/// An MCAP record: opcode, the length it claims, the content it has.
fn record(opcode: u8, claims: u64, content: &[u8]) -> Vec<u8> {
    let mut r = vec![opcode];
    r.extend_from_slice(&claims.to_le_bytes());
    r.extend_from_slice(content);
    r
}

/// The files of the report, which aborted `bag info`, `play` and `bag recover` with `memory
/// allocation of 4294963217 bytes failed` (status 134) or took 1.5 GB: magic, a header record,
/// one record that claims more than the file holds, end magic. Each is now status 1 and one
/// line naming the file and the byte, from each command.
#[test]
fn records_longer_than_their_file_are_one_line_errors() {
    let (d, _g) = domain();
    let dir = std::env::temp_dir().join(format!("nerve-cli-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let empty_strings = [0u8; 8];
    let header = record(0x01, 8, &empty_strings);
    let mut chunk = Vec::new();
    for v in [1u64, 1, 117] {
        chunk.extend_from_slice(&v.to_le_bytes());
    }
    chunk.extend_from_slice(&[0; 8]); // no CRC, no compression
    chunk.extend_from_slice(&117u64.to_le_bytes());
    chunk.extend_from_slice(&[0; 117]);
    let mut schema = 1u16.to_le_bytes().to_vec();
    for s in ["CmdVel", "json", ""] {
        schema.extend_from_slice(&(s.len() as u32).to_le_bytes());
        schema.extend_from_slice(s.as_bytes());
    }
    let cases = [
        (
            "header",
            record(0x01, (4 << 30) - 4096, &empty_strings),
            "at byte 8: a header record claims 4294963200 bytes, but only 16 remain in the file",
        ),
        (
            "chunk",
            [header.clone(), record(0x06, (4 << 30) - 64, &chunk)].concat(),
            "at byte 25: a chunk record claims 4294967232 bytes, but only 165 remain in the file",
        ),
        (
            "schema",
            [header, record(0x03, 3 << 29, &schema)].concat(),
            "at byte 25: a schema record claims 1610612736 bytes, but only 32 remain in the file",
        ),
    ];
    for ((name, records, says), size) in cases.into_iter().zip([33, 199, 66]) {
        let path = dir.join(format!("{name}.mcap"));
        let bytes = [MAGIC, &records, MAGIC].concat();
        assert_eq!(bytes.len(), size, "{name}: the file of the report");
        std::fs::write(&path, bytes).unwrap();
        let f = path.to_str().unwrap();
        let out = dir.join(format!("{name}.recovered.mcap"));
        for args in [
            vec!["bag", "info", f],
            vec!["play", f, "--rate", "1000"],
            vec!["bag", "recover", f, "-o", out.to_str().unwrap()],
        ] {
            let (code, stdout, stderr) = common::nerve(d, &args);
            assert_eq!(code, 1, "{args:?}: {stdout}{stderr}");
            assert_eq!(stderr, format!("error: {f}: {says}\n"), "{args:?}");
            assert_eq!(stdout, "", "{args:?}");
        }
        assert!(!out.exists(), "{name}: no copy of a hostile file");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
