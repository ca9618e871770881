//! Awaiting a pull walk's ready vertices (`Walker::next_ready_async`,
//! `next_ready_many_async`) on executors written here with the standard
//! library: a thread-parking `block_on`, a multi-threaded one, and polls by
//! hand with wakers that count their wakes.

use std::collections::{HashSet, VecDeque};
use std::future::Future;
use std::mem;
use std::panic::{self, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex};
use std::task::{Context, Poll, Wake, Waker};
use std::thread::{self, Thread};
use std::time::{Duration, Instant};

use libdag::{
    EventKind, Graph, NextReady, NextReadyMany, Pending, Status, VertexId, VertexStatus,
    WalkOptions,
};

/// Runs `f` on a thread of its own and fails the test, rather than hang it,
/// when `f` has not returned within `secs` seconds.
fn within<T: Send + 'static>(secs: u64, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (send, receive) = mpsc::channel();
    let runner = thread::spawn(move || {
        let _ = send.send(f());
    });
    match receive.recv_timeout(Duration::from_secs(secs)) {
        Ok(out) => out,
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("hung: not done within {} s", secs),
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            panic::resume_unwind(runner.join().unwrap_err())
        }
    }
}

struct Unpark(Thread);

impl Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }
}

/// Polls `future` on this thread, parked until its waker is woken: a
/// future that is never woken hangs here.
fn block_on<F: Future>(future: F) -> F::Output {
    let waker = Waker::from(Arc::new(Unpark(thread::current())));
    let mut cx = Context::from_waker(&waker);
    let mut future = Box::pin(future);
    loop {
        match future.as_mut().poll(&mut cx) {
            Poll::Ready(out) => return out,
            Poll::Pending => thread::park(),
        }
    }
}

type Task<'a> = Pin<Box<dyn Future<Output = ()> + Send + 'a>>;

/// Ids of woken tasks, and how many tasks are left.
struct RunQueue {
    state: Mutex<(VecDeque<usize>, usize)>,
    changed: Condvar,
}

struct TaskWaker {
    id: usize,
    queue: Arc<RunQueue>,
}

impl Wake for TaskWaker {
    fn wake(self: Arc<Self>) {
        self.queue.state.lock().unwrap().0.push_back(self.id);
        self.queue.changed.notify_one();
    }
}

/// A multi-threaded executor: `threads` threads poll the tasks, a woken
/// task again on whichever thread is free, until every task is done.
fn run_tasks(threads: usize, tasks: Vec<Task<'_>>) {
    let queue = Arc::new(RunQueue {
        state: Mutex::new(((0..tasks.len()).collect(), tasks.len())),
        changed: Condvar::new(),
    });
    let slots: Vec<Mutex<Option<Task<'_>>>> =
        tasks.into_iter().map(|t| Mutex::new(Some(t))).collect();
    thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let id = {
                    let mut state = queue.state.lock().unwrap();
                    loop {
                        if state.1 == 0 {
                            return;
                        }
                        if let Some(id) = state.0.pop_front() {
                            break id;
                        }
                        state = queue.changed.wait(state).unwrap();
                    }
                };
                let mut slot = slots[id].lock().unwrap();
                let task = match slot.as_mut() {
                    Some(task) => task,
                    None => continue,
                };
                let waker = Waker::from(Arc::new(TaskWaker {
                    id,
                    queue: queue.clone(),
                }));
                let polled = panic::catch_unwind(AssertUnwindSafe(|| {
                    task.as_mut().poll(&mut Context::from_waker(&waker))
                }));
                let finished = match polled {
                    Ok(poll) => poll.is_ready(),
                    Err(panicked) => {
                        // Lets the other threads go before the scope resumes it.
                        queue.state.lock().unwrap().1 = 0;
                        queue.changed.notify_all();
                        panic::resume_unwind(panicked);
                    }
                };
                if finished {
                    *slot = None;
                    let mut state = queue.state.lock().unwrap();
                    state.1 -= 1;
                    if state.1 == 0 {
                        queue.changed.notify_all();
                    }
                }
            });
        }
    });
}

