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
