//! A Rust peer for the Python tests: `py_peer echo IN OUT N` receives N CmdVel on IN and
//! re-publishes each (stamp + 1000) on OUT; `py_peer publish OUT N` publishes N CmdVel after
//! waiting for a subscriber; `py_peer serve SERVICE` serves `Plan -> Path` (serde structs,
//! MessagePack with named fields) until killed; `py_peer call SERVICE N` calls a `Plan -> Path`
//! service N times and prints each path's tag; `py_peer wheel IN OUT` receives one
//! `demo/WheelCmd` (the Rust twin of the type the Python tests declare), prints it as JSON and
//! sends it back on OUT with the speed doubled; `py_peer values TOPIC…` joins each topic
//! (created by another process: no compiled type), decodes its latest message generically and
//! prints it as a JSON line; `py_peer standard PREFIX` publishes every standard message, filled
//! with non-default values, on `PREFIX/<type>` and prints each as a JSON line, then waits for
//! its stdin to close. Domain from `$NERVE_DOMAIN`.
use std::time::{Duration, Instant};

use nerve::msgs::described::{KindDoc, TypeDoc, TypeRef};
use nerve::msgs::dynamic::{self, Value};
use nerve::msgs::{CmdVel, Pose};
use nerve::prelude::*;
use nerve::raw::{RawTopic, StoredType};
use nerve::values::ValueCodec;

/// The Rust twin of the Python tests' `@nerve.message("demo/WheelCmd")`.
#[derive(Clone, Copy, Debug, nerve::Message)]
#[message(name = "demo/WheelCmd", default = "zeroed")]
#[repr(C)]
struct WheelCmd {
    stamp_ns: u64,
    speed: f64,
    gains: [f64; 3],
    #[field(text)]
    frame: [u8; 32],
    pose: Pose,
}

/// A value of type `t` with non-default contents (`seed` advances per number).
fn sample(doc: &TypeDoc, t: &TypeRef, seed: &mut u64) -> Value {
    *seed += 1;
    let n = *seed;
    match t {
        TypeRef::Bool => Value::Bool(n % 2 == 1),
        TypeRef::U8 | TypeRef::U16 | TypeRef::U32 | TypeRef::U64 => Value::UInt(n % 120 + 1),
        TypeRef::I8 | TypeRef::I16 | TypeRef::I32 | TypeRef::I64 => {
            Value::Int(-((n % 120) as i64) - 1)
        }
        TypeRef::F32 | TypeRef::F64 => Value::Float(n as f64 * 0.25 + 0.5),
        TypeRef::Text { len } => {
            let mut text = format!("t{n}");
            text.truncate(*len as usize - 1);
            Value::Text(text)
        }
        TypeRef::Enum { values, .. } if !values.is_empty() => {
            Value::Text(values[n as usize % values.len()].0.clone())
        }
        TypeRef::Enum { .. } => Value::UInt(0),
        TypeRef::Array { elem, len } => {
            Value::List((0..*len).map(|_| sample(doc, elem, seed)).collect())
        }
        TypeRef::Struct(i) => {
            let s = &doc.structs[*i as usize];
            let fields = s
                .fields
                .iter()
                .filter(|f| !f.padding)
                .map(|f| (f.name.clone(), sample(doc, &f.ty, seed)))
                .collect();
            Value::Struct(fields)
        }
    }
}

/// Sets (or adds) field `name` of struct value `v`.
fn set(v: &mut Value, name: &str, to: Value) {
    if let Value::Struct(fields) = v {
        match fields.iter_mut().find(|(n, _)| n == name) {
            Some(f) => f.1 = to,
            None => fields.push((name.to_owned(), to)),
        }
    }
}