/// Returns `Pending` once, waking its task at once: lets other tasks run.
struct YieldNow(bool);

impl Future for YieldNow {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            return Poll::Ready(());
        }
        self.0 = true;
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

/// A waker that counts its wakes, for futures polled by hand.
#[derive(Default)]
struct Flag {
    wakes: Mutex<usize>,
    woken: Condvar,
}

impl Wake for Flag {
    fn wake(self: Arc<Self>) {
        *self.wakes.lock().unwrap() += 1;
        self.woken.notify_all();
    }
}

impl Flag {
    fn wakes(&self) -> usize {
        *self.wakes.lock().unwrap()
    }

    /// Waits until woken more than `seen` times; false after `timeout`.
    fn woken_after(&self, seen: usize, timeout: Duration) -> bool {
        let wakes = self.wakes.lock().unwrap();
        let (wakes, _) = self
            .woken
            .wait_timeout_while(wakes, timeout, |n| *n <= seen)
            .unwrap();
        *wakes > seen
    }
}

fn poll_with<F: Future + Unpin>(future: &mut F, flag: &Arc<Flag>) -> Poll<F::Output> {
    let waker = Waker::from(flag.clone());
    Pin::new(future).poll(&mut Context::from_waker(&waker))
}

const LONG: Duration = Duration::from_secs(10);

/// `names` vertices; each of `edges` (a, b) makes a depend on b.
fn graph(names: &[&str], edges: &[(usize, usize)]) -> (Graph, Vec<VertexId>) {
    let mut g = Graph::new().unwrap();
    let ids: Vec<VertexId> = names
        .iter()
        .map(|&n| g.add_vertex(Some(n)).unwrap())
        .collect();
    for &(a, b) in edges {
        g.connect(ids[a], ids[b]).unwrap();
    }
    (g, ids)
}

#[test]
fn the_futures_are_send_and_sync() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<NextReady<'static, 'static>>();
    send_sync::<NextReadyMany<'static, 'static>>();
}

#[test]
fn a_diamond_is_awaited_in_dependency_order() {
    within(30, || {
        let (g, ids) = graph(
            &["bottom", "left", "right", "top"],
            &[(1, 0), (2, 0), (3, 1), (3, 2)],
        );
        let walker = g.begin_walk(&WalkOptions::new().parallelism(2)).unwrap();
        let completed = Arc::new(Mutex::new(HashSet::new()));
        let order = block_on(async {
            let mut order = Vec::new();
            let mut workers = Vec::new();
            while let Some(pending) = walker.next_ready_async().await.unwrap() {
                for dependency in g.dependencies(pending.id()).unwrap() {
                    assert!(
                        completed.lock().unwrap().contains(&dependency),
                        "{} handed out before {} completed",
                        pending.id(),
                        dependency
                    );
                }
                order.push(pending.id());
                // Completed later, elsewhere: the next await has to wait.
                let completed = completed.clone();
                workers.push(thread::spawn(move || {
                    thread::sleep(Duration::from_millis(5));
                    completed.lock().unwrap().insert(pending.id());
                    pending.succeed().unwrap();
                }));
            }
            for worker in workers {
                worker.join().unwrap();
            }
            order
        });
        assert_eq!(order.len(), 4);
        assert_eq!((order[0], order[3]), (ids[0], ids[3]));
        let middle: HashSet<_> = order[1..3].iter().copied().collect();
        assert_eq!(middle, [ids[1], ids[2]].into_iter().collect::<HashSet<_>>());
        assert!(walker.wait().unwrap().ok());
    });
}

