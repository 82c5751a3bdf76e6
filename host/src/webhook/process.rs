//! Process metrics in the names Prometheus' own client libraries use (`process_*`), read from
//! `/proc/self` at scrape time.
//!
//! Written by hand because `prometheus-client` (the metrics library podmut uses) has no process
//! collector, and pulling in a second metrics library or a whole procfs crate for six numbers is
//! not worth it. The files and fields are the ones Prometheus' `procfs` library reads:
//!
//! | metric | source |
//! |---|---|
//! | `process_resident_memory_bytes` | `/proc/self/status` `VmRSS` (kB) |
//! | `process_virtual_memory_bytes` | `/proc/self/status` `VmSize` (kB) |
//! | `process_cpu_seconds_total` | `/proc/self/stat` fields 14 + 15 (`utime`, `stime`), in `USER_HZ` ticks |
//! | `process_open_fds` | the entries of `/proc/self/fd` |
//! | `process_max_fds` | `/proc/self/limits` `Max open files` (soft limit) |
//! | `process_start_time_seconds` | `/proc/self/stat` field 22 (`starttime`, ticks after boot) + `/proc/stat` `btime` |
//!
//! `USER_HZ` is the kernel's fixed ABI constant of 100 ticks per second for `/proc` (it is not
//! `CONFIG_HZ`; Prometheus' procfs library assumes the same). On systems without `/proc` (not
//! Linux) or when a file cannot be read, the metrics it would give are left out rather than
//! reported as zero.

use std::fmt;

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::registry::Unit;

/// `/proc` reports CPU times in `USER_HZ` ticks, 100 per second on every Linux architecture.
const USER_HZ: f64 = 100.0;

/// One reading of the process' resources; `None` where the source could not be read.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ProcessStats {
    /// Resident set size, bytes.
    pub resident_memory_bytes: Option<u64>,
    /// Virtual memory size, bytes.
    pub virtual_memory_bytes: Option<u64>,
    /// User plus system CPU time, seconds.
    pub cpu_seconds: Option<f64>,
    /// Open file descriptors.
    pub open_fds: Option<u64>,
    /// The soft limit on open file descriptors.
    pub max_fds: Option<u64>,
    /// Start time since the Unix epoch, seconds.
    pub start_time_seconds: Option<f64>,
}

impl ProcessStats {
    /// Read the current process' stats from `/proc/self`.
    pub fn read() -> Self {
        let status = std::fs::read_to_string("/proc/self/status").ok();
        let stat = std::fs::read_to_string("/proc/self/stat").ok();
        let stat = stat.as_deref().and_then(parse_stat);
        let boot_time = std::fs::read_to_string("/proc/stat")
            .ok()
            .and_then(|s| parse_boot_time(&s));
        Self {
            resident_memory_bytes: status.as_deref().and_then(|s| status_kib(s, "VmRSS")),
            virtual_memory_bytes: status.as_deref().and_then(|s| status_kib(s, "VmSize")),
            cpu_seconds: stat.map(|s| (s.utime + s.stime) as f64 / USER_HZ),
            open_fds: std::fs::read_dir("/proc/self/fd").ok().map(|d| d.count() as u64),
            max_fds: std::fs::read_to_string("/proc/self/limits")
                .ok()
                .and_then(|s| parse_max_open_files(&s)),
            start_time_seconds: stat
                .zip(boot_time)
                .map(|(s, boot)| boot as f64 + s.starttime as f64 / USER_HZ),
        }
    }
}

/// The fields of `/proc/self/stat` podmut reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Stat {
    utime: u64,
    stime: u64,
    starttime: u64,
}

/// Parse `/proc/<pid>/stat`. The second field (the command) is in parentheses and may itself
/// contain spaces and parentheses, so the fields are counted after the last `)`.
fn parse_stat(text: &str) -> Option<Stat> {
    let after = &text[text.rfind(')')? + 1..];
    // After the command: field 3 (state) is the first; utime is field 14.
    let fields: Vec<&str> = after.split_whitespace().collect();
    let field = |n: usize| fields.get(n - 3).and_then(|f| f.parse::<u64>().ok());
    Some(Stat {
        utime: field(14)?,
        stime: field(15)?,
        starttime: field(22)?,
    })
}

