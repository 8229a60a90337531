//! Memory stays bounded on hostile input: a transcript holding one 100 MB string, and 200,000-deep
//! nesting. Each command runs under an address-space limit (`ulimit -v`): an allocation past the
//! bound fails and the command dies, so the bound is a fact of the run, not a sample. (A child's
//! `ru_maxrss` would not do: Linux carries the spawning test process's peak into it at exec.)
//! Memory is measured, never time.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::process::Command;

/// What a command may map beyond a multiple of its input: the binary, its libraries, stacks.
const BASE_KIB: u64 = 64 * 1024;

/// Runs `ctxfuzz ARGS` with at most `limit_kib` of address space; its exit code and stderr.
///
/// The limit counts address space, and mimalloc reserves an arena of whatever room it finds at its
/// first large allocation (memory it has not touched): with some limits that reservation left too
/// little room for a 100 MB file's read, and the sweep's test failed one run in four, and eleven
/// in twelve at a limit 32 MiB higher. `MIMALLOC_ARENA_RESERVE=0` keeps it from reserving ahead,
/// so the address space a command maps is the memory it asks for, which is what these tests bound.
///
/// `MALLOC_ARENA_MAX=1` for the same reason. ctxfuzz allocates through mimalloc, but a thread's
/// start still calls glibc's `malloc` (Rust's standard library asks `pthread_getattr_np` for the
/// new thread's stack, which allocates), and glibc gives that thread, the signal handlers', an
/// arena of its own: 128 MiB of address space reserved for alignment, trimmed to 64 MiB. When
/// that thread ran late, while the main thread was reading an 83 MB session, the session's read
/// failed ("out of memory", once in CI), and at 200 MB the check failed two runs in five here.
/// With the one arena, the check runs within 150 MB every time.
fn within(limit_kib: u64, args: &[&str]) -> (i32, String) {
    let output = Command::new("sh")
        .env("MIMALLOC_ARENA_RESERVE", "0")
        .env("MALLOC_ARENA_MAX", "1")
        .args([
            "-c",
            &format!("ulimit -v {limit_kib} && exec \"$0\" \"$@\""),
        ])
        .arg(env!("CARGO_BIN_EXE_ctxfuzz"))
        .args(args)
        .output()
        .expect("sh runs");
    let code = output.status.code().unwrap_or(-1);
    (code, String::from_utf8_lossy(&output.stderr).into_owned())
}

/// A pi transcript of one user message whose text is `len` bytes.
fn write_huge_string(path: &Path, len: usize) {
    let mut out = BufWriter::new(File::create(path).unwrap());
    out.write_all(br#"[{"role":"user","timestamp":1,"content":""#)
        .unwrap();
    let chunk = [b'x'; 1 << 16];
    for _ in 0..len / chunk.len() {
        out.write_all(&chunk).unwrap();
    }
    out.write_all(&chunk[..len % chunk.len()]).unwrap();
    out.write_all(br#""}]"#).unwrap();
    out.flush().unwrap();
}

#[test]
fn memory_a_100_mb_string_is_read_within_four_times_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("huge-string.json");
    write_huge_string(&path, 100_000_000);
    let file_kib = std::fs::metadata(&path).unwrap().len() / 1024;
    let path = path.to_str().unwrap();
    for command in ["check", "sweep", "compact"] {
        let limit = 4 * file_kib + BASE_KIB;
        let (code, stderr) = within(limit, &[command, path]);
        assert_eq!(
            code, 0,
            "ctxfuzz {command} of a {file_kib} KiB file within {limit} KiB: {stderr}"
        );
    }
}

/// 1,040,001 pi messages (about 100 MB): calls and their results, a third of the results orphans (their
/// call ids are an earlier call's), then a user turn.
fn write_long_array(path: &Path) {
    let mut out = BufWriter::new(File::create(path).unwrap());
    out.write_all(b"[").unwrap();
    for i in 0..520_000 {
        write!(
            out,
            r#"{{"role":"assistant","content":[{{"type":"toolCall","id":"c{i}","name":"bash","arguments":{{}}}}],"stopReason":"toolUse"}},{{"role":"toolResult","toolCallId":"c{}","content":[{{"type":"text","text":"ok"}}]}},"#,
            i - i % 3
        )
        .unwrap();
    }
    out.write_all(br#"{"role":"user","content":"done"}]"#)
        .unwrap();
    out.flush().unwrap();
}

/// `ctxfuzz sweep` reads an array one message at a time: a 100 MB transcript of calls and
/// results, some of them orphans, is swept within twice its size (read whole, it took 3.7 times).
#[test]
fn memory_sweep_of_a_long_array_holds_little_more_than_its_text() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("long.json");
    write_long_array(&path);
    let file_kib = std::fs::metadata(&path).unwrap().len() / 1024;
    let output = dir.path().join("swept.json");
    let limit = 2 * file_kib + BASE_KIB;
    let (code, stderr) = within(
        limit,
        &[
            "sweep",
            path.to_str().unwrap(),
            "-o",
            output.to_str().unwrap(),
        ],
    );
    assert_eq!(
        code, 0,
        "a {file_kib} KiB file within {limit} KiB: {stderr}"
    );
    assert!(stderr.contains("swept 346666 orphan"), "{stderr}");
}

/// `ctxfuzz compact` reads an array one message at a time too, keeping each message's facts: the
/// same transcript is compacted within three times its size (read whole, it took 4.5 times).
/// `autobot` has no size check, which would keep this transcript of near-empty texts whole.
#[test]
fn memory_compact_of_a_long_array_holds_under_three_times_its_text() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("long.json");
    write_long_array(&path);
    let file_kib = std::fs::metadata(&path).unwrap().len() / 1024;
    let output = dir.path().join("compacted.json");
    let limit = 3 * file_kib + BASE_KIB;
    let (code, stderr) = within(
        limit,
        &[
            "compact",
            path.to_str().unwrap(),
            "--variant",
            "autobot",
            "--json",
            "-o",
            output.to_str().unwrap(),
        ],
    );
    assert_eq!(
        code, 0,
        "a {file_kib} KiB file within {limit} KiB: {stderr}"
    );
    let written = std::fs::read_to_string(&output).unwrap();
    assert!(
        written.starts_with("[\n  {\n    \"role\": \"compactionSummary\""),
        "{}",
        &written[..written.len().min(200)]
    );
}

