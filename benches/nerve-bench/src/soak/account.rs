//! The books of one workload: every incarnation's ledger record and final line added up, the
//! invariants checked, and what could not be checked said so.
//!
//! The numbers, for one workload:
//! - `sent`: messages whose `send` returned `Ok`, summed over every publisher incarnation
//!   (ledger `DONE`: exact, killed or not);
//! - `in_flight`: sends cut short by a kill (`BEGUN − DONE`, 0 or 1 per killed publisher):
//!   each either never reached the ring, was abandoned half-written, or was published just
//!   before the kill;
//! - `claimed`: ring indices taken, the topic's head at the end. Always
//!   `sent ≤ claimed ≤ sent + in_flight`; `abandoned = claimed − sent`;
//! - per subscriber: nerve's `received`, `lost`, `dropped`, `corrupt` (skipped) counters,
//!   and its own checks: `corrupt_delivered`, `phantom`, `disorder` (each must be 0).
//!
//! A subscriber created before the first message and never killed has seen every ring index:
//! `received + lost + dropped + corrupt_skipped == claimed`, exactly. On a reliable topic it
//! also lost nothing, and got every message of every sender in order: `count == DONE`, or
//! `DONE + 1` when the sender was killed right after publishing. Subscribers that were killed
//! or restarted cover disjoint windows that start and end mid-stream: they are summed and
//! checked message by message, not matched against `sent`.

use super::child::Role;
use super::killer::KillMode;
use super::ledger::*;
use std::collections::HashMap;
use std::path::PathBuf;

/// How an incarnation ended.
#[derive(Clone, Debug)]
pub enum Fate {
    /// Still running (only while the workload runs).
    Running,
    /// `kill -9`ed by the killer; `state` is its ledger state at that moment.
    Killed {
        /// Where it was.
        mode: KillMode,
        /// `STATE_*` at the kill.
        state: u64,
    },
    /// Exited by itself.
    Exited {
        /// Exit status 0.
        ok: bool,
        /// The status, for messages.
        status: String,
    },
    /// Did not finish in time and was killed by the harness.
    Hung,
}

/// One process of one workload.
#[derive(Clone, Debug)]
pub struct Incarnation {
    /// Its ledger slot (a publisher's sender id).
    pub slot: u32,
    /// Publisher or subscriber.
    pub role: Role,
    /// Subscriber created before the first message.
    pub from_start: bool,
    /// Never chosen by the killer.
    pub witness: bool,
    /// How it ended.
    pub fate: Fate,
    /// Its stdout (the line protocol).
    pub out: PathBuf,
}

/// The books of one workload.
#[derive(Clone, Debug, Default)]
pub struct Books {
    /// Messages whose send returned Ok.
    pub sent: u64,
    /// Sends cut short by a kill.
    pub in_flight: u64,
    /// Ring indices taken (the topic's head at the end).
    pub claimed: u64,
    /// Sum over subscriber incarnations.
    pub received: u64,
    /// Sum of `SubscriberStats::lost`.
    pub lost: u64,
    /// Sum of `SubscriberStats::dropped` (abandoned by killed writers, skipped).
    pub dropped: u64,
    /// Sum of `SubscriberStats::corrupt` (bad slots nerve skipped).
    pub corrupt_skipped: u64,
    /// Messages delivered with bytes other than their sender wrote. Must be 0.
    pub corrupt_delivered: u64,
    /// Messages naming a sender or sequence never sent. Must be 0.
    pub phantom: u64,
    /// Messages out of order for their sender. Must be 0.
    pub disorder: u64,
    /// Reliable sends refused as full (retried).
    pub full: u64,
    /// Loans refused for an exhausted pool (retried).
    pub exhausted: u64,
    /// Publisher / subscriber incarnations.
    pub incarnations: (usize, usize),
    /// Kills: publishers, subscribers, of which mid-loan, holding a sample.
    pub kills: (u64, u64, u64, u64),
    /// Publishers killed inside `send` (or `loan` + fill).
    pub killed_in_send: u64,
    /// Children killed before their endpoint existed (opening the topic).
    pub killed_opening: u64,
    /// Exact checks that held, one line each.
    pub exact: Vec<String>,
    /// What could not be checked exactly, and why.
    pub notes: Vec<String>,
    /// Broken invariants and failed checks. Empty: the workload passed.
    pub failures: Vec<String>,
}

impl Books {
    /// Abandoned ring indices: claimed by a send that never returned.
    pub fn abandoned(&self) -> u64 {
        self.claimed.saturating_sub(self.sent)
    }

