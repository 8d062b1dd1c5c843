//! Work done for one large request, on a thread of lower scheduling priority than the threads
//! serving everyone else: decoding a 5 MB CreateTopics or deciding on 200,000 names takes a
//! core for hundreds of milliseconds, and on a node with few cores the Metadata, Produce and
//! Fetch requests of other clients would queue behind it for the CPU. Kafka has no such split
//! (its request handler threads are all equal); the issue that asked for it wants another
//! client's p99 within 2x of idle while such a request runs.
//!
//! [`run_niced`] runs the work on a thread of its own whose nice value is raised by
//! [`BACKGROUND_NICENESS`] (on Linux a thread's nice value is its own; elsewhere the process's
//! priority is left alone) and waits for it. Raising one's own nice value needs no privilege, and
//! the thread ends with the work, so no thread ever has to lower it again. The caller's thread
//! waits; [`in_background`] is the same for async code, which hands the thread's other tasks to
//! the runtime first.
//! Work that runs under a lock others wait for must not be run this way: a lowered priority
//! would hold the lock longer when the CPU is contended.

/// How much lower a background thread's priority is than the threads that spawned it: at nice
/// +10 the kernel gives it about a tenth of the CPU time a contending nice-0 thread gets.
pub const BACKGROUND_NICENESS: i32 = 10;

/// Frames larger than this are decoded with [`run_niced`] (Produce excepted: a large record
/// batch is the data path, and decoding one does not walk its records). Kafka's clients send
/// requests of a few KiB but for Produce; a 1 MiB admin request names tens of thousands of
/// topics or partitions.
pub const BACKGROUND_FRAME_BYTES: usize = 1024 * 1024;

/// Runs `work` on a new thread at lowered priority and returns its result; inline, at the
/// caller's priority, if no thread can be started. A panic in `work` is resumed in the caller.
pub fn run_niced<T: Send>(work: impl FnOnce() -> T + Send) -> T {
    let mut work = Some(work);
    let slot = &mut work;
    let ran = std::thread::scope(|scope| {
        let thread = std::thread::Builder::new().name("strand-background".to_owned()).spawn_scoped(scope, move || {
            lower_own_priority();
            slot.take().map(|work| work())
        });
        thread.ok().map(|thread| thread.join())
    });
    match ran {
        Some(Ok(Some(done))) => done,
        Some(Err(panic)) => std::panic::resume_unwind(panic),
        // The thread could not start: `work` is still here.
        Some(Ok(None)) | None => match work.take() {
            Some(work) => work(),
            None => unreachable_work(),
        },
    }
}

/// [`run_niced`] from async code: on a multi-threaded tokio runtime this worker's other tasks are
/// handed to the runtime while the work runs (`block_in_place`); elsewhere (a current-thread
/// runtime, as in tests, which cannot hand them over) the work runs inline at the caller's
/// priority.
pub fn in_background<T: Send>(work: impl FnOnce() -> T + Send) -> T {
    let multi_thread = tokio::runtime::Handle::try_current()
        .is_ok_and(|h| h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread);
    if multi_thread { tokio::task::block_in_place(|| run_niced(work)) } else { work() }
}

/// Runs the future `work` to its end on a thread of its own, at the caller's priority, while the
/// calling worker's other tasks are handed to the runtime (`block_in_place`); what `work` spawns,
/// and its timers and sockets, stay the runtime's. For CPU-heavy async work the request handlers
/// must not wait behind: a tokio worker busy with it delays every task queued on it until it
/// yields, where the kernel preempts a thread of its own as soon as a worker with a request to
/// serve wakes up (as Kafka's controller runs on its own thread, beside the request handlers).
/// Inline elsewhere (a current-thread runtime, as in tests, or none). Once started, the work is
/// not cancelled with the calling future, and a timeout around the call cannot end it early: the
/// caller waits for its end (a large creation runs to completion, as in Kafka's controller).
pub async fn on_own_thread<F>(work: F) -> F::Output
where
    F: std::future::Future + Send,
    F::Output: Send,
{
    let handle = match tokio::runtime::Handle::try_current() {
        Ok(handle) if handle.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread => handle,
        _ => return work.await,
    };
    tokio::task::block_in_place(|| {
        let mut work = Some(work);
        let slot = &mut work;
        let on = &handle;
        let ran = std::thread::scope(|scope| {
            let thread = std::thread::Builder::new()
                .name("strand-own-thread".to_owned())
                .spawn_scoped(scope, move || slot.take().map(|work| on.block_on(work)));
            thread.ok().map(|thread| thread.join())
        });
        match ran {
            Some(Ok(Some(done))) => done,
            Some(Err(panic)) => std::panic::resume_unwind(panic),
            // The thread could not start: `work` is still here, run on this thread.
            Some(Ok(None)) | None => match work.take() {
                Some(work) => handle.block_on(work),
                None => unreachable_work(),
            },
        }
    })
}