/// `check` judges one file at a time and drops it: six files cost what one does, where holding
/// them all (as it once did) needs half as much again as the bound.
#[test]
fn memory_check_of_six_files_holds_one_at_a_time() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big-string.json");
    write_huge_string(&path, 25_000_000);
    let file_kib = std::fs::metadata(&path).unwrap().len() / 1024;
    let path = path.to_str().unwrap();
    let limit = 4 * file_kib + BASE_KIB;
    let (code, stderr) = within(limit, &["check", path, path, path, path, path, path]);
    assert_eq!(
        code, 0,
        "ctxfuzz check of six {file_kib} KiB files within {limit} KiB: {stderr}"
    );
}

#[test]
fn memory_200000_deep_nesting_is_one_line_and_exit_2_in_little_memory() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("deep.json");
    let depth = 200_000;
    std::fs::write(&path, "[".repeat(depth) + &"]".repeat(depth)).unwrap();
    let path = path.to_str().unwrap();
    for command in ["check", "sweep", "compact", "render"] {
        let (code, stderr) = within(BASE_KIB, &[command, path]);
        assert_eq!(code, 2, "ctxfuzz {command}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "ctxfuzz {command}: {stderr}");
        assert!(
            stderr.contains("deep.json:1:128: invalid JSON: recursion limit exceeded"),
            "ctxfuzz {command}: {stderr}"
        );
    }
}

/// `ctxfuzz check` reads a pi session file through an index of its lines and parses again only
/// the entries the context keeps, judging their messages in parts: an 85 MB session with branches
/// and compactions is checked within twice its size of address space (it runs within 150,000 KiB
/// and not within 145,000, of which 112 MB resident: 1.3x; the rest is the binary and address
/// space mapped but never touched). Read whole, it did not run in 400 MB.
#[test]
fn memory_check_of_a_long_session_file_holds_its_text_and_an_index() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("long.jsonl");
    let mut out = BufWriter::new(File::create(&path).unwrap());
    ctxfuzz::generators::session_file::write_long(&mut out, 300_000, 1).unwrap();
    out.flush().unwrap();
    drop(out);
    let file_kib = std::fs::metadata(&path).unwrap().len() / 1024;
    let limit = 2 * file_kib + BASE_KIB;
    let (code, stderr) = within(limit, &["check", path.to_str().unwrap()]);
    assert_eq!(
        code, 0,
        "a {file_kib} KiB session within {limit} KiB: {stderr}"
    );
}

/// `ctxfuzz scan` reads each session file of a directory as `check` does, through an index of its
/// lines, and drops it before the next: three long sessions (85 MB each, branches and
/// compactions) are scanned within twice the largest's size of address space, the bound `check`
/// meets on one of them. Read whole (as scan did), they fail an allocation within that bound.
#[test]
fn memory_scan_of_long_sessions_holds_one_text_and_an_index() {
    let dir = tempfile::tempdir().unwrap();
    let mut largest_kib = 0;
    for seed in 1..=3 {
        let path = dir.path().join(format!("long-{seed}.jsonl"));
        let mut out = BufWriter::new(File::create(&path).unwrap());
        ctxfuzz::generators::session_file::write_long(&mut out, 300_000, seed).unwrap();
        out.flush().unwrap();
        drop(out);
        largest_kib = largest_kib.max(std::fs::metadata(&path).unwrap().len() / 1024);
    }
    let limit = 2 * largest_kib + BASE_KIB;
    let (code, stderr) = within(limit, &["scan", dir.path().to_str().unwrap()]);
    assert_eq!(
        code, 0,
        "three sessions of up to {largest_kib} KiB within {limit} KiB: {stderr}"
    );
}