#[test]
fn hundreds_of_vertices_on_a_multi_threaded_executor() {
    within(60, || {
        const N: usize = 300;
        let mut g = Graph::new().unwrap();
        let ids: Vec<VertexId> = (0..N).map(|_| g.add_vertex(None).unwrap()).collect();
        for i in 1..N {
            for d in [(i * 7 + 3) % i, (i * 13 + 5) % i, i / 2] {
                if !g.has_edge(ids[i], ids[d]) {
                    g.connect(ids[i], ids[d]).unwrap();
                }
            }
        }
        let walker = g.begin_walk(&WalkOptions::new().parallelism(6)).unwrap();
        let completed = Arc::new(Mutex::new(HashSet::new()));
        let handed_out = Mutex::new(Vec::new());
        let workers = Mutex::new(Vec::new());
        // Checks one vertex handed out, then completes it inline, after
        // yielding to other tasks, or on a thread of its own.
        let run = |pending: Pending| {
            let (g, completed, handed_out, workers) = (&g, &completed, &handed_out, &workers);
            async move {
                let id = pending.id();
                for dependency in g.dependencies(id).unwrap() {
                    assert!(
                        completed.lock().unwrap().contains(&dependency),
                        "{} handed out before {} completed",
                        id,
                        dependency
                    );
                }
                handed_out.lock().unwrap().push(id);
                match id.get() % 3 {
                    0 => {}
                    1 => YieldNow(false).await,
                    _ => {
                        let completed = completed.clone();
                        workers.lock().unwrap().push(thread::spawn(move || {
                            thread::sleep(Duration::from_millis(1));
                            completed.lock().unwrap().insert(pending.id());
                            pending.succeed().unwrap();
                        }));
                        return;
                    }
                }
                completed.lock().unwrap().insert(id);
                pending.succeed().unwrap();
            }
        };
        let mut tasks: Vec<Task<'_>> = Vec::new();
        for _ in 0..6 {
            tasks.push(Box::pin(async {
                while let Some(pending) = walker.next_ready_async().await.unwrap() {
                    run(pending).await;
                }
            }));
        }
        for _ in 0..2 {
            tasks.push(Box::pin(async {
                loop {
                    let batch = walker.next_ready_many_async(4).await.unwrap();
                    if batch.is_empty() {
                        break;
                    }
                    assert!(batch.len() <= 4);
                    for pending in batch {
                        run(pending).await;
                    }
                }
            }));
        }
        run_tasks(4, tasks);
        for worker in workers.into_inner().unwrap() {
            worker.join().unwrap();
        }
        let handed_out = handed_out.into_inner().unwrap();
        let unique: HashSet<_> = handed_out.iter().collect();
        assert_eq!((handed_out.len(), unique.len()), (N, N));
        let report = walker.wait().unwrap();
        assert_eq!(report.count(VertexStatus::Ok), N);
    });
}

/// Polls `future` once, completes `previous` (which readies the next
/// vertex), waits for the wake, and drops the future unpolled.
fn dropped_once_woken<F: Future + Unpin>(mut future: F, previous: Pending) {
    let flag = Arc::new(Flag::default());
    assert!(poll_with(&mut future, &flag).is_pending());
    previous.succeed().unwrap();
    assert!(
        flag.woken_after(0, LONG),
        "not woken when the next vertex became ready"
    );
}

#[test]
fn a_future_dropped_while_waiting_loses_no_vertex() {
    within(30, || {
        let (g, ids) = graph(&["a", "b", "c", "d"], &[(1, 0), (2, 1), (3, 2)]);
        let walker = g.begin_walk(&WalkOptions::new()).unwrap();
        let a = walker.next_ready(None).unwrap().unwrap();

        // Each vertex is taken for a future dropped once woken, and whoever
        // asks next has it at once.
        dropped_once_woken(walker.next_ready_async(), a);
        let b = match poll_with(&mut walker.next_ready_async(), &Arc::new(Flag::default())) {
            Poll::Ready(taken) => taken.unwrap().unwrap(),
            Poll::Pending => panic!("b was lost with the dropped future"),
        };
        assert_eq!(b.id(), ids[1]);

        dropped_once_woken(walker.next_ready_many_async(8), b);
        let c = walker.next_ready_many(8, Some(Duration::ZERO)).unwrap();
        assert_eq!(c.iter().map(|p| p.id()).collect::<Vec<_>>(), [ids[2]]);

        dropped_once_woken(walker.next_ready_async(), c.into_iter().next().unwrap());
        let d = walker.next_ready(Some(Duration::ZERO)).unwrap().unwrap();
        assert_eq!(d.id(), ids[3]);
        d.succeed().unwrap();

        assert!(walker.next_ready(None).unwrap().is_none());
        assert_eq!(walker.wait().unwrap().count(VertexStatus::Ok), 4);
    });
}

