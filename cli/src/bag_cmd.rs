//! `nerve record`, `nerve play` and `nerve bag info | recover`: recordings in MCAP
//! (`nerve_bag`).

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::Context as _;
use nerve_bag::inspect::{info, recover};
use nerve_bag::play::{play, Control, PlayControl, PlayOptions};
use nerve_bag::record::{RecordOptions, Recorder, Selection};

use crate::args;

/// Chunk compression.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum CompressionArg {
    Zstd,
    Lz4,
    None,
}

impl CompressionArg {
    fn get(self) -> Option<nerve_bag::Compression> {
        match self {
            CompressionArg::Zstd => Some(nerve_bag::Compression::Zstd),
            CompressionArg::Lz4 => Some(nerve_bag::Compression::Lz4),
            CompressionArg::None => None,
        }
    }
}

/// Options of `nerve record`.
#[derive(clap::Args)]
pub struct RecordArgs {
    /// The topics to record (leading `/` accepted); they may appear later.
    topics: Vec<String>,
    /// Record every topic, those that appear later included (nerve's own plumbing left out).
    #[arg(short = 'a', long, conflicts_with_all = ["topics", "regex"])]
    all: bool,
    /// Record the topics whose name matches this regular expression.
    #[arg(short = 'e', long, value_name = "REGEX", conflicts_with = "topics")]
    regex: Option<String>,
    /// The file (default: nerve_<UTC date and time>.mcap here).
    #[arg(short = 'o', long, value_name = "PATH")]
    output: Option<PathBuf>,
    /// Start a new file (NAME_0.mcap, NAME_1.mcap, ...) every this many megabytes.
    #[arg(long, value_name = "MB", value_parser = megabytes)]
    split_size: Option<u64>,
    /// Start a new file every this many seconds.
    #[arg(long, value_name = "SECONDS", value_parser = args::run_seconds,
          allow_hyphen_values = true)]
    split_duration: Option<Duration>,
    /// Chunk compression.
    #[arg(long, value_enum, default_value = "zstd")]
    compression: CompressionArg,
    /// Write standard types in nerve's own encoding too (exact bytes, `header.seq` included;
    /// only nerve replays them). Default: as their ROS 2 counterparts, which Foxglove and the
    /// ROS 2 tools read.
    #[arg(long)]
    native: bool,
    /// Stop after this many seconds (default: at Ctrl-C).
    #[arg(long, value_name = "SECONDS", value_parser = args::run_seconds,
          allow_hyphen_values = true)]
    duration: Option<Duration>,
}

fn megabytes(s: &str) -> Result<u64, String> {
    match s.trim().parse::<f64>() {
        Ok(mb) if (1.0..=1e6).contains(&mb) => Ok((mb * 1e6) as u64),
        _ => Err("expected megabytes from 1 to 1000000".into()),
    }
}

/// Options of `nerve play`.
#[derive(clap::Args)]
pub struct PlayArgs {
    /// The recording.
    file: PathBuf,
    /// Speed: 1 as recorded, 2 twice as fast.
    #[arg(short, long, default_value_t = 1.0, value_parser = args::speed, allow_hyphen_values = true)]
    rate: f64,
    /// Play again from the start at the end, until Ctrl-C.
    #[arg(short = 'l', long = "loop")]
    repeat: bool,
    /// Skip this many seconds of the recording's beginning.
    #[arg(long, value_name = "SECONDS", default_value = "0", value_parser = args::any_seconds, allow_hyphen_values = true)]
    start_offset: Duration,
    /// Only these topics.
    #[arg(long, num_args = 1.., value_name = "TOPIC")]
    topics: Vec<String>,
    /// Publish the recording's time on topic `clock` (nerve/Clock) this many times a second.
    #[arg(long, value_name = "HZ", value_parser = args::hz, allow_hyphen_values = true)]
    clock: Option<f64>,
}

#[derive(clap::Subcommand)]
pub enum BagCommand {
    /// What a recording holds: duration, messages, types, sizes, compression, losses, per topic.
    ///
    /// Example: `nerve bag info field_test.mcap`
    Info { file: PathBuf },
    /// Restore a recording whose recorder was killed: every message up to its last complete
    /// chunk, into a new, complete file.
    ///
    /// Example: `nerve bag recover field_test.mcap -o field_test.fixed.mcap`
    Recover {
        file: PathBuf,
        /// The new file (default: FILE with `.recovered.mcap`).
        #[arg(short = 'o', long, value_name = "PATH")]
        output: Option<PathBuf>,
    },
}

