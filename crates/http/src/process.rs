//! The process's own series, read from Linux's `/proc/self` at each scrape and written as
//! Prometheus clients' process collectors name them (`process_cpu_seconds_total`,
//! `process_resident_memory_bytes`, `process_open_fds`, `process_max_fds`), the names Kafka's
//! JMX exporter also gives them. A file that cannot be read leaves its series out.

use std::fmt::Write;

/// Appends the process's series to `out`, in Prometheus's text format.
pub(crate) fn render(out: &mut String) {
    if let Some(seconds) = cpu_seconds() {
        family(out, "process_cpu_seconds_total", "counter", "User and system CPU time spent, in seconds.", seconds);
    }
    if let Some(bytes) = resident_bytes() {
        family(out, "process_resident_memory_bytes", "gauge", "Resident memory size, in bytes.", bytes as f64);
    }
    if let Ok(entries) = std::fs::read_dir("/proc/self/fd") {
        // The directory's own descriptor, open while it is read, is not counted.
        let open = entries.count().saturating_sub(1);
        family(out, "process_open_fds", "gauge", "Open file descriptors.", open as f64);
    }
    let limit = rustix::process::getrlimit(rustix::process::Resource::Nofile);
    if let Some(max) = limit.current {
        family(out, "process_max_fds", "gauge", "The limit of open file descriptors.", max as f64);
    }
}

fn family(out: &mut String, name: &str, kind: &str, help: &str, value: f64) {
    // Writing to a String cannot fail.
    let _ = write!(out, "# HELP {name} {help}\n# TYPE {name} {kind}\n{name} {value}\n\n");
}

/// `utime` + `stime` of `/proc/self/stat` (fields 14 and 15, in clock ticks), in seconds.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The command name (field 2) is in parentheses and may hold spaces: count from after it.
    let after_name = &stat[stat.rfind(')')? + 1..];
    let mut fields = after_name.split_whitespace().skip(11);
    let user: u64 = fields.next()?.parse().ok()?;
    let system: u64 = fields.next()?.parse().ok()?;
    let ticks = rustix::param::clock_ticks_per_second().max(1);
    Some((user + system) as f64 / ticks as f64)
}

/// `VmRSS` of `/proc/self/status`, in bytes.
fn resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find_map(|line| line.strip_prefix("VmRSS:"))?;
    let kib: u64 = line.trim().trim_end_matches("kB").trim().parse().ok()?;
    Some(kib * 1024)
}

#[cfg(test)]
mod tests {
    /// The series this process reports are there and plausible.
    #[test]
    fn the_process_reports_its_own_series() {
        let mut out = String::new();
        super::render(&mut out);
        let value = |name: &str| -> f64 {
            let line = out.lines().find(|l| l.starts_with(&format!("{name} "))).unwrap_or_else(|| panic!("{out}"));
            line.rsplit(' ').next().and_then(|v| v.parse().ok()).unwrap_or_else(|| panic!("{line}"))
        };
        assert!(value("process_resident_memory_bytes") > 1_000_000.0, "{out}");
        assert!(value("process_cpu_seconds_total") >= 0.0, "{out}");
        assert!(value("process_open_fds") >= 3.0, "{out}");
        assert!(value("process_max_fds") >= value("process_open_fds"), "{out}");
    }
}