#[test]
fn a_thread_already_waiting_has_a_vertex_a_dropped_future_left() {
    // Two wait in libdag for b: a thread in next_ready(None), and the
    // futures' thread. When the futures' thread has it and its future is
    // dropped, b waits in the queue; the thread waiting in libdag saw it
    // only on a later call, and the walk waited for ever for b.
    within(120, || {
        // Who has b is libdag's choice: rounds until b went by the queue a
        // few times, for up to a minute. The futures' thread starts waiting
        // first (the sleep gives it the time) and the thread is asleep in
        // its wait before a ends: woken together, the earlier waiter tends
        // to be first. Started the other way round, the thread had b in
        // about three rounds in four on an idle machine, and in all of 400
        // during a CI run.
        let mut queued = 0;
        let started = Instant::now();
        while queued < 3 && started.elapsed() < Duration::from_secs(60) {
            let (g, ids) = graph(&["a", "b"], &[(1, 0)]);
            let walker = g.begin_walk(&WalkOptions::new()).unwrap();
            let a = walker.next_ready(None).unwrap().unwrap();
            let flag = Arc::new(Flag::default());
            let mut future = walker.next_ready_async();
            assert!(poll_with(&mut future, &flag).is_pending());
            thread::sleep(Duration::from_millis(5));
            thread::scope(|s| {
                let (send, receive) = mpsc::channel();
                let w = &walker;
                thread::Builder::new()
                    .name(WAITER.into())
                    .spawn_scoped(s, move || send.send(w.next_ready(None)).unwrap())
                    .unwrap();
                wait_until_asleep(WAITER);
                a.succeed().unwrap();
                let deadline = Instant::now() + LONG;
                let b = loop {
                    if let Ok(taken) = receive.try_recv() {
                        break taken; // the thread had it from libdag
                    }
                    if flag.wakes() > 0 {
                        queued += 1;
                        drop(future);
                        match receive.recv_timeout(Duration::from_secs(5)) {
                            Ok(taken) => break taken,
                            Err(_) => {
                                walker.cancel().unwrap(); // lets the thread go
                                panic!("the waiting thread never had the vertex the dropped future left");
                            }
                        }
                    }
                    assert!(Instant::now() < deadline, "nobody had b");
                    thread::sleep(Duration::from_millis(1));
                };
                let b = b.unwrap().unwrap();
                assert_eq!(b.id(), ids[1]);
                b.succeed().unwrap();
            });
            assert!(walker.next_ready(None).unwrap().is_none());
        }
        assert!(queued > 0, "b never went by the queue in 60 s");
    });
}

/// The name of the thread `wait_until_asleep` looks for.
const WAITER: &str = "dag-test-waiter";

/// Returns once the thread named `name` (under 16 bytes, Linux's limit) is
/// asleep, which the thread of the test above only is inside its wait for a
/// vertex: read from /proc, as no call tells that a thread waits in libdag.
fn wait_until_asleep(name: &str) {
    let deadline = Instant::now() + LONG;
    loop {
        for task in std::fs::read_dir("/proc/self/task").unwrap() {
            let dir = task.unwrap().path();
            let named =
                std::fs::read_to_string(dir.join("comm")).map_or(false, |c| c.trim_end() == name);
            // The state follows the command name, which is in parentheses.
            let stat = std::fs::read_to_string(dir.join("stat")).unwrap_or_default();
            let asleep = stat
                .rsplit_once(") ")
                .map_or(false, |(_, rest)| rest.starts_with('S'));
            if named && asleep {
                return;
            }
        }
        assert!(Instant::now() < deadline, "thread {} never waited", name);
        thread::sleep(Duration::from_millis(1));
    }
}

/// A waker that counts its wakes in a `Flag`, then panics.
struct Panics(Arc<Flag>);