/// `nerve_2026-11-24-17-42-05.mcap`, from the UTC time now.
fn default_name() -> PathBuf {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs()) as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    PathBuf::from(format!(
        "nerve_{year:04}-{month:02}-{day:02}-{:02}-{:02}-{:02}.mcap",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    ))
}

fn mb(bytes: u64) -> f64 {
    bytes as f64 / 1e6
}

pub fn record(domain: u32, a: RecordArgs) -> anyhow::Result<()> {
    let selection = match (a.all, &a.regex, a.topics.is_empty()) {
        (true, _, _) => Selection::All,
        (_, Some(r), _) => Selection::Matching(
            regex::Regex::new(r).with_context(|| format!("--regex {r:?} is not a regular expression"))?,
        ),
        (_, None, false) => Selection::Topics(a.topics.clone()),
        (_, None, true) => anyhow::bail!(
            "say what to record: topic names, -a for every topic, or -e REGEX (see `nerve topic list`)"
        ),
    };
    let output = a.output.clone().unwrap_or_else(default_name);
    crate::signals::install();
    let mut r = Recorder::start(RecordOptions {
        domain,
        selection,
        output: output.clone(),
        compression: a.compression.get(),
        split_bytes: a.split_size,
        split_duration: a.split_duration,
        native: a.native,
    })
    .map_err(anyhow::Error::new)?;
    let live = std::io::stderr().is_terminal();
    let start = Instant::now();
    let mut next_status = start + Duration::from_secs(1);
    while !crate::signals::stopped() && a.duration.is_none_or(|d| start.elapsed() < d) {
        if r.poll().map_err(anyhow::Error::new)? == 0 {
            std::thread::sleep(nerve_bag::record::IDLE_SLEEP);
        }
        if live && Instant::now() >= next_status {
            next_status += Duration::from_secs(1);
            let s = r.stats();
            let secs = start.elapsed().as_secs_f64();
            eprint!(
                "\r[{secs:6.0} s] {} topics  {} messages  {:.1} MB  {:.1} MB/s  lost {}   ",
                s.topics,
                s.messages,
                mb(s.bytes),
                mb(s.bytes) / secs,
                s.lost
            );
        }
    }
    if live {
        eprintln!();
    }
    let per_topic = r.per_topic();
    let s = r.finish().map_err(anyhow::Error::new)?;
    for (topic, messages, lost) in &per_topic {
        outln!("{topic:<32} {messages:>10} messages  {lost:>6} lost")?;
    }
    let files: Vec<String> = s.files.iter().map(|f| f.display().to_string()).collect();
    outln!(
        "recorded {} messages ({:.1} MB) on {} topics in {:.1} s, {} lost, into {}",
        s.messages,
        mb(s.bytes),
        s.topics,
        start.elapsed().as_secs_f64(),
        s.lost,
        files.join(", ")
    )
}

/// The terminal in raw mode (keys arrive one by one, unechoed) while it lives.
struct RawTerminal(libc::termios);

impl RawTerminal {
    fn enter() -> Option<RawTerminal> {
        // SAFETY: a zeroed termios is a valid place for tcgetattr to fill; fd 0 is stdin.
        let mut t: libc::termios = unsafe { std::mem::zeroed() };
        // SAFETY: as above.
        if unsafe { libc::tcgetattr(0, &mut t) } != 0 {
            return None;
        }
        let saved = t;
        // Keys one at a time, not echoed; Ctrl-C still signals (ISIG stays).
        t.c_lflag &= !(libc::ICANON | libc::ECHO);
        // SAFETY: `t` is a valid termios for stdin.
        (unsafe { libc::tcsetattr(0, libc::TCSANOW, &t) } == 0).then_some(RawTerminal(saved))
    }
}

impl Drop for RawTerminal {
    fn drop(&mut self) {
        // SAFETY: restores the settings read in `enter`.
        unsafe { libc::tcsetattr(0, libc::TCSANOW, &self.0) };
    }
}

