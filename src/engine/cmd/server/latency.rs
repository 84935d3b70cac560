//! LATENCY LATEST, HISTORY, RESET, GRAPH, DOCTOR, HISTOGRAM and HELP: Redis 7.0's replies
//! over the state of [`crate::engine::latency`].
//!
//! The events kvlab records are `command`, `fast-command` (dispatch), `expire-cycle`
//! (active expiry), `eviction-del` and `eviction-cycle` (eviction); it has no fork, AOF or
//! RDB temporary files, so DOCTOR only carries the advice those five events call for.

use super::super::connection::help_reply;
use crate::engine::args::Args;
use crate::engine::error::{c_str, CmdResult, Error};
use crate::engine::latency::{analyze, Histogram, Series, StatKey};
use crate::engine::table::{CommandRow, Handler};
use crate::engine::{Ctx, Reply};

/// The Unix second now, as the samples record it.
fn now_s(ctx: &Ctx<'_>) -> i64 {
    ctx.srv.clock.now_ms().div_euclid(1000)
}

/// LATENCY LATEST: each event's name, latest sample's time and latency, all time high.
pub(super) fn latency_latest(ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    Ok(Reply::Array(
        ctx.srv
            .latency
            .events
            .iter()
            .map(|(name, ts)| {
                let last = ts.last();
                Reply::Array(vec![
                    Reply::bulk(name.as_bytes()),
                    Reply::Integer(last.time),
                    Reply::Integer(last.latency as i64),
                    Reply::Integer(ts.max as i64),
                ])
            })
            .collect(),
    ))
}

/// LATENCY HISTORY event: the event's samples, oldest first, as (time, latency) pairs; an
/// empty array for an event without samples. The name is matched exactly, as Redis's
/// dictionary of events does.
pub(super) fn latency_history(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let event = args.next_bytes()?;
    let Some(ts) = event_series(ctx, event) else {
        return Ok(Reply::Array(Vec::new()));
    };
    Ok(Reply::Array(
        ts.in_order()
            .map(|s| {
                Reply::Array(vec![
                    Reply::Integer(s.time),
                    Reply::Integer(s.latency as i64),
                ])
            })
            .collect(),
    ))
}

fn event_series<'a>(ctx: &'a Ctx<'_>, event: &[u8]) -> Option<&'a Series> {
    std::str::from_utf8(event)
        .ok()
        .and_then(|e| ctx.srv.latency.events.get(e))
}

/// LATENCY RESET [event ...]: forgets the named events (any case), or all; replies how many.
pub(super) fn latency_reset(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    if args.is_empty() {
        return Ok(Reply::Integer(ctx.srv.latency.reset(None) as i64));
    }
    let mut resets = 0;
    while !args.is_empty() {
        let event = args.next_bytes()?;
        resets += ctx.srv.latency.reset(Some(event));
    }
    Ok(Reply::Integer(resets as i64))
}

/// Columns of LATENCY GRAPH's sparkline (Redis's `LATENCY_GRAPH_COLS`).
const GRAPH_COLS: usize = 80;
/// Rows of its bars.
const GRAPH_ROWS: usize = 4;

/// LATENCY GRAPH event: the event's samples as an ASCII sparkline, labelled with how long
/// ago each was taken, or an error when it has none.
pub(super) fn latency_graph(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let event = args.next_bytes()?;
    let Some(ts) = event_series(ctx, event) else {
        return Err(Error::NoLatencySamples(c_str(event)));
    };
    let now = now_s(ctx);
    let samples: Vec<(u64, String)> = ts
        .in_order()
        .map(|s| {
            let ago = now - s.time;
            let label = match ago {
                a if a < 60 => format!("{a}s"),
                a if a < 3600 => format!("{}m", a / 60),
                a if a < 86_400 => format!("{}h", a / 3600),
                a => format!("{}d", a / 86_400),
            };
            (s.latency, label)
        })
        .collect();
    let (low, high) = samples
        .iter()
        .fold((u64::MAX, 0), |(lo, hi), (v, _)| (lo.min(*v), hi.max(*v)));
    let low = if samples.is_empty() { 0 } else { low };
    let mut out = format!(
        "{} - high {} ms, low {} ms (all time high {} ms)\n",
        String::from_utf8_lossy(event),
        high,
        low,
        ts.max
    );
    out.push_str(&"-".repeat(GRAPH_COLS));
    out.push('\n');
    for (i, chunk) in samples.chunks(GRAPH_COLS).enumerate() {
        if i != 0 {
            out.push('\n');
        }
        sparkline(&mut out, &samples, chunk);
    }
    Ok(Reply::Verbatim(*b"txt", out.into_bytes()))
}