/// A filled message of every standard type: its value as the generic decoder reads it back.
/// Images and clouds get dimensions that agree with their data.
fn standard_samples() -> Vec<(TypeDoc, Value)> {
    let mut seed = 0;
    nerve::msgs::STANDARD
        .iter()
        .map(|schema| {
            let doc = TypeDoc::of(schema);
            let mut v = sample(&doc, &TypeRef::Struct(doc.root), &mut seed);
            if let KindDoc::Chunked(elem) = &doc.root().kind {
                let data: Vec<Value> = (0..12).map(|_| sample(&doc, elem, &mut seed)).collect();
                set(&mut v, dynamic::DATA, Value::List(data));
                match schema.name {
                    "nerve/DepthImage" => {
                        // 2 × 2 pixels of 2 bytes: 8 bytes of data.
                        let data = (0..8).map(|_| sample(&doc, elem, &mut seed)).collect();
                        set(&mut v, dynamic::DATA, Value::List(data));
                        set(&mut v, "encoding", Value::Text("16UC1".into()));
                        set(&mut v, "width", Value::UInt(2));
                        set(&mut v, "height", Value::UInt(2));
                        set(&mut v, "step", Value::UInt(4));
                    }
                    "nerve/Image" => {
                        set(&mut v, "encoding", Value::Text("rgb8".into()));
                        set(&mut v, "width", Value::UInt(2));
                        set(&mut v, "height", Value::UInt(2));
                        set(&mut v, "step", Value::UInt(6));
                    }
                    "nerve/Tensor" => {
                        // 3 × 4 bytes, C-contiguous on the CPU.
                        let dims = [3, 4, 0, 0, 0, 0, 0, 0].map(Value::UInt).to_vec();
                        set(&mut v, "dtype", Value::Text("uint8".into()));
                        set(&mut v, "ndim", Value::UInt(2));
                        set(&mut v, "shape", Value::List(dims));
                        set(&mut v, "strides", Value::List(vec![Value::Int(0); 8]));
                        set(&mut v, "device_type", Value::Text("cpu".into()));
                        set(&mut v, "device_id", Value::UInt(0));
                    }
                    "nerve/PointCloud" => {
                        set(&mut v, "format", Value::Text("xyz".into()));
                        set(&mut v, "width", Value::UInt(1));
                        set(&mut v, "height", Value::UInt(1));
                        set(&mut v, "point_step", Value::UInt(12));
                    }
                    _ => {}
                }
            }
            // As the decoder reads it back (u8 payloads as bytes, f32 rounding).
            let (fixed, payload) = dynamic::encode(&doc, &v).expect("a sample encodes");
            let back = dynamic::decode(&doc, &fixed, &payload, usize::MAX).expect("and decodes");
            (doc, back)
        })
        .collect()
}

fn stored_type_of(doc: &TypeDoc) -> StoredType {
    let schema = nerve::msgs::STANDARD
        .iter()
        .find(|s| s.name == doc.root().name)
        .expect("a standard type");
    nerve::raw::stored_type_of(&schema.fingerprint().expect("a message"))
}

/// `doc` with every code field as its plain integer.
fn without_codes(doc: &TypeDoc) -> TypeDoc {
    fn plain(t: &mut TypeRef) {
        match t {
            TypeRef::Enum { repr, .. } => *t = (**repr).clone(),
            TypeRef::Array { elem, .. } => plain(elem),
            _ => {}
        }
    }
    let mut doc = doc.clone();
    for s in &mut doc.structs {
        for f in &mut s.fields {
            plain(&mut f.ty);
        }
        if let KindDoc::Chunked(e) = &mut s.kind {
            plain(e);
        }
    }
    doc
}

/// Joins `name`, waiting up to 10 s for another process to create it.
fn join(name: &str) -> Result<RawTopic, nerve::OpenError> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        match RawTopic::join(name, nerve::default_domain()) {
            Err(nerve::OpenError::NotFound { .. }) if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(10));
            }
            r => return r,
        }
    }
}

