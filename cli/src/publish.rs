//! `nerve topic pub`: publish values (YAML or JSON) on any topic, through the description it
//! carries, or on a new topic of a standard type.

use std::time::Instant;

use nerve::msgs::described::TypeDoc;
use nerve::msgs::dynamic::Value;
use nerve::raw::RawTopic;
use nerve::values::ValueCodec;
use nerve::OpenError;

/// Options of `nerve topic pub`.
#[derive(clap::Args)]
pub struct PubArgs {
    /// The topic.
    name: String,
    /// The values, YAML or JSON (`"{linear: 0.5, angular: 0.1}"`); fields left out are zero.
    /// With a type first (`CmdVel "{linear: 0.5}"`) a topic that does not exist is created
    /// with that standard type.
    #[arg(num_args = 1..=2, value_names = ["TYPE", "VALUES"], required = true)]
    words: Vec<String>,
    /// Publish this many times a second (default 1).
    #[arg(short = 'r', long, value_name = "HZ", default_value_t = 1.0,
          value_parser = crate::args::hz)]
    rate: f64,
    /// Publish once and exit.
    #[arg(long)]
    once: bool,
    /// Publish this many times and exit.
    #[arg(short = 't', long = "times", value_name = "N")]
    times: Option<u64>,
}

/// The standard type named `ty` (nerve name, short name or ROS 2 name).
pub fn standard(ty: &str) -> anyhow::Result<&'static nerve::msgs::schema::Schema> {
    nerve::msgs::standard_named(ty)
        .ok_or_else(|| anyhow::anyhow!("no standard type '{ty}' (see `nerve interface list`)"))
}

pub fn publish(domain: u32, args: PubArgs) -> anyhow::Result<()> {
    let name = &args.name;
    let (ty, text) = match args.words.as_slice() {
        [values] => (None, values),
        [ty, values] => (Some(ty.as_str()), values),
        _ => anyhow::bail!("expected [TYPE] VALUES"),
    };
    nerve::document::check(text, "VALUES")?;
    let value: Value = serde_norway::from_str(text).map_err(|e| {
        anyhow::anyhow!("cannot read VALUES for topic '{name}' as YAML or JSON: {e}")
    })?;
    let topic = match (RawTopic::join(name, domain), ty) {
        (Ok(topic), Some(ty)) => {
            let want = standard(ty)?;
            if topic.stored_type().name != want.name {
                anyhow::bail!(
                    "topic '{name}' carries {}, not {}",
                    topic.stored_type().name,
                    want.name
                );
            }
            topic
        }
        (Ok(topic), None) => topic,
        (Err(OpenError::NotFound { .. }), Some(ty)) => {
            let schema = standard(ty)?;
            let fp = schema
                .fingerprint()
                .ok_or_else(|| anyhow::anyhow!("{ty} is a struct, not a message"))?;
            RawTopic::builder(name, nerve::raw::stored_type_of(&fp))
                .domain(domain)
                .description(&TypeDoc::of(schema))
                .open()
                .map_err(anyhow::Error::new)?
        }
        (Err(e), _) => return Err(anyhow::Error::new(e)),
    };
    let codec = ValueCodec::of(&topic).map_err(|e| anyhow::anyhow!("{e}"))?;
    let publisher = topic.publisher().map_err(anyhow::Error::new)?;
    let times = if args.once { Some(1) } else { args.times };
    let period = nerve::time::period(args.rate);
    let start = Instant::now();
    let mut sent = 0u64;
    while times.is_none_or(|t| sent < t) {
        codec
            .send(&publisher, &value)
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        sent += 1;
        if times.is_some_and(|t| sent >= t) {
            break;
        }
        // On an absolute timeline: the rate holds however long a send takes.
        let next = start + period.mul_f64(sent as f64);
        if let Some(wait) = next.checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
    }
    Ok(())
}
