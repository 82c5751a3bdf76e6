//! The control plane's processes: started so that they die with the process that started them,
//! and stopped (SIGTERM, then SIGKILL) when dropped.
//!
//! Linux's parent-death signal belongs to the *thread* that forked the child, so every child is
//! forked by one thread that lives as long as the process: a test thread that ends never takes a
//! shared control plane with it, and a test binary killed outright (CI's timeout, a `kill -9`)
//! never leaves an etcd or kube-apiserver behind.

use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::sync::mpsc::{Sender, channel};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use crate::OracleError;

/// A spawn request for the forking thread: the command and where to send the child.
type Request = (Command, Sender<std::io::Result<Child>>);

/// The thread that forks every child, started on first use.
fn spawner() -> &'static Mutex<Sender<Request>> {
    static SPAWNER: OnceLock<Mutex<Sender<Request>>> = OnceLock::new();
    SPAWNER.get_or_init(|| {
        let (tx, rx) = channel::<Request>();
        // A thread that cannot start drops the receiver: every spawn then fails with an error.
        let _ = std::thread::Builder::new()
            .name("oracle-spawner".into())
            .spawn(move || {
                for (mut command, reply) in rx {
                    // The receiver only goes away with a caller that gave up waiting.
                    let _ = reply.send(spawn_tied(&mut command));
                }
            });
        Mutex::new(tx)
    })
}

/// Fork `command` with the parent-death signal set to SIGKILL (on Linux).
#[cfg(target_os = "linux")]
fn spawn_tied(command: &mut Command) -> std::io::Result<Child> {
    use std::os::unix::process::CommandExt;
    #[expect(
        unsafe_code,
        reason = "prctl(PR_SET_PDEATHSIG) in the child between fork and exec: async-signal-safe, no allocation"
    )]
    // SAFETY: only prctl runs between fork and exec; it allocates nothing and takes no lock.
    unsafe {
        command.pre_exec(|| {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) == -1 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    command.spawn()
}

#[cfg(not(target_os = "linux"))]
fn spawn_tied(command: &mut Command) -> std::io::Result<Child> {
    command.spawn()
}

/// A running child process, its output in a log file; stopped when dropped.
#[derive(Debug)]
pub struct Process {
    name: String,
    child: Child,
    log: PathBuf,
}

impl Process {
    /// Start `program args...` with stdout and stderr going to `log`, tied to this process's
    /// lifetime (see the module doc).
    pub fn start(name: &str, program: &Path, args: &[String], log: &Path) -> Result<Self, OracleError> {
        let out = std::fs::File::create(log).map_err(|e| OracleError::io(log, e))?;
        let err = out.try_clone().map_err(|e| OracleError::io(log, e))?;
        let mut command = Command::new(program);
        command
            .args(args)
            .stdin(std::process::Stdio::null())
            .stdout(out)
            .stderr(err);
        let (tx, rx) = channel();
        let sent = spawner()
            .lock()
            .map_err(|_| OracleError::Start(format!("{name}: the spawner thread is gone")))?
            .send((command, tx));
        let child = sent
            .ok()
            .and_then(|()| rx.recv().ok())
            .ok_or_else(|| OracleError::Start(format!("{name}: the spawner thread is gone")))?
            .map_err(|e| OracleError::Start(format!("cannot run {}: {e}", program.display())))?;
        Ok(Self {
            name: name.to_owned(),
            child,
            log: log.to_path_buf(),
        })
    }

    /// The process id.
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// `Some(status)` once the process has exited.
    pub fn exited(&mut self) -> Option<String> {
        match self.child.try_wait() {
            Ok(Some(status)) => Some(status.to_string()),
            Ok(None) => None,
            Err(e) => Some(e.to_string()),
        }
    }

    /// The last lines of the process's log (for an error report).
    pub fn log_tail(&self, lines: usize) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let all: Vec<&str> = text.lines().collect();
        all[all.len().saturating_sub(lines)..].join("\n")
    }

    /// The process's name (`etcd`, `kube-apiserver`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Stop it: SIGTERM, up to `grace` to exit, then SIGKILL; always reaped.
    pub fn stop(&mut self, grace: Duration) {
        if self.exited().is_some() {
            return;
        }
        terminate(self.child.id());
        let deadline = Instant::now() + grace;
        while Instant::now() < deadline {
            if self.exited().is_some() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        self.stop(Duration::from_secs(10));
    }
}

/// Send SIGTERM to a process id.
pub fn terminate(pid: u32) {
    if let Ok(pid) = libc::pid_t::try_from(pid) {
        #[expect(unsafe_code, reason = "kill(2) on a pid this process started")]
        // SAFETY: kill has no memory-safety preconditions.
        unsafe {
            libc::kill(pid, libc::SIGTERM);
        }
    }
}

/// Whether a process id is alive (signal 0).
pub fn alive(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    #[expect(unsafe_code, reason = "kill(2) with signal 0 only probes")]
    // SAFETY: kill has no memory-safety preconditions.
    let r = unsafe { libc::kill(pid, 0) };
    r == 0
}

/// A free TCP port on 127.0.0.1 (bound, read and released; the caller starts a server on it).
pub fn free_port() -> Result<u16, OracleError> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")
        .map_err(|e| OracleError::Start(format!("cannot bind 127.0.0.1:0: {e}")))?;
    listener
        .local_addr()
        .map(|a| a.port())
        .map_err(|e| OracleError::Start(format!("cannot read a bound port: {e}")))
}
