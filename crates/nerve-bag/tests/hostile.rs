//! Recordings are hostile input: a file whose channel metadata lies (an unknown kind, sizes that
//! do not fit, a message shorter than its header, missing keys) is refused with an error naming
//! the topic, by the player and the reader alike, never a panic.

use std::collections::BTreeMap;

use mcap::records::MessageHeader;
use nerve_bag::file::read_all;
use nerve_bag::play::{play, Control, PlayOptions};
use nerve_bag::TopicMeta;
use nerve_testing::domain;

fn meta_of(kind: u32, size: u32) -> BTreeMap<String, String> {
    let mut m = TopicMeta {
        stored_type: nerve::raw::stored_type::<nerve::msgs::CmdVel>(),
        reliability: nerve::Reliability::BestEffort,
        depth: 16,
        max_payload_bytes: 1024,
    };
    m.stored_type.kind = kind;
    m.stored_type.size = size;
    m.to_metadata()
}

#[test]
fn lying_recordings_are_errors_naming_the_topic() {
    let (d, _g) = domain();
    let dir = std::env::temp_dir().join(format!("nerve-bag-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut missing = meta_of(1, 16);
    missing.remove("nerve.size");
    let cases: Vec<(&str, BTreeMap<String, String>, Vec<u8>)> = vec![
        ("lie/kind", meta_of(99, 16), vec![0; 16]),
        ("lie/size", meta_of(1, u32::MAX), vec![0; 16]),
        ("lie/short", meta_of(2, 4096), vec![0; 10]),
        ("lie/missing", missing, vec![0; 16]),
    ];
    for (topic, metadata, data) in cases {
        let path = dir.join(format!("{}.mcap", topic.replace('/', "_")));
        let mut w = mcap::Writer::new(std::io::BufWriter::new(
            std::fs::File::create(&path).unwrap(),
        ))
        .unwrap();
        let schema = w
            .add_schema("nerve/CmdVel", "nerve.description", &[])
            .unwrap();
        let channel = w.add_channel(schema, topic, "nerve", &metadata).unwrap();
        let header = MessageHeader {
            channel_id: channel,
            sequence: 0,
            log_time: 1,
            publish_time: 1,
        };
        w.write_to_known_channel(&header, &data).unwrap();
        w.finish().unwrap();
        drop(w);
        let opts = PlayOptions {
            domain: d,
            ..PlayOptions::default()
        };
        let e = play(&path, &opts, |_| Control::Continue).expect_err(topic);
        assert!(
            e.to_string().contains(topic.rsplit('/').next().unwrap()),
            "{topic}: {e}"
        );
        if topic != "lie/size" && topic != "lie/kind" {
            assert!(read_all(&path).is_err(), "{topic}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A valid recording of `n` CmdVel messages, uncompressed.
fn small_recording(path: &std::path::Path, n: u64) {
    let meta = meta_of(1, 16);
    let mut w = mcap::WriteOptions::new()
        .compression(None)
        .create(std::io::BufWriter::new(
            std::fs::File::create(path).unwrap(),
        ))
        .unwrap();
    let schema = w
        .add_schema("nerve/CmdVel", "nerve.description", &[])
        .unwrap();
    let channel = w.add_channel(schema, "cmd", "nerve", &meta).unwrap();
    for i in 0..n {
        let header = MessageHeader {
            channel_id: channel,
            sequence: i as u32,
            log_time: i,
            publish_time: i,
        };
        w.write_to_known_channel(&header, &[i as u8; 16]).unwrap();
    }
    w.finish().unwrap();
}

/// Every reader of a recording (reader, player, info, recover) on a damaged file: an error
/// or what the file still holds, never a panic, an abort or a huge allocation. The damage: each
/// top-level record's length field claiming 2^62 bytes, the file cut at every 1/16th, and a
/// file that is not MCAP at all.
#[test]
fn damaged_recordings_are_errors_not_crashes() {
    let (d, _g) = domain();
    let dir = std::env::temp_dir().join(format!("nerve-bag-damaged-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("good.mcap");
    small_recording(&good, 50);
    let bytes = std::fs::read(&good).unwrap();
    let mut damaged: Vec<(String, Vec<u8>)> = vec![("not-mcap".into(), b"hello, robot".to_vec())];
    // Walk the top-level records: opcode (1 byte), length (u64), content.
    let mut at = mcap::MAGIC.len();
    while at + 9 <= bytes.len() {
        let len = u64::from_le_bytes(bytes[at + 1..at + 9].try_into().unwrap()) as usize;
        let mut b = bytes.clone();
        b[at + 1..at + 9].copy_from_slice(&(1u64 << 62).to_le_bytes());
        damaged.push((format!("length-lie-at-{at}"), b));
        at += 9 + len;
    }
    assert!(damaged.len() > 5, "the walk found the records");
    for k in 1..16 {
        damaged.push((format!("cut-{k}"), bytes[..bytes.len() * k / 16].to_vec()));
    }
    let opts = PlayOptions {
        domain: d,
        rate: 1000.0,
        ..PlayOptions::default()
    };
    for (name, b) in damaged {
        let path = dir.join(format!("{name}.mcap"));
        std::fs::write(&path, &b).unwrap();
        let read = read_all(&path);
        let played = play(&path, &opts, |_| Control::Continue);
        let info = nerve_bag::inspect::info(&path);
        let recovered = nerve_bag::inspect::recover(&path, &dir.join("out.mcap"), None);
        if name == "not-mcap" {
            let errors = [
                read.map(|_| ()),
                played.map(|_| ()),
                info.map(|_| ()),
                recovered.map(|_| ()),
            ];
            for e in errors {
                let e = e.expect_err("a file that is not MCAP is refused");
                assert!(e.to_string().contains("not an MCAP file"), "{e}");
            }
            continue;
        }
        // What recovery copies is a prefix of the original, message for message.
        if let Ok(r) = recovered {
            let back = read_all(&dir.join("out.mcap")).unwrap();
            assert_eq!(back.len() as u64, r.messages, "{name}");
            for (i, m) in back.iter().enumerate() {
                assert_eq!(m.fixed, vec![i as u8; 16], "{name}: message {i}");
            }
        }
        if let Ok(all) = read {
            assert!(all.len() <= 50, "{name}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The reader's bound on a record is not the file's size: a compressed message may be larger
/// than the whole file (8 MiB of zeros in a file of a few KiB) and still reads back.
#[test]
fn a_compressed_message_larger_than_its_file_reads_back() {
    let dir = std::env::temp_dir().join(format!("nerve-bag-zeros-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("zeros.mcap");
    let mut meta = meta_of(2, 16);
    meta.insert("nerve.max_payload_bytes".into(), (8u64 << 20).to_string());
    let mut w = mcap::WriteOptions::new()
        .compression(Some(mcap::Compression::Zstd))
        .create(std::io::BufWriter::new(
            std::fs::File::create(&path).unwrap(),
        ))
        .unwrap();
    let schema = w.add_schema("big", "nerve.description", &[]).unwrap();
    let channel = w.add_channel(schema, "zeros", "nerve", &meta).unwrap();
    let header = MessageHeader {
        channel_id: channel,
        sequence: 0,
        log_time: 1,
        publish_time: 1,
    };
    let message = vec![0u8; 8 << 20];
    w.write_to_known_channel(&header, &message).unwrap();
    w.finish().unwrap();
    drop(w);
    let file_len = std::fs::metadata(&path).unwrap().len();
    assert!(file_len < 1 << 20, "{file_len}");
    let back = read_all(&path).unwrap();
    assert_eq!(back.len(), 1);
    assert_eq!(back[0].payload.len(), (8 << 20) - 64);
    let _ = std::fs::remove_dir_all(&dir);
}