/// Renders `chunk` of `all` as Redis's filled sparkline does (`sparklineRenderRange` with
/// `SPARKLINE_FILL`): [`GRAPH_ROWS`] rows of `_o#` and `|` scaled between the minimum and
/// maximum of all samples, a blank row, then each label written downwards.
fn sparkline(out: &mut String, all: &[(u64, String)], chunk: &[(u64, String)]) {
    const FILL: [char; 3] = ['_', 'o', '#'];
    // The sequence's minimum and maximum, as Redis keeps them while adding samples.
    let (mut min, mut max) = (0.0f64, 0.0f64);
    for (i, (v, _)) in all.iter().enumerate() {
        let v = *v as f64;
        if i == 0 {
            (min, max) = (v, v);
        } else if v < min {
            min = v;
        } else if v > max {
            max = v;
        }
    }
    let relmax = if max - min == 0.0 { 1.0 } else { max - min };
    let steps = (FILL.len() * GRAPH_ROWS) as i64;
    let step_of = |v: u64| -> i64 {
        let scaled = (((v as f64 - min) * steps as f64) as i64) as f64 / relmax;
        (scaled as i64).clamp(0, steps - 1)
    };
    for row in 0..GRAPH_ROWS {
        let line: String = chunk
            .iter()
            .map(|(v, _)| {
                let idx = step_of(*v) - ((GRAPH_ROWS - row - 1) * FILL.len()) as i64;
                match idx {
                    i if (0..FILL.len() as i64).contains(&i) => FILL[i as usize],
                    i if i >= FILL.len() as i64 => '|',
                    _ => ' ',
                }
            })
            .collect();
        out.push_str(&line);
        out.push('\n');
    }
    if chunk.is_empty() {
        return;
    }
    out.push_str(&" ".repeat(chunk.len()));
    out.push('\n');
    let longest = chunk.iter().map(|(_, l)| l.len()).max().unwrap_or(0);
    for k in 0..longest {
        let line: String = chunk
            .iter()
            .map(|(_, l)| l.as_bytes().get(k).map_or(' ', |&b| b as char))
            .collect();
        out.push_str(&line);
        out.push('\n');
    }
}

/// LATENCY DOCTOR: Redis's report on the events, with the advice they call for.
pub(super) fn latency_doctor(ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    Ok(Reply::Verbatim(*b"txt", doctor_report(ctx).into_bytes()))
}