impl Wake for Panics {
    fn wake(self: Arc<Self>) {
        self.0.clone().wake();
        panic!("an executor's waker panicked");
    }
}

#[test]
fn a_waker_that_panics_does_not_stop_the_futures_thread() {
    // The thread died with the panic, and every later future waited for ever.
    within(30, || {
        let (g, _) = graph(&["a", "b", "c"], &[(1, 0), (2, 1)]);
        let walker = g.begin_walk(&WalkOptions::new()).unwrap();
        let a = walker.next_ready(None).unwrap().unwrap();
        let called = Arc::new(Flag::default());
        let panics = Waker::from(Arc::new(Panics(called.clone())));
        let mut future = walker.next_ready_async();
        let mut cx = Context::from_waker(&panics);
        assert!(Pin::new(&mut future).poll(&mut cx).is_pending());
        a.succeed().unwrap();
        // The thread took b, queued it and called the waker, which panicked.
        assert!(called.woken_after(0, LONG), "the waker was not called");
        let b = match Pin::new(&mut future).poll(&mut cx) {
            Poll::Ready(taken) => taken.unwrap().unwrap(),
            Poll::Pending => panic!("b was not queued"),
        };
        drop(future);
        let flag = Arc::new(Flag::default());
        let mut next = walker.next_ready_async();
        assert!(poll_with(&mut next, &flag).is_pending());
        b.succeed().unwrap();
        assert!(flag.woken_after(0, LONG), "not woken for c");
        let c = match poll_with(&mut next, &flag) {
            Poll::Ready(taken) => taken.unwrap().unwrap(),
            Poll::Pending => panic!("woken, but c was not there"),
        };
        c.succeed().unwrap();
        assert!(walker.wait().unwrap().ok());
    });
}

#[test]
fn a_timeout_names_the_whole_wait() {
    // Waits longer than a slice are made of several: the message names the
    // one asked for, not the last slice's.
    let (g, _) = graph(&["a", "b"], &[(1, 0)]);
    let walker = g.begin_walk(&WalkOptions::new()).unwrap();
    let a = walker.next_ready(None).unwrap().unwrap();
    for wait in [Duration::from_millis(20), Duration::from_millis(130)] {
        let started = Instant::now();
        let e = walker.next_ready(Some(wait)).unwrap_err();
        assert!(started.elapsed() >= wait);
        assert_eq!(e.status(), Status::Timeout);
        let ms = wait.as_millis();
        assert!(
            e.message().ends_with(&format!("within {} ms", ms)),
            "{}",
            e.message()
        );
        let e = walker.next_ready_many(4, Some(wait)).unwrap_err();
        assert!(
            e.message().starts_with("Walker::next_ready_many: "),
            "{}",
            e.message()
        );
        assert!(
            e.message().ends_with(&format!("within {} ms", ms)),
            "{}",
            e.message()
        );
    }
    a.succeed().unwrap();
}

#[test]
fn a_future_dropped_once_woken_passes_its_vertex_on() {
    within(30, || {
        let (g, ids) = graph(&["a", "b"], &[(1, 0)]);
        let walker = g.begin_walk(&WalkOptions::new()).unwrap();
        let a = walker.next_ready(None).unwrap().unwrap();
        let (woken, waiting) = (Arc::new(Flag::default()), Arc::new(Flag::default()));
        let mut first = walker.next_ready_async();
        let mut second = walker.next_ready_async();
        assert!(poll_with(&mut first, &woken).is_pending());
        assert!(poll_with(&mut second, &waiting).is_pending());
        a.succeed().unwrap();
        // One vertex: one future is woken for it, and drops out unpolled.
        assert!(woken.woken_after(0, LONG));
        drop(first);
        assert!(
            waiting.woken_after(0, LONG),
            "the other future never heard of b"
        );
        match poll_with(&mut second, &waiting) {
            Poll::Ready(taken) => assert_eq!(taken.unwrap().unwrap().id(), ids[1]),
            Poll::Pending => panic!("woken with nothing to take"),
        }
    });
}