/// `slot.take()` runs once, on the thread or (when it never started) here.
#[cold]
fn unreachable_work() -> ! {
    unreachable!("background work taken twice")
}

/// Raises the calling thread's nice value; a failure leaves it as it was (the work still runs).
fn lower_own_priority() {
    #[cfg(target_os = "linux")]
    {
        let current = rustix::process::getpriority_process(None).unwrap_or(0);
        let _ = rustix::process::setpriority_process(None, current.saturating_add(BACKGROUND_NICENESS).min(19));
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    /// This thread's nice value, as the kernel reports it (field 19 of `/proc/thread-self/stat`).
    fn own_niceness() -> i32 {
        let stat = std::fs::read_to_string("/proc/thread-self/stat").expect("stat");
        let after_name = &stat[stat.rfind(')').expect("comm") + 2..];
        after_name.split(' ').nth(16).expect("nice field").parse().expect("a number")
    }

    #[test]
    fn the_work_runs_at_lower_priority_and_the_caller_keeps_its_own() {
        let caller = own_niceness();
        let worker = run_niced(own_niceness);
        assert_eq!(worker, (caller + BACKGROUND_NICENESS).min(19));
        assert_eq!(own_niceness(), caller, "the caller's priority is untouched");
    }

    /// Work on its own thread reaches the runtime's timers, and a task it spawns is the
    /// runtime's: it runs on a worker, after the thread ended.
    #[test]
    fn own_thread_work_runs_apart_and_what_it_spawns_stays_the_runtimes() {
        let mut builder = tokio::runtime::Builder::new_multi_thread();
        let runtime = builder.worker_threads(2).thread_name("test-worker").enable_all().build().expect("runtime");
        runtime.block_on(async {
            let (ran_on, spawned) = on_own_thread(async {
                let timed = tokio::time::timeout(std::time::Duration::from_secs(30), async { 7 }).await;
                assert_eq!(timed, Ok(7));
                let spawned = tokio::spawn(async { std::thread::current().name().map(str::to_owned) });
                (std::thread::current().name().map(str::to_owned), spawned)
            })
            .await;
            assert_eq!(ran_on.as_deref(), Some("strand-own-thread"));
            let spawned_on = spawned.await.expect("the spawned task ran");
            assert_eq!(spawned_on.as_deref(), Some("test-worker"));
        });
    }

    /// On a current-thread runtime (tests) the work runs inline.
    #[tokio::test]
    async fn own_thread_work_runs_inline_on_a_current_thread_runtime() {
        let caller = std::thread::current().id();
        assert_eq!(on_own_thread(async { std::thread::current().id() }).await, caller);
    }

    #[test]
    fn a_panic_in_the_work_reaches_the_caller() {
        let caught = std::panic::catch_unwind(|| run_niced(|| panic!("inside")));
        let panic = caught.expect_err("the panic is resumed");
        assert_eq!(panic.downcast_ref::<&str>(), Some(&"inside"));
    }

    #[test]
    fn borrowed_data_is_usable_and_the_result_returned() {
        let names: Vec<String> = (0..1000).map(|i| format!("t{i}")).collect();
        let total = run_niced(|| names.iter().map(String::len).sum::<usize>());
        assert_eq!(total, names.iter().map(String::len).sum::<usize>());
    }
}