fn doctor_report(ctx: &Ctx<'_>) -> String {
    let (threshold_ms, _) = ctx.srv.config.latency();
    let events = &ctx.srv.latency.events;
    if events.is_empty() && threshold_ms == 0 {
        return "I'm sorry, Dave, I can't do that. Latency monitoring is disabled in this Redis instance. You may use \"CONFIG SET latency-monitor-threshold <milliseconds>.\" in order to enable it. If we weren't in a deep space mission I'd suggest to take a look at https://redis.io/topics/latency-monitor.\n".into();
    }
    let slower_than = ctx.srv.config.slowlog().0;
    let now = now_s(ctx);
    let mut report = String::new();
    let (mut slowlog_enabled, mut slowlog_tuning, mut slowlog_inspect) = (false, false, false);
    let (mut scheduler, mut hz, mut large_objects, mut mass_eviction) =
        (false, false, false, false);
    let mut advices = 0;
    for (n, (event, ts)) in events.iter().enumerate() {
        if n == 0 {
            report.push_str("Dave, I have observed latency spikes in this Redis instance. You don't mind talking about it, do you Dave?\n\n");
        }
        let a = analyze(ts, now);
        let per = if a.samples == 0 {
            f64::NAN
        } else {
            a.period as f64 / a.samples as f64
        };
        report.push_str(&format!(
            "{}. {}: {} latency spikes (average {}ms, mean deviation {}ms, period {:.2} sec). Worst all time event {}ms.",
            n + 1,
            event,
            a.samples,
            a.avg,
            a.mad,
            per,
            ts.max
        ));
        match event.to_ascii_lowercase().as_str() {
            "command" => {
                if slower_than < 0 {
                    slowlog_enabled = true;
                    advices += 1;
                } else if slower_than / 1000 > threshold_ms {
                    slowlog_tuning = true;
                    advices += 1;
                }
                slowlog_inspect = true;
                large_objects = true;
                advices += 2;
            }
            "fast-command" => {
                scheduler = true;
                advices += 1;
            }
            "expire-cycle" => {
                hz = true;
                large_objects = true;
                advices += 2;
            }
            "eviction-del" => {
                large_objects = true;
                advices += 1;
            }
            "eviction-cycle" => {
                mass_eviction = true;
                advices += 1;
            }
            _ => {}
        }
        report.push('\n');
    }
    if events.is_empty() && advices == 0 {
        report.push_str("Dave, no latency spike was observed during the lifetime of this Redis instance, not in the slightest bit. I honestly think you ought to sit down calmly, take a stress pill, and think things over.\n");
        return report;
    }
    if advices == 0 {
        report.push_str("\nWhile there are latency events logged, I'm not able to suggest any easy fix. Please use the Redis community to get some help, providing this report in your help request.\n");
        return report;
    }
    report.push_str("\nI have a few advices for you:\n\n");
    let threshold_us = threshold_ms.saturating_mul(1000);
    if slowlog_enabled {
        report.push_str(&format!("- There are latency issues with potentially slow commands you are using. Try to enable the Slow Log Redis feature using the command 'CONFIG SET slowlog-log-slower-than {threshold_us}'. If the Slow log is disabled Redis is not able to log slow commands execution for you.\n"));
    }
    if slowlog_tuning {
        report.push_str(&format!("- Your current Slow Log configuration only logs events that are slower than your configured latency monitor threshold. Please use 'CONFIG SET slowlog-log-slower-than {threshold_us}'.\n"));
    }
    if slowlog_inspect {
        report.push_str("- Check your Slow Log to understand what are the commands you are running which are too slow to execute. Please check https://redis.io/commands/slowlog for more information.\n");
    }
    if scheduler {
        report.push_str("- The system is slow to execute Redis code paths not containing system calls. This usually means the system does not provide Redis CPU time to run for long periods. You should try to:\n  1) Lower the system load.\n  2) Use a computer / VM just for Redis if you are running other software in the same system.\n  3) Check if you have a \"noisy neighbour\" problem.\n  4) Check with 'redis-cli --intrinsic-latency 100' what is the intrinsic latency in your system.\n  5) Check if the problem is allocator-related by recompiling Redis with MALLOC=libc, if you are using Jemalloc. However this may create fragmentation problems.\n");
    }
    if hz && ctx.srv.config.hz() < 100 {
        report.push_str("- In order to make the Redis keys expiring process more incremental, try to set the 'hz' configuration parameter to 100 using 'CONFIG SET hz 100'.\n");
    }
    if large_objects {
        report.push_str("- Deleting, expiring or evicting (because of maxmemory policy) large objects is a blocking operation. If you have very large objects that are often deleted, expired, or evicted, try to fragment those objects into multiple smaller objects.\n");
    }
    if mass_eviction {
        report.push_str("- Sudden changes to the 'maxmemory' setting via 'CONFIG SET', or allocation of large objects via sets or sorted sets intersections, STORE option of SORT, Redis Cluster large keys migrations (RESTORE command), may create sudden memory pressure forcing the server to block trying to evict keys. \n");
    }
    report
}