#[test]
fn a_forgotten_future_keeps_no_vertex_from_a_live_one() {
    // The thread woke as many waiting futures as it had queued vertices,
    // first come first: the forgotten one, never polled again, was woken
    // for b, and the live one waited for ever, the walk with it.
    within(30, || {
        let (g, ids) = graph(&["a", "b"], &[(1, 0)]);
        let walker = g.begin_walk(&WalkOptions::new()).unwrap();
        let a = walker.next_ready(None).unwrap().unwrap();
        let (forgotten_flag, live_flag) = (Arc::new(Flag::default()), Arc::new(Flag::default()));
        let mut forgotten = walker.next_ready_async();
        let mut live = walker.next_ready_async();
        assert!(poll_with(&mut forgotten, &forgotten_flag).is_pending());
        assert!(poll_with(&mut live, &live_flag).is_pending());
        mem::forget(forgotten);
        a.succeed().unwrap();
        assert!(
            live_flag.woken_after(0, LONG),
            "the live future never heard of b"
        );
        match poll_with(&mut live, &live_flag) {
            Poll::Ready(taken) => {
                let b = taken.unwrap().unwrap();
                assert_eq!(b.id(), ids[1]);
                b.succeed().unwrap();
            }
            Poll::Pending => panic!("woken with nothing to take"),
        }
        assert!(block_on(walker.next_ready_async()).unwrap().is_none());
        assert!(walker.wait().unwrap().ok());
    });
}

#[test]
fn every_waiting_future_sees_the_walk_end() {
    within(30, || {
        let (g, _) = graph(&["a"], &[]);
        let walker = g.begin_walk(&WalkOptions::new()).unwrap();
        let a = walker.next_ready(None).unwrap().unwrap();
        let flags: Vec<Arc<Flag>> = (0..3).map(|_| Arc::new(Flag::default())).collect();
        let mut futures: Vec<_> = (0..3).map(|_| walker.next_ready_many_async(2)).collect();
        for (future, flag) in futures.iter_mut().zip(&flags) {
            assert!(poll_with(future, flag).is_pending());
        }
        a.succeed().unwrap();
        for (future, flag) in futures.iter_mut().zip(&flags) {
            assert!(flag.woken_after(0, LONG), "not woken at the walk's end");
            match poll_with(future, flag) {
                Poll::Ready(taken) => assert!(taken.unwrap().is_empty()),
                Poll::Pending => panic!("still waiting after the walk ended"),
            }
        }
    });
}

#[test]
fn the_latest_waker_is_the_one_woken() {
    within(30, || {
        let (g, ids) = graph(&["a", "b"], &[(1, 0)]);
        let walker = g.begin_walk(&WalkOptions::new()).unwrap();
        let a = walker.next_ready(None).unwrap().unwrap();
        let (first, latest) = (Arc::new(Flag::default()), Arc::new(Flag::default()));
        let mut future = walker.next_ready_async();
        assert!(poll_with(&mut future, &first).is_pending());
        // Moved to another task, say.
        assert!(poll_with(&mut future, &latest).is_pending());
        a.succeed().unwrap();
        assert!(latest.woken_after(0, LONG));
        assert_eq!(first.wakes(), 0);
        match poll_with(&mut future, &latest) {
            Poll::Ready(taken) => taken.unwrap().unwrap().succeed().unwrap(),
            Poll::Pending => panic!("woken with nothing to take"),
        }
        assert_eq!(
            walker.wait().unwrap().status(ids[1]),
            Some(VertexStatus::Ok)
        );
    });
}

