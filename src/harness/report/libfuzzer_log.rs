//! What a libFuzzer log says about a run: its periodic status lines, over time, and its final
//! statistics (`-print_final_stats=1`).
//!
//! Status lines, in fork mode (the parent) and in-process:
//! ```text
//! #49152: cov: 1234 ft: 5678 corp: 345 exec/s: 1234 oom/timeout/crash: 0/0/12 time: 12s job: 5 dft_time: 0
//! #4096 pulse  cov: 123 ft: 222 corp: 30/1234b lim: 43 exec/s: 2048 rss: 40Mb
//! ```
//! (libFuzzer writes a tab after an in-process line's count.) An in-process line has no `time:`; its
//! time is the executions over the average rate.

use std::collections::BTreeMap;

use serde::Serialize;

/// One status line.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Sample {
    /// Seconds since the start of the run.
    pub seconds: f64,
    pub execs: u64,
    /// Coverage: the edges libFuzzer has seen (`cov:`).
    pub coverage: u64,
    /// Inputs in the corpus (`corp:`).
    pub corpus: u64,
    pub execs_per_second: u64,
}

/// Everything the log of one run says.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct LogStats {
    pub samples: Vec<Sample>,
    /// `stat::NAME: VALUE` lines, without the `stat::` prefix.
    pub final_stats: BTreeMap<String, u64>,
}

/// Reads every status line and final statistic of `log`; other lines are ignored.
pub fn parse(log: &str) -> LogStats {
    let mut stats = LogStats::default();
    for line in log.lines() {
        if let Some(rest) = line.strip_prefix("stat::") {
            if let Some((name, value)) = rest.split_once(':')
                && let Ok(value) = value.trim().parse()
            {
                stats.final_stats.insert(name.trim().to_string(), value);
            }
        } else if let Some(sample) = sample(line) {
            stats.samples.push(sample);
        }
    }
    stats
}

fn sample(line: &str) -> Option<Sample> {
    let rest = line.strip_prefix('#')?;
    let digits = rest.find(|c: char| !c.is_ascii_digit())?;
    let execs: u64 = rest[..digits].parse().ok()?;
    let words: Vec<&str> = rest[digits..]
        .trim_start_matches(':')
        .split_whitespace()
        .collect();
    let field = |name: &str| {
        words
            .iter()
            .position(|w| *w == name)
            .and_then(|i| words.get(i + 1))
            .copied()
    };
    let number = |text: &str| -> Option<u64> {
        let digits: String = text.chars().take_while(char::is_ascii_digit).collect();
        digits.parse().ok()
    };
    let coverage = number(field("cov:")?)?;
    // `corp: 30/1234b` in-process (inputs/bytes), `corp: 345` in fork mode.
    let corpus = number(field("corp:")?)?;
    let execs_per_second = number(field("exec/s:")?)?;
    let seconds = match field("time:").and_then(number) {
        Some(seconds) => seconds as f64,
        None if execs_per_second > 0 => execs as f64 / execs_per_second as f64,
        None => 0.0,
    };
    Some(Sample {
        seconds,
        execs,
        coverage,
        corpus,
        execs_per_second,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_fork_mode_and_in_process_lines_and_final_stats() {
        let log = "\
INFO: Seed: 1234
#49152: cov: 1234 ft: 5678 corp: 345 exec/s: 1234 oom/timeout/crash: 0/0/12 time: 12s job: 5 dft_time: 0
#4096\tpulse  cov: 123 ft: 222 corp: 30/1234b lim: 43 exec/s: 2048 rss: 40Mb
#12\tNEW    cov: 5 ft: 6 corp: 2/10b exec/s: 0 rss: 30Mb L: 3/3 MS: 1 ChangeBit-
thread '<unnamed>' panicked at src/harness/mod.rs:42:9: #1 not a status line
stat::number_of_executed_units: 98765
stat::average_exec_per_sec:     4321
stat::peak_rss_mb: 61
";
        let stats = parse(log);
        assert_eq!(
            stats.samples,
            vec![
                Sample {
                    seconds: 12.0,
                    execs: 49152,
                    coverage: 1234,
                    corpus: 345,
                    execs_per_second: 1234
                },
                Sample {
                    seconds: 2.0,
                    execs: 4096,
                    coverage: 123,
                    corpus: 30,
                    execs_per_second: 2048
                },
                Sample {
                    seconds: 0.0,
                    execs: 12,
                    coverage: 5,
                    corpus: 2,
                    execs_per_second: 0
                },
            ]
        );
        assert_eq!(stats.final_stats["number_of_executed_units"], 98765);
        assert_eq!(stats.final_stats["average_exec_per_sec"], 4321);
        assert_eq!(stats.final_stats.len(), 3);
    }

    #[test]
    fn a_line_without_coverage_or_rate_is_not_a_sample() {
        assert_eq!(
            parse("#1\tINITED exec/s: 0 rss: 30Mb\n#2 cov: 1 corp: 1\n").samples,
            vec![]
        );
    }
}