/// A histogram as LATENCY HISTOGRAM gives it: `calls` and the cumulative distribution.
fn histogram_reply(h: &Histogram) -> Reply {
    let cdf = h
        .cdf_usec()
        .into_iter()
        .map(|(us, n)| (Reply::Integer(us), Reply::Integer(n as i64)))
        .collect();
    Reply::Map(vec![
        (Reply::bulk(b"calls"), Reply::Integer(h.total() as i64)),
        (Reply::bulk(b"histogram_usec"), Reply::Map(cdf)),
    ])
}

/// A command's full name as Redis writes it: `set`, `client|id`.
pub(crate) fn full_name(key: StatKey) -> String {
    match key {
        StatKey(top, "") => top.to_string(),
        StatKey(top, sub) => format!("{top}|{sub}"),
    }
}

/// LATENCY HISTOGRAM [command ...]: the histograms of every command called since the last
/// CONFIG RESETSTAT, or of those named (`name` or `name|sub`; a container brings its
/// subcommands'); unknown names are skipped.
pub(super) fn latency_histogram(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let stats = &ctx.srv.stats.per_command;
    let entry = |key: StatKey| {
        let h = stats.get(&key)?.histogram.as_ref()?;
        Some((Reply::bulk(full_name(key).as_bytes()), histogram_reply(h)))
    };
    if args.is_empty() {
        let sorted = ctx.srv.stats.histograms_sorted();
        return Ok(Reply::Map(
            sorted.into_iter().filter_map(|(&k, _)| entry(k)).collect(),
        ));
    }
    let mut out = Vec::new();
    while !args.is_empty() {
        let name = args.next_bytes()?;
        let Some((row, key)) = lookup_full_name(ctx.table, name) else {
            continue;
        };
        out.extend(entry(key));
        if key.1.is_empty() {
            for sub in row.subcommands {
                out.extend(entry(StatKey(row.name, sub.name)));
            }
        }
    }
    Ok(Reply::Map(out))
}

/// Finds `name` or `name|sub` in the table (Redis's `lookupCommandBySds`, strict): the row
/// and its statistics key.
fn lookup_full_name(
    table: &'static crate::engine::core::ctx::Table,
    name: &[u8],
) -> Option<(&'static CommandRow<Handler>, StatKey)> {
    let mut parts = name.split(|&b| b == b'|');
    let top = table.lookup(parts.next()?)?;
    match (parts.next(), parts.next()) {
        (None, _) => Some((top, StatKey(top.name, ""))),
        (Some(sub), None) => {
            let row = top.subcommand(sub)?;
            Some((row, StatKey(top.name, row.name)))
        }
        _ => None,
    }
}

/// LATENCY HELP
pub(super) fn latency_help(_ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    Ok(help_reply(
        "LATENCY",
        crate::help_lines![
            "DOCTOR",
            "    Return a human readable latency analysis report.",
            "GRAPH <event>",
            "    Return an ASCII latency graph for the <event> class.",
            "HISTORY <event>",
            "    Return time-latency samples for the <event> class.",
            "LATEST",
            "    Return the latest latency samples for all events.",
            "RESET [<event> ...]",
            "    Reset latency data of one or more <event> classes.",
            "    (default: reset all data for all event classes)",
            "HISTOGRAM [COMMAND ...]",
            "    Return a cumulative distribution of latencies in the format of a histogram for the specified command names.",
            "    If no commands are specified then all histograms are replied.",
        ],
    ))
}