    /// All kills.
    pub fn kill_count(&self) -> u64 {
        self.kills.0 + self.kills.1
    }
}

/// A subscriber's `FINAL` line: sender slot → (first, last, count).
fn parse_seen(line: &str) -> Option<HashMap<u32, (u64, u64, u64)>> {
    let list = line
        .split_whitespace()
        .find_map(|f| f.strip_prefix("seen="))?;
    let mut out = HashMap::new();
    for item in list.split(',').filter(|s| !s.is_empty()) {
        let v: Vec<u64> = item.split(':').filter_map(|x| x.parse().ok()).collect();
        let [p, first, last, count] = v[..] else {
            return None;
        };
        out.insert(p as u32, (first, last, count));
    }
    Some(out)
}

/// Reads an incarnation's stdout: its `FINAL` line and its `BAD` lines.
fn read_out(inc: &Incarnation) -> (Option<String>, Vec<String>) {
    let text = std::fs::read_to_string(&inc.out).unwrap_or_default();
    let fin = text
        .lines()
        .find_map(|l| l.strip_prefix("FINAL ").map(str::to_owned));
    let bad = text
        .lines()
        .filter(|l| l.starts_with("BAD "))
        .map(str::to_owned)
        .collect();
    (fin, bad)
}

/// Adds up one workload and checks it. `claimed` is the topic's head after every publisher
/// left.
pub fn account(ledger: &Ledger, incs: &[Incarnation], claimed: u64, reliable: bool) -> Books {
    let mut b = Books {
        claimed,
        ..Books::default()
    };
    let pubs: Vec<&Incarnation> = incs.iter().filter(|i| i.role == Role::Pub).collect();
    let subs: Vec<&Incarnation> = incs.iter().filter(|i| i.role == Role::Sub).collect();
    b.incarnations = (pubs.len(), subs.len());
    for i in incs {
        match (&i.fate, i.role) {
            (Fate::Killed { mode, state }, role) => {
                b.killed_opening += u64::from(*state == STATE_STARTING);
                if role == Role::Pub {
                    b.kills.0 += 1;
                } else {
                    b.kills.1 += 1;
                }
                b.kills.2 += u64::from(*mode == KillMode::MidLoan);
                b.kills.3 += u64::from(*mode == KillMode::HoldingSample);
            }
            (Fate::Exited { ok: false, status }, role) => {
                let text = std::fs::read_to_string(&i.out).unwrap_or_default();
                let why = text
                    .lines()
                    .find_map(|l| l.strip_prefix("ERROR "))
                    .unwrap_or("no ERROR line: see its stderr above");
                b.failures.push(format!(
                    "{role:?} slot {} exited by itself ({status}): {why}",
                    i.slot
                ));
            }
            (Fate::Hung, role) => b.failures.push(format!(
                "{role:?} slot {} did not finish within its deadline (a hang?) and was killed",
                i.slot
            )),
            (Fate::Running, _) | (Fate::Exited { ok: true, .. }, _) => {}
        }
    }

    // Publishers: what each sent, exactly, from the ledger.
    let mut done_of = HashMap::new();
    for p in &pubs {
        let w = ledger.snapshot(p.slot);
        let (begun, done) = (w[BEGUN], w[DONE]);
        b.sent += done;
        b.full += w[FULL];
        b.exhausted += w[EXHAUSTED];
        done_of.insert(p.slot, (begun, done, matches!(p.fate, Fate::Killed { .. })));
        match &p.fate {
            Fate::Killed { .. } if begun == done + 1 => {
                b.in_flight += 1;
                b.killed_in_send += 1;
            }
            Fate::Killed { .. } if begun == done => {}
            Fate::Exited { ok: true, .. } => {
                let (fin, _) = read_out(p);
                let said = fin.as_deref().and_then(|l| {
                    l.split_whitespace()
                        .find_map(|f| f.strip_prefix("sent=")?.parse::<u64>().ok())
                });
                if begun != done || said != Some(done) {
                    b.failures.push(format!("publisher slot {}: ledger begun {begun} done {done}, final line {fin:?}: they must agree", p.slot));
                }
            }
            Fate::Exited { ok: false, .. } | Fate::Hung if begun <= done + 1 => {
                b.in_flight += begun - done; // reported above as a failure already
            }
            _ => b.failures.push(format!(
                "publisher slot {}: ledger begun {begun} done {done} is impossible for {:?}",
                p.slot, p.fate
            )),
        }
    }
    if claimed < b.sent || claimed > b.sent + b.in_flight {
        b.failures.push(format!(
            "the topic's head {claimed} is outside [sent {}, sent + sends cut by a kill {}]: a message was claimed twice or a sent one was never claimed",
            b.sent,
            b.sent + b.in_flight
        ));
    }

    // Subscribers.
    let mut partial = Vec::new();
    for s in &subs {
        let w = ledger.snapshot(s.slot);
        let (r, l, d, c) = (w[RECEIVED], w[LOST], w[DROPPED], w[CORRUPT_SKIPPED]);
        b.received += r;
        b.lost += l;
        b.dropped += d;
        b.corrupt_skipped += c;
        b.corrupt_delivered += w[CORRUPT_DELIVERED];
        b.phantom += w[PHANTOM];
        b.disorder += w[DISORDER];
        let (fin, bad) = read_out(s);
        for line in bad.iter().take(5) {
            b.failures.push(format!("subscriber said: {line}"));
        }
        if reliable && l > 0 {
            b.failures.push(format!(
                "subscriber slot {}: lost {l} messages on a reliable topic",
                s.slot
            ));
        }
        let clean = matches!(s.fate, Fate::Exited { ok: true, .. });
        if !(clean && s.from_start) {
            partial.push(s.slot);
            continue;
        }
        let who = if s.witness { "witness, " } else { "" };
        let sum = r + l + d + c;
        if sum != claimed {
            b.failures.push(format!("subscriber slot {} ({who}from the first message, never killed): received {r} + lost {l} + dropped {d} + corrupt skipped {c} = {sum}, but {claimed} ring indices were claimed", s.slot));
            continue;
        }
        let bad_total = w[CORRUPT_DELIVERED] + w[PHANTOM];
        let seen = fin.as_deref().and_then(parse_seen);
        let Some(seen) = seen else {
            b.failures.push(format!(
                "subscriber slot {}: no readable FINAL line",
                s.slot
            ));
            continue;
        };
        let counted: u64 = seen.values().map(|v| v.2).sum();
        if counted != w[VERIFIED] || w[VERIFIED] + bad_total != r {
            b.failures.push(format!("subscriber slot {}: nerve delivered {r}, the checks passed {} and failed {bad_total}, the per-sender table holds {counted}: they must agree", s.slot, w[VERIFIED]));
        }
        let mut line = format!("subscriber slot {} ({who}from the first message, never killed): received {r} + lost {l} + dropped {d} + corrupt skipped {c} = {sum} = claimed", s.slot);
        if reliable {
            let mut wrong = Vec::new();
            for (&slot, &(begun, done, killed)) in &done_of {
                let (first, last, count) = seen.get(&slot).copied().unwrap_or((0, 0, 0));
                let whole = count == done || (killed && begun == done + 1 && count == begun);
                let contiguous = count == 0 || (first == 0 && last + 1 == count);
                if !whole || !contiguous {
                    wrong.push(format!("sender {slot}: got {count} (seq {first}..={last}), sent {done}, begun {begun}"));
                }
            }
            if wrong.is_empty() {
                line.push_str(&format!(
                    "; every message of all {} senders arrived once, in order",
                    done_of.len()
                ));
            } else {
                b.failures.push(format!(
                    "subscriber slot {} on a reliable topic missed or repeated messages: {}",
                    s.slot,
                    wrong.join("; ")
                ));
                continue;
            }
        }
        b.exact.push(line);
    }
    if !partial.is_empty() {
        let shown: Vec<String> = partial.iter().take(8).map(u32::to_string).collect();
        let more = if partial.len() > 8 { ", …" } else { "" };
        b.notes.push(format!(
            "{} subscribers (slots {}{more}) were killed or started after the first message: their windows are disjoint and start or end mid-stream, so their counts are summed and every message they got was checked, but they are not matched against sent",
            partial.len(),
            shown.join(", ")
        ));
    }
    if b.exact.is_empty() && b.failures.is_empty() {
        b.failures
            .push("no subscriber saw the whole stream: nothing to check the totals against".into());
    }
    for (what, n) in [
        ("corrupt messages delivered", b.corrupt_delivered),
        ("messages from a sender or sequence never sent", b.phantom),
        ("messages out of order", b.disorder),
    ] {
        if n > 0 {
            b.failures.push(format!("{n} {what}"));
        }
    }
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn final_lines_parse() {
        let s = parse_seen("sub slot=3 seen=0:0:9:10,4:2:5:3").unwrap();
        assert_eq!(s[&0], (0, 9, 10));
        assert_eq!(s[&4], (2, 5, 3));
        assert!(parse_seen("sub slot=3 seen=").unwrap().is_empty());
        assert!(parse_seen("sub slot=3 seen=1:2").is_none());
    }
}