/// A `Name:   1234 kB` line of `/proc/<pid>/status`, in bytes.
fn status_kib(text: &str, name: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.split(':').next() == Some(name))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// The soft limit of `Max open files` in `/proc/<pid>/limits` (`unlimited` gives `None`).
fn parse_max_open_files(text: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with("Max open files"))?;
    line["Max open files".len()..]
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// `btime` of `/proc/stat`: boot time, seconds since the epoch.
fn parse_boot_time(text: &str) -> Option<u64> {
    text.lines()
        .find_map(|l| l.strip_prefix("btime "))
        .and_then(|v| v.trim().parse().ok())
}

/// Encodes [`ProcessStats::read`] on every scrape.
#[derive(Clone, Copy, Debug, Default)]
pub struct ProcessCollector;

impl Collector for ProcessCollector {
    fn encode(&self, mut encoder: DescriptorEncoder<'_>) -> Result<(), fmt::Error> {
        let s = ProcessStats::read();
        let gauges: [(&str, &str, Option<Unit>, Option<f64>); 5] = [
            (
                "process_resident_memory",
                "Resident memory size",
                Some(Unit::Bytes),
                s.resident_memory_bytes.map(|v| v as f64),
            ),
            (
                "process_virtual_memory",
                "Virtual memory size",
                Some(Unit::Bytes),
                s.virtual_memory_bytes.map(|v| v as f64),
            ),
            (
                "process_open_fds",
                "Open file descriptors",
                None,
                s.open_fds.map(|v| v as f64),
            ),
            (
                "process_max_fds",
                "Limit on open file descriptors",
                None,
                s.max_fds.map(|v| v as f64),
            ),
            (
                "process_start_time",
                "Start time of the process since the Unix epoch",
                Some(Unit::Seconds),
                s.start_time_seconds,
            ),
        ];
        for (name, help, unit, value) in gauges {
            if let Some(v) = value {
                let g = ConstGauge::new(v);
                g.encode(encoder.encode_descriptor(name, help, unit.as_ref(), g.metric_type())?)?;
            }
        }
        if let Some(v) = s.cpu_seconds {
            let c = ConstCounter::new(v);
            c.encode(encoder.encode_descriptor(
                "process_cpu",
                "User and system CPU time spent",
                Some(&Unit::Seconds),
                c.metric_type(),
            )?)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_stat_with_a_command_holding_spaces_and_parentheses() {
        // Fields as the kernel prints them; the command is `a) b`.
        let line = "4242 (a) b) S 1 4242 4242 0 -1 4194560 1000 0 0 0 250 75 0 0 20 0 9 0 123456 1048576 512 18446744073709551615";
        assert_eq!(
            parse_stat(line),
            Some(Stat {
                utime: 250,
                stime: 75,
                starttime: 123_456
            })
        );
        assert_eq!(parse_stat("garbage"), None);
    }

    #[test]
    fn parses_status_limits_and_boot_time() {
        let status = "Name:\tpodmut\nVmSize:\t  20480 kB\nVmRSS:\t   1024 kB\n";
        assert_eq!(status_kib(status, "VmRSS"), Some(1024 * 1024));
        assert_eq!(status_kib(status, "VmSize"), Some(20480 * 1024));
        assert_eq!(status_kib(status, "VmSwap"), None);
        let limits = "Limit                     Soft Limit           Hard Limit           Units     \nMax open files            1024                 524288               files     \n";
        assert_eq!(parse_max_open_files(limits), Some(1024));
        let unlimited = "Max open files            unlimited            unlimited            files     \n";
        assert_eq!(parse_max_open_files(unlimited), None);
        assert_eq!(
            parse_boot_time("cpu  1 2 3\nbtime 1700000000\n"),
            Some(1_700_000_000)
        );
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn reads_this_process() {
        let s = ProcessStats::read();
        assert!(s.resident_memory_bytes.unwrap() > 0);
        assert!(s.virtual_memory_bytes.unwrap() >= s.resident_memory_bytes.unwrap());
        // stdin/stdout/stderr at least, and the directory handle being read.
        assert!(s.open_fds.unwrap() >= 3);
        assert!(s.cpu_seconds.unwrap() >= 0.0);
        let start = s.start_time_seconds.unwrap();
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs_f64();
        assert!(
            start <= now + 1.0 && start > now - 86_400.0 * 365.0,
            "{start} vs {now}"
        );
    }
}