#[cfg(test)]
mod tests {
    use crate::engine::testing::run;
    use crate::engine::{Clock, Engine, Reply};
    use std::cell::Cell;
    use std::rc::Rc;

    /// A clock at a fixed second whose monotonic reading advances `step` µs at every
    /// read: every command takes `step` µs (dispatch reads it twice per call).
    struct Stepping(Rc<Cell<i64>>, Cell<i64>);

    impl Clock for Stepping {
        fn now_us(&self) -> i64 {
            1_700_000_000_000_000
        }

        fn monotonic_us(&self) -> i64 {
            self.1.set(self.1.get() + self.0.get());
            self.1.get()
        }
    }

    fn engine(step_us: i64) -> (Engine, u64, Rc<Cell<i64>>) {
        let step = Rc::new(Cell::new(step_us));
        let mut e = Engine::new(Box::new(Stepping(step.clone(), Cell::new(0))), 1);
        let c = e.connect();
        (e, c, step)
    }

    fn text(r: Reply) -> String {
        match r {
            Reply::Verbatim(_, t) | Reply::Bulk(t) => String::from_utf8(t).unwrap(),
            other => panic!("not text: {other:?}"),
        }
    }

    fn int(n: i64) -> Reply {
        Reply::Integer(n)
    }

    #[test]
    fn histograms_feed_latency_histogram_and_info() {
        let (mut e, c, _) = engine(3);
        run(&mut e, c, "CONFIG RESETSTAT");
        run(&mut e, c, "SET a b");
        run(&mut e, c, "SET a c");
        run(&mut e, c, "CLIENT GETNAME");
        // 3 µs each: the bucket 2992..=3007 ns, reported at the 4096 ns level (4 µs).
        let want_set = Reply::Map(vec![
            (Reply::bulk(b"calls"), int(2)),
            (
                Reply::bulk(b"histogram_usec"),
                Reply::Map(vec![(int(4), int(2))]),
            ),
        ]);
        assert_eq!(
            run(&mut e, c, "LATENCY HISTOGRAM set nosuch client|x"),
            Reply::Map(vec![(Reply::bulk(b"set"), want_set)])
        );
        let Reply::Map(all) = run(&mut e, c, "LATENCY HISTOGRAM client") else {
            panic!()
        };
        assert_eq!(all.len(), 1);
        assert_eq!(all[0].0, Reply::bulk(b"client|getname"));
        let info = text(run(&mut e, c, "INFO latencystats"));
        assert!(
            info.contains("latency_percentiles_usec_set:p50=3.007,p99=3.007,p99.9=3.007\r\n"),
            "{info}"
        );
        run(
            &mut e,
            c,
            "CONFIG SET latency-tracking-info-percentiles \"0 12.5\"",
        );
        let info = text(run(&mut e, c, "INFO latencystats"));
        assert!(
            info.contains("latency_percentiles_usec_set:p0=2.992,p12.5=3.007\r\n"),
            "{info}"
        );
        // RESETSTAT clears them (and is itself the first call counted after).
        run(&mut e, c, "CONFIG RESETSTAT");
        let Reply::Map(all) = run(&mut e, c, "LATENCY HISTOGRAM") else {
            panic!()
        };
        assert_eq!(all.len(), 1);
        assert_eq!(all[0].0, Reply::bulk(b"config|resetstat"));
        run(&mut e, c, "CONFIG SET latency-tracking no");
        run(&mut e, c, "CONFIG RESETSTAT");
        run(&mut e, c, "SET a b");
        assert_eq!(run(&mut e, c, "LATENCY HISTOGRAM"), Reply::Map(Vec::new()));
        assert_eq!(
            text(run(&mut e, c, "INFO latencystats")),
            "# Latencystats\r\n"
        );
    }

