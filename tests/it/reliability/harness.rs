//! What every part of the reliability suite shares: the scale knobs (small
//! in `cargo test`, raised by `scripts/reliability.sh`), a deterministic
//! random source, a watchdog around every process, the figures line the
//! script collects, and the file scan used by the secrets and hostile parts.

use crate::common::Project;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// The day every generated turn is dated (the harness pins the clock on it).
pub const DAY: &str = "2026-11-30";

/// A knob of the suite: `CAIRN_REL_<NAME>` when set, else the quick value.
pub fn knob(name: &str, quick: usize) -> usize {
    std::env::var(format!("CAIRN_REL_{name}"))
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(quick)
}

/// One line of figures, collected by `scripts/reliability.sh`.
pub fn figures(part: &str, line: &str) {
    println!("RELIABILITY {part}: {line}");
}

/// A note that a sub-case did not run, impossible to miss in the output.
pub fn skipped(what: &str, why: &str) {
    let line = format!("RELIABILITY SKIPPED {what}: {why}");
    println!("{line}");
    eprintln!("!!!!!!!! {line}");
}

/// xorshift64*: the same seed gives the same campaign, so a failure can be
/// replayed with `CAIRN_REL_SEED`.
pub struct Rng(u64);

impl Rng {
    pub fn new(salt: u64) -> Rng {
        let seed = std::env::var("CAIRN_REL_SEED")
            .ok()
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0x5eed_ca17);
        Rng((seed ^ salt.wrapping_mul(0x9E37_79B9_7F4A_7C15)) | 1)
    }
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

/// How long any one cairn command may take before the suite calls it a
/// hang. Not a timing assertion: a command that finishes in 19 s passes; it
/// only keeps a hang from freezing the whole test run.
pub const WATCHDOG: Duration = Duration::from_secs(20);

/// Address-space cap for the hostile-input runs (`ulimit -v`, KiB): a
/// command that tries to load a 2 GiB file into memory dies instead of
/// swapping the machine. 1 GiB is far above what cairn needs.
pub const MEMORY_CAP_KIB: u64 = 1 << 20;

#[derive(Debug)]
pub struct Run {
    pub status: Option<ExitStatus>,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub hung: bool,
}

impl Run {
    pub fn ok(&self) -> bool {
        !self.hung && self.status.is_some_and(|s| s.success())
    }
    pub fn out(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }
    pub fn err(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }
    /// What a report says about this run when it failed.
    pub fn describe(&self) -> String {
        if self.hung {
            format!("hung (killed after {} s)", WATCHDOG.as_secs())
        } else {
            format!(
                "status {:?}, stdout {:?}, stderr {:?}",
                self.status,
                truncate(&self.out(), 400),
                truncate(&self.err(), 400)
            )
        }
    }
}

pub fn truncate(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}

/// Runs `cmd` with `stdin`, killing it after [`WATCHDOG`].
pub fn run_watched(mut cmd: Command, stdin: &[u8]) -> Run {
    run_watched_for(&mut cmd, stdin, WATCHDOG)
}

/// [`run_watched`] under the [`MEMORY_CAP_KIB`] address-space cap.
pub fn run_capped(cmd: Command, stdin: &[u8]) -> Run {
    let mut capped = Command::new("sh");
    capped
        .arg("-c")
        .arg(format!("ulimit -v {MEMORY_CAP_KIB} && exec \"$0\" \"$@\""))
        .arg(cmd.get_program())
        .args(cmd.get_args())
        .env_clear();
    for (k, v) in cmd.get_envs() {
        if let Some(v) = v {
            capped.env(k, v);
        }
    }
    if let Some(dir) = cmd.get_current_dir() {
        capped.current_dir(dir);
    }
    run_watched_for(&mut capped, stdin, WATCHDOG)
}

pub fn run_watched_for(cmd: &mut Command, stdin: &[u8], limit: Duration) -> Run {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let input = stdin.to_vec();
    let mut pipe_in = child.stdin.take().unwrap();
    // A hung child never reads its stdin: feed it from a thread.
    let feeder = std::thread::spawn(move || {
        let _ = pipe_in.write_all(&input);
    });
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let reader_out = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = out.read_to_end(&mut v);
        v
    });
    let reader_err = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = err.read_to_end(&mut v);
        v
    });
    let deadline = Instant::now() + limit;
    let (status, hung) = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break (Some(s), false);
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            break (None, true);
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let _ = feeder.join();
    // A grandchild (a detached worker) may hold the pipes: don't wait on it.
    let stdout = join_within(reader_out, Duration::from_secs(2));
    let stderr = join_within(reader_err, Duration::from_secs(2));
    Run {
        status,
        stdout,
        stderr,
        hung,
    }
}