fn wait_for_subscriber(topic: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        let list = nerve::registry::list(nerve::default_domain());
        if list.iter().any(|t| t.name == topic && t.subscribers() > 0) {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!("no subscriber on {topic}");
}

#[derive(serde::Serialize, serde::Deserialize, Debug)]
struct Plan {
    goal: [f64; 2],
    tag: String,
}

#[derive(serde::Serialize, serde::Deserialize, Debug)]
struct Path {
    points: Vec<[f64; 2]>,
    tag: String,
}

fn plan_service(name: &str) -> nerve::rpc::Service<Plan, Path> {
    nerve::rpc::Service::builder(name).build()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some("echo") => {
            let (input, output, n): (&str, &str, u64) = (&args[2], &args[3], args[4].parse()?);
            let t_in = Topic::<CmdVel>::open(input)?;
            let mut sub = t_in.subscriber()?;
            let t_out = Topic::<CmdVel>::open(output)?;
            let publisher = t_out.publisher()?;
            println!("ready");
            for _ in 0..n {
                let m = sub.recv_deadline(Duration::from_secs(10))?;
                publisher.send(&CmdVel {
                    stamp_ns: m.stamp_ns + 1000,
                    ..m
                })?;
            }
        }
        Some("publish") => {
            let (output, n): (&str, u64) = (&args[2], args[3].parse()?);
            let t = Topic::<CmdVel>::builder(output).depth(64).open()?;
            let publisher = t.publisher()?;
            wait_for_subscriber(output);
            for i in 0..n {
                publisher.send(&CmdVel {
                    stamp_ns: i,
                    linear: i as f32 * 0.5,
                    angular: -1.0,
                })?;
            }
        }
        Some("serve") => {
            let _server = plan_service(&args[2])
                .server()
                .workers(2)
                .serve(|p: Plan| {
                    if p.tag == "fail" {
                        return Err("refusing to plan".into());
                    }
                    Ok(Path {
                        points: vec![[0.0, 0.0], p.goal],
                        tag: format!("rust:{}", p.tag),
                    })
                })?;
            println!("ready");
            std::thread::sleep(Duration::from_secs(60));
        }
        Some("call") => {
            let (name, n): (&str, u64) = (&args[2], args[3].parse()?);
            let client = plan_service(name).client()?;
            if !client.raw().wait_for_server(Duration::from_secs(10)) {
                return Err(format!("no server for {name}").into());
            }
            for i in 0..n {
                let path = client.call(
                    &Plan {
                        goal: [i as f64, 1.0],
                        tag: format!("{i}"),
                    },
                    Duration::from_secs(2),
                )?;
                assert_eq!(path.points.last(), Some(&[i as f64, 1.0]), "{path:?}");
                println!("{}", path.tag);
            }
        }
        Some("wheel") => {
            let (input, output) = (&args[2], &args[3]);
            let mut sub = Topic::<WheelCmd>::open(input)?.subscriber()?;
            let out = Topic::<WheelCmd>::open(output)?;
            let publisher = out.publisher()?;
            println!("ready");
            let m = sub.recv_deadline(Duration::from_secs(10))?;
            let doc = TypeDoc::of(WheelCmd::DESCRIPTION.unwrap());
            let v = dynamic::decode(&doc, nerve::msgs::__bytemuck::bytes_of(&m), &[], 0)?;
            println!("{}", serde_json::to_string(&v)?);
            let mut frame = [0u8; 32];
            frame[..4].copy_from_slice(b"rust");
            wait_for_subscriber(output);
            publisher.send(&WheelCmd {
                speed: m.speed * 2.0,
                frame,
                ..m
            })?;
        }
        Some("values") => {
            for name in &args[2..] {
                let topic = join(name)?;
                let codec = ValueCodec::of(&topic)?;
                let mut sub = topic.subscriber(1)?;
                let msg = sub
                    .recv_timeout(Duration::from_secs(10))?
                    .ok_or_else(|| format!("no message on {name}"))?;
                let v = codec.decode(&msg, usize::MAX)?;
                println!("{}", serde_json::json!({"topic": name, "value": v}));
            }
        }
        Some("standard") => {
            let prefix = &args[2];
            let mut keep = Vec::new();
            for (doc, value) in standard_samples() {
                let short = doc
                    .root()
                    .name
                    .rsplit('/')
                    .next()
                    .unwrap_or_default()
                    .to_owned();
                let name = format!("{prefix}/{short}");
                let topic = RawTopic::builder(&name, stored_type_of(&doc))
                    .description(&doc)
                    .depth(2)
                    .open()?;
                let codec = ValueCodec::of(&topic)?;
                let publisher = topic.publisher()?;
                codec.send(&publisher, &value)?;
                // The same value with codes as numbers, as a program without the code names
                // (Python's message classes) reads it.
                let (fixed, payload) = dynamic::encode(&doc, &value)?;
                let raw = dynamic::decode(&without_codes(&doc), &fixed, &payload, usize::MAX)?;
                println!(
                    "{}",
                    serde_json::json!({
                        "topic": name, "type": doc.root().name, "value": value, "raw": raw
                    })
                );
                keep.push((topic, publisher));
            }
            println!("done");
            // Until the test closes our stdin.
            let _ = std::io::Read::read(&mut std::io::stdin(), &mut [0u8; 1]);
        }
        _ => {
            return Err(
                "usage: py_peer echo IN OUT N | publish OUT N | serve SERVICE | call \
                 SERVICE N | wheel IN OUT | values TOPIC… | standard PREFIX"
                    .into(),
            )
        }
    }
    Ok(())
}