    /// A blocked command served after CONFIG RESETSTAT: its histogram takes the wait (as
    /// Redis's updateStatsOnUnblock), but it was not called since, so INFO commandstats
    /// has no line for it.
    #[test]
    fn a_command_served_after_a_reset_is_timed_but_not_counted() {
        let (mut e, c, _) = engine(3);
        let b = e.connect();
        e.submit(
            b,
            crate::engine::splitargs::split_args("BLPOP q 0").unwrap(),
        );
        run(&mut e, c, "CONFIG RESETSTAT");
        assert_eq!(run(&mut e, c, "RPUSH q x"), int(1));
        let Reply::Map(all) = run(&mut e, c, "LATENCY HISTOGRAM blpop") else {
            panic!()
        };
        assert_eq!(all.len(), 1, "{all:?}");
        let stats = text(run(&mut e, c, "INFO commandstats"));
        assert!(stats.contains("cmdstat_rpush:calls=1,"), "{stats}");
        assert!(!stats.contains("blpop"), "{stats}");
    }

    #[test]
    fn slow_calls_are_events_only_past_the_threshold() {
        let (mut e, c, step) = engine(25_000);
        run(&mut e, c, "SET a b");
        assert_eq!(run(&mut e, c, "LATENCY LATEST"), Reply::Array(Vec::new()));
        run(&mut e, c, "CONFIG SET latency-monitor-threshold 20");
        run(&mut e, c, "GET a"); // fast: 25 ms
        run(&mut e, c, "KEYS *"); // not fast: 25 ms
        step.set(30_000);
        run(&mut e, c, "KEYS *"); // the same second: its worst is kept
        step.set(1_000);
        run(&mut e, c, "KEYS *"); // under the threshold
        let latest = run(&mut e, c, "LATENCY LATEST");
        let row = |name: &[u8], last: i64, max: i64| {
            Reply::Array(vec![
                Reply::bulk(name),
                int(1_700_000_000),
                int(last),
                int(max),
            ])
        };
        assert_eq!(
            latest,
            Reply::Array(vec![row(b"command", 30, 30), row(b"fast-command", 25, 25)])
        );
        assert_eq!(
            run(&mut e, c, "LATENCY HISTORY command"),
            Reply::Array(vec![Reply::Array(vec![int(1_700_000_000), int(30)])])
        );
        let doctor = text(run(&mut e, c, "LATENCY DOCTOR"));
        assert!(
            doctor.starts_with("Dave, I have observed latency spikes"),
            "{doctor}"
        );
        assert!(doctor.contains("1. command: 1 latency spikes (average 30ms, mean deviation 0ms, period 1.00 sec). Worst all time event 30ms.\n"), "{doctor}");
        assert!(doctor.contains("- Check your Slow Log"), "{doctor}");
        assert!(doctor.contains("noisy neighbour"), "{doctor}");
        let graph = text(run(&mut e, c, "LATENCY GRAPH command"));
        let want = format!(
            "command - high 30 ms, low 30 ms (all time high 30 ms)\n{}\n \n \n \n_\n \n0\ns\n",
            "-".repeat(80)
        );
        assert_eq!(graph, want);
        // Three samples as redis-server 7.0.15 drew them (3 s, 2 s and 0 s ago).
        let now = 1_700_000_000;
        for (ago, ms) in [(3, 309), (2, 645), (0, 318)] {
            e.srv.latency.add_sample("slow", ms, now - ago);
        }
        let graph = text(run(&mut e, c, "LATENCY GRAPH slow"));
        let want = format!(
            "slow - high 645 ms, low 309 ms (all time high 645 ms)\n{}\n # \n | \n | \n_|_\n   \n320\nsss\n",
            "-".repeat(80)
        );
        assert_eq!(graph, want);
        assert_eq!(
            run(&mut e, c, "LATENCY GRAPH nosuch"),
            Reply::Error("ERR No samples available for event 'nosuch'".into())
        );
        assert_eq!(run(&mut e, c, "LATENCY RESET Command nosuch"), int(1));
        assert_eq!(run(&mut e, c, "LATENCY RESET"), int(2));
    }
}