#[test]
fn each_vertex_goes_to_one_of_several_waiting_futures() {
    within(30, || {
        let (g, ids) = graph(&["gate", "x", "y", "z"], &[(1, 0), (2, 0), (3, 0)]);
        let walker = g.begin_walk(&WalkOptions::new().parallelism(4)).unwrap();
        let gate = walker.next_ready(None).unwrap().unwrap();
        let flags: Vec<Arc<Flag>> = (0..4).map(|_| Arc::new(Flag::default())).collect();
        let mut futures: Vec<_> = (0..4).map(|_| Some(walker.next_ready_async())).collect();
        for (future, flag) in futures.iter_mut().zip(&flags) {
            assert!(poll_with(future.as_mut().unwrap(), flag).is_pending());
        }
        gate.succeed().unwrap();
        // Polled only once woken: the wakes alone must bring every vertex.
        let mut seen = [1; 4];
        let mut got = Vec::new();
        let deadline = Instant::now() + LONG;
        while got.len() < 3 {
            assert!(
                Instant::now() < deadline,
                "{} of 3 vertices came",
                got.len()
            );
            for i in 0..4 {
                let wakes = flags[i].wakes();
                if wakes >= seen[i] {
                    seen[i] = wakes + 1;
                    if let Poll::Ready(taken) = poll_with(futures[i].as_mut().unwrap(), &flags[i]) {
                        got.push(taken.unwrap().unwrap());
                        futures[i] = None;
                    }
                }
            }
            thread::sleep(Duration::from_millis(1));
        }
        let taken: HashSet<VertexId> = got.iter().map(|p| p.id()).collect();
        assert_eq!(taken, ids[1..].iter().copied().collect::<HashSet<_>>());
        // The one left waits for the walk's end.
        let last = futures.iter().position(Option::is_some).unwrap();
        let before = flags[last].wakes();
        for pending in got {
            pending.succeed().unwrap();
        }
        assert!(
            flags[last].woken_after(before, LONG),
            "not woken at the walk's end"
        );
        match poll_with(futures[last].as_mut().unwrap(), &flags[last]) {
            Poll::Ready(taken) => assert!(taken.unwrap().is_none()),
            Poll::Pending => panic!("still waiting after the walk ended"),
        }
        assert!(walker.wait().unwrap().ok());
    });
}

#[test]
fn dropping_the_walker_while_its_thread_waits_does_not_hang() {
    within(30, || {
        let (mut g, ids) = graph(&["a", "b"], &[(1, 0)]);
        let walker = g.begin_walk(&WalkOptions::new()).unwrap();
        let a = walker.next_ready(None).unwrap().unwrap();
        let mut future = walker.next_ready_async();
        assert!(poll_with(&mut future, &Arc::new(Flag::default())).is_pending());
        // Long enough for the thread to be inside libdag's wait.
        thread::sleep(Duration::from_millis(20));
        drop(future);
        // The thread waits in libdag for b, which `a`, held here, keeps
        // from ever being ready: the walker's drop must not wait for that.
        let dropping = Instant::now();
        drop(walker);
        assert!(
            dropping.elapsed() < Duration::from_secs(2),
            "{:?}",
            dropping.elapsed()
        );
        assert_eq!(a.id(), ids[0]);
        a.succeed().unwrap();
        g.add_vertex(None).unwrap();
    });
}

#[test]
fn dropping_the_walker_cancels_what_was_queued_for_a_dropped_future() {
    within(30, || {
        let (mut g, ids) = graph(&["a", "b"], &[(1, 0)]);
        let events = Arc::new(Mutex::new(Vec::new()));
        let log = events.clone();
        let options = WalkOptions::new().observer(move |e| {
            if e.kind != EventKind::Started {
                log.lock().unwrap().push((e.vertex, e.status));
            }
        });
        let walker = g.begin_walk(&options).unwrap();
        let a = walker.next_ready(None).unwrap().unwrap();
        let flag = Arc::new(Flag::default());
        let mut future = walker.next_ready_async();
        assert!(poll_with(&mut future, &flag).is_pending());
        a.succeed().unwrap();
        assert!(flag.woken_after(0, LONG));
        drop(future);
        drop(walker);
        // b never reached anyone: cancelled, not failed, and the walk over.
        let events = events.lock().unwrap().clone();
        assert_eq!(
            events,
            [
                (ids[0], VertexStatus::Ok),
                (ids[1], VertexStatus::Cancelled)
            ]
        );
        g.add_vertex(None).unwrap();
    });
}