/// Space pauses and resumes, → publishes one message while paused.
fn keys(control: PlayControl) {
    use std::io::Read;
    let mut stdin = std::io::stdin();
    let mut b = [0u8; 1];
    let mut escape = 0;
    while stdin.read(&mut b).is_ok_and(|n| n == 1) {
        match (escape, b[0]) {
            (_, b' ') => {
                control.toggle();
                escape = 0;
            }
            (0, 0x1b) => escape = 1,
            (1, b'[') => escape = 2,
            (2, b'C') => {
                control.step();
                escape = 0;
            }
            _ => escape = 0,
        }
    }
}

pub fn play_file(domain: u32, a: PlayArgs) -> anyhow::Result<()> {
    crate::signals::install();
    let control = PlayControl::default();
    let _raw = if std::io::stdin().is_terminal() {
        let raw = RawTerminal::enter();
        let c = control.clone();
        std::thread::spawn(move || keys(c));
        raw
    } else {
        None
    };
    let opts = PlayOptions {
        domain,
        rate: a.rate,
        repeat: a.repeat,
        start_offset: a.start_offset,
        topics: a.topics,
        clock_hz: a.clock,
        control: control.clone(),
    };
    let bar = std::io::stderr().is_terminal().then(|| {
        let b = indicatif::ProgressBar::new(1000);
        b.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {msg}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        b
    });
    let published = play(&a.file, &opts, |p| {
        if let Some(b) = &bar {
            let frac = p.position.as_secs_f64() / p.length.as_secs_f64().max(1e-9);
            b.set_position((frac * 1000.0) as u64);
            b.set_message(format!(
                "{:.1} / {:.1} s, {} messages{}",
                p.position.as_secs_f64(),
                p.length.as_secs_f64(),
                p.published,
                if control.is_paused() {
                    "  PAUSED (space: resume, →: one message)"
                } else {
                    "  (space: pause)"
                }
            ));
        }
        if crate::signals::stopped() {
            Control::Stop
        } else {
            Control::Continue
        }
    })
    .map_err(anyhow::Error::new)?;
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    outln!("played {published} messages from {}", a.file.display())
}

pub fn bag(cmd: BagCommand) -> anyhow::Result<()> {
    match cmd {
        BagCommand::Info { file } => print_info(&file),
        BagCommand::Recover { file, output } => {
            let output = output.unwrap_or_else(|| file.with_extension("recovered.mcap"));
            let got = recover(&file, &output, Some(nerve_bag::Compression::Zstd))
                .map_err(anyhow::Error::new)?;
            outln!(
                "recovered {} messages into {}{}",
                got.messages,
                output.display(),
                if got.truncated {
                    " (the rest was a half-written chunk)"
                } else {
                    ""
                }
            )
        }
    }
}

fn print_info(file: &Path) -> anyhow::Result<()> {
    let b = info(file).map_err(anyhow::Error::new)?;
    let secs = (b.end_ns.saturating_sub(b.start_ns)) as f64 / 1e9;
    let compression: Vec<String> = b
        .compression
        .iter()
        .map(|(k, n)| format!("{k} ({n} chunks)"))
        .collect();
    outln!(
        "file         {} ({:.1} MB)",
        file.display(),
        mb(b.file_bytes)
    )?;
    outln!("duration     {secs:.3} s")?;
    outln!("messages     {}", b.messages)?;
    outln!(
        "compression  {}",
        if compression.is_empty() {
            "unknown (no summary)".to_owned()
        } else {
            compression.join(", ")
        }
    )?;
    if !b.complete {
        outln!("complete     no: its recorder was stopped before finishing; `nerve bag recover` makes a complete copy")?;
    }
    outln!(
        "{:<32} {:<24} {:>10} {:>10} {:>8}",
        "topic",
        "type",
        "messages",
        "MB",
        "lost"
    )?;
    for t in &b.topics {
        outln!(
            "{:<32} {:<24} {:>10} {:>10.2} {:>8}",
            t.topic,
            t.type_name,
            t.messages,
            mb(t.bytes),
            t.lost
        )?;
    }
    Ok(())
}