fn join_within(h: std::thread::JoinHandle<Vec<u8>>, limit: Duration) -> Vec<u8> {
    let deadline = Instant::now() + limit;
    while !h.is_finished() {
        if Instant::now() >= deadline {
            return Vec::new();
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    h.join().unwrap_or_default()
}

/// The `cairn hook` command of a project, with a payload, under the watchdog.
pub fn hook(p: &Project, payload: &serde_json::Value) -> Run {
    let mut c = p.command();
    c.arg("hook");
    run_watched(c, payload.to_string().as_bytes())
}

/// A hook must exit 0 and print nothing a client would act on. Stop prints
/// nothing at all unless the context guard blocks, and the suite never
/// fills the context.
pub fn assert_silent(what: &str, r: &Run) {
    assert!(r.ok(), "{what}: {}", r.describe());
    assert!(r.stdout.is_empty(), "{what}: printed {}", r.out());
}

/// Every cairn process that runs with this state folder (workers detached
/// by a hook included), found by its environment. The state folder is a
/// fresh temporary path, so nothing else can match.
pub fn processes_of(state: &Path) -> Vec<i32> {
    let needle = format!("CAIRN_STATE_DIR={}\0", state.display());
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) else {
            continue;
        };
        if pid == std::process::id() as i32 {
            continue;
        }
        let Ok(env) = std::fs::read(e.path().join("environ")) else {
            continue;
        };
        if memchr_find(&env, needle.as_bytes()) {
            out.push(pid);
        }
    }
    out
}

fn memchr_find(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

pub fn kill9(pid: i32) -> bool {
    Command::new("kill")
        .args(["-s", "KILL", &pid.to_string()])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Kills, by pid, whatever this project's processes left running (a
/// worker stuck on a FIFO), so a failing case cannot leak processes.
pub struct Reaper(pub PathBuf);

impl Drop for Reaper {
    fn drop(&mut self) {
        for pid in processes_of(&self.0) {
            kill9(pid);
        }
    }
}

/// Waits (bounded by the watchdog) until no process of this state folder runs.
pub fn wait_idle(state: &Path) {
    let deadline = Instant::now() + WATCHDOG;
    while !processes_of(state).is_empty() {
        if Instant::now() >= deadline {
            for pid in processes_of(state) {
                kill9(pid);
            }
            panic!(
                "a cairn process of {} was still running after {} s",
                state.display(),
                WATCHDOG.as_secs()
            );
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

pub fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| o.stdout.trim_ascii() == b"0")
        .unwrap_or(false)
}

/// Every regular file under `dir` (symbolic links are not followed), with
/// at most `cap` bytes of each: a sparse 2 GiB log is not read whole.
pub fn files_under(dir: &Path, cap: u64) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let Ok(ft) = e.file_type() else { continue };
            if ft.is_dir() {
                stack.push(e.path());
            } else if ft.is_file() {
                let mut bytes = Vec::new();
                if let Ok(f) = std::fs::File::open(e.path()) {
                    let _ = f.take(cap).read_to_end(&mut bytes);
                }
                out.push((e.path(), bytes));
            }
        }
    }
    out.sort();
    out
}

/// A tmpfs mounted for one test, unmounted when dropped.
pub struct Tmpfs(pub PathBuf);

impl Tmpfs {
    /// `None` when this process may not mount (not root, no CAP_SYS_ADMIN).
    pub fn mount(dir: &Path, size: &str) -> Option<Tmpfs> {
        std::fs::create_dir_all(dir).unwrap();
        if !is_root() {
            return None;
        }
        let ok = Command::new("mount")
            .args([
                "-t",
                "tmpfs",
                "-o",
                &format!("size={size},mode=0755"),
                "tmpfs",
            ])
            .arg(dir)
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        ok.then(|| Tmpfs(dir.to_path_buf()))
    }

    pub fn remount(&self, opts: &str) -> bool {
        Command::new("mount")
            .args(["-o", &format!("remount,{opts}")])
            .arg(&self.0)
            .status()
            .is_ok_and(|s| s.success())
    }

    /// Fills the file system: one filler file grown until the disk says no.
    pub fn fill(&self) -> PathBuf {
        let filler = self.0.join("filler");
        let mut f = std::fs::File::create(&filler).unwrap();
        let block = vec![0x5au8; 4096];
        while f.write_all(&block).is_ok() {}
        let _ = f.sync_all();
        filler
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount")
            .arg("-l")
            .arg(&self.0)
            .stderr(Stdio::null())
            .status();
    }
}

/// How many times the turn identified by `needle` is in the log's work
/// section (the offline extractor writes one bullet per file written).
pub fn times_logged(log: &str, needle: &str) -> usize {
    crate::common::section(log, "## Travail produit")
        .iter()
        .filter(|b| b.contains(needle))
        .count()
}

/// A log cairn wrote parses and renders back to itself byte for byte:
/// nothing torn, nothing half-merged.
pub fn assert_log_is_whole(log: &str) {
    use cairn::memory::log::{DailyLog, Lang};
    assert!(log.ends_with('\n'), "torn log (no final newline):\n{log}");
    let back = DailyLog::parse(log, DAY, Lang::Fr).render();
    assert_eq!(back, log, "the log is not a fixed point of parse/render");
}
