//! Memory stays bounded on hostile input: a transcript holding one 100 MB string, and 200,000-deep
//! nesting. Peak resident memory is the child's own (`wait4`'s `ru_maxrss`), so other tests'
//! processes running meanwhile do not count; memory is measured, never time.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::process::{Command, Stdio};

/// What a command may hold beyond a multiple of its input: the binary, its libraries, the
/// allocator's arenas.
const BASE_KIB: u64 = 32 * 1024;

/// Runs `ctxfuzz ARGS` and returns its exit code, its stderr and its peak resident memory (KiB).
fn peak_memory(args: &[&str]) -> (i32, String, u64) {
    let child = Command::new(env!("CARGO_BIN_EXE_ctxfuzz"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the ctxfuzz binary runs");
    let mut status = 0;
    // SAFETY: an all-zero `rusage` is a valid value for `wait4` to fill in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `child` is this process's child and has not been waited for; the pointers are
    // valid for the call.
    let waited = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut usage) };
    assert_eq!(waited, child.id() as libc::pid_t, "wait4 on the child");
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.expect("piped"), &mut stderr).unwrap();
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        128 + libc::WTERMSIG(status)
    };
    (code, stderr, usage.ru_maxrss as u64)
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
fn memory_a_100_mb_string_is_read_within_three_times_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("huge-string.json");
    write_huge_string(&path, 100_000_000);
    let file_kib = std::fs::metadata(&path).unwrap().len() / 1024;
    let path = path.to_str().unwrap();
    for command in ["check", "sweep", "compact"] {
        let (code, stderr, peak_kib) = peak_memory(&[command, path]);
        assert_eq!(code, 0, "ctxfuzz {command}: {stderr}");
        assert!(
            peak_kib <= 3 * file_kib + BASE_KIB,
            "ctxfuzz {command} of a {file_kib} KiB file peaked at {peak_kib} KiB (bound: 3x the file + {BASE_KIB} KiB)"
        );
    }
}

#[test]
fn memory_200000_deep_nesting_is_one_line_and_exit_2_in_little_memory() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("deep.json");
    let depth = 200_000;
    std::fs::write(&path, "[".repeat(depth) + &"]".repeat(depth)).unwrap();
    let path = path.to_str().unwrap();
    for command in ["check", "sweep", "compact", "render"] {
        let (code, stderr, peak_kib) = peak_memory(&[command, path]);
        assert_eq!(code, 2, "ctxfuzz {command}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "ctxfuzz {command}: {stderr}");
        assert!(
            stderr.contains("deep.json:1:128: invalid JSON: recursion limit exceeded"),
            "ctxfuzz {command}: {stderr}"
        );
        assert!(
            peak_kib <= BASE_KIB,
            "ctxfuzz {command} peaked at {peak_kib} KiB"
        );
    }
}