#[test]
fn cancel_completes_what_was_queued_for_a_dropped_future() {
    within(30, || {
        let (g, ids) = graph(&["a", "b"], &[(1, 0)]);
        let walker = g.begin_walk(&WalkOptions::new()).unwrap();
        let a = walker.next_ready(None).unwrap().unwrap();
        let flag = Arc::new(Flag::default());
        let mut future = walker.next_ready_async();
        assert!(poll_with(&mut future, &flag).is_pending());
        a.succeed().unwrap();
        assert!(flag.woken_after(0, LONG));
        drop(future);
        walker.cancel().unwrap();
        let report = walker
            .wait_timeout(LONG)
            .unwrap()
            .expect("the walk waits for a vertex nobody has");
        assert!(report.cancelled());
        assert_eq!(report.status(ids[0]), Some(VertexStatus::Ok));
        assert_eq!(report.status(ids[1]), Some(VertexStatus::Cancelled));
        assert!(block_on(walker.next_ready_async()).unwrap().is_none());
    });
}

#[test]
fn a_retry_after_its_back_off_wakes_the_future() {
    within(30, || {
        let (g, ids) = graph(&["flaky"], &[]);
        let options = WalkOptions::new()
            .retries(1)
            .retry_delay(Duration::from_millis(200));
        let walker = g.begin_walk(&options).unwrap();
        let waited = block_on(async {
            let first = walker.next_ready_async().await.unwrap().unwrap();
            first.fail("try again").unwrap();
            let failed = Instant::now();
            // Ready again when the back-off ends, with no call from anyone.
            let second = walker.next_ready_async().await.unwrap().unwrap();
            let waited = failed.elapsed();
            assert_eq!(second.id(), ids[0]);
            second.succeed().unwrap();
            assert!(walker.next_ready_async().await.unwrap().is_none());
            waited
        });
        assert!(waited >= Duration::from_millis(150), "{:?}", waited);
        let report = walker.wait().unwrap();
        assert!(report.ok());
        assert_eq!(report.attempts(ids[0]), Some(2));
    });
}

#[test]
fn a_cancel_ends_the_awaited_vertices_and_the_report_says_cancelled() {
    within(30, || {
        let (g, ids) = graph(&["v0", "v1", "v2", "v3"], &[(1, 0), (2, 1), (3, 2)]);
        let walker = g.begin_walk(&WalkOptions::new()).unwrap();
        thread::scope(|s| {
            block_on(async {
                let mut first = walker.next_ready_async().await.unwrap().unwrap();
                assert_eq!(first.id(), ids[0]);
                let walker = &walker;
                // While the future below waits for v1, which v0 holds back.
                s.spawn(move || {
                    thread::sleep(Duration::from_millis(50));
                    walker.cancel().unwrap();
                    first.cancelled().unwrap();
                });
                assert!(walker.next_ready_async().await.unwrap().is_none());
                assert!(walker.next_ready_many_async(4).await.unwrap().is_empty());
            });
        });
        let report = walker.wait().unwrap();
        assert!(report.cancelled());
        assert_eq!(report.count(VertexStatus::Cancelled), 4);
    });
}

#[test]
fn refusals_name_the_async_methods() {
    within(30, || {
        let (g, _) = graph(&["a"], &[]);
        let walker = g
            .start_walk(&WalkOptions::new(), |_| Ok::<(), String>(()))
            .unwrap();
        let err = block_on(walker.next_ready_async()).unwrap_err();
        assert_eq!(err.status(), Status::State);
        assert!(
            err.message().starts_with("Walker::next_ready_async: "),
            "{}",
            err
        );
        assert!(walker.wait().unwrap().ok());
        drop(walker);

        let walker = g.begin_walk(&WalkOptions::new()).unwrap();
        let err = block_on(walker.next_ready_many_async(0)).unwrap_err();
        assert_eq!(err.status(), Status::InvalidArgument);
        assert!(
            err.message().starts_with("Walker::next_ready_many_async: "),
            "{}",
            err
        );
        let batch = block_on(walker.next_ready_many_async(usize::MAX)).unwrap();
        assert_eq!(batch.len(), 1);
    });
}
