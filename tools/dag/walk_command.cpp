// The walk command: runs each vertex once its dependencies have finished,
// independent ones in parallel on libdag's pool.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "commands.hpp"
#include "help_text.hpp"
#include "input.hpp"
#include "named_values.hpp"
#include "names.hpp"
#include "output_capture.hpp"
#include "output_file.hpp"
#include "selection.hpp"
#include "shell.hpp"
#include "signals.hpp"
#include "status_line.hpp"
#include "ticker.hpp"
#include "trace_file.hpp"
#include "walk_command.hpp"
#include "walk_pools.hpp"
#include "walk_report_file.hpp"
#include "walk_result.hpp"
#include "whole_number.hpp"
#include "worker_tracks.hpp"
#include "standard_output.hpp"

namespace dagcli {
namespace {

// Shared by the callback and the observer, which run on libdag's pool threads.
struct WalkRun {
    const dag_graph *graph;
    const std::string &command;
    Shell &shell;
    WorkerTracks tracks;
    // Guards everything below and every line written, so lines never mix.
    std::mutex mutex;
    // Progress on a terminal; without it, progress is a line per vertex.
    std::optional<StatusLine> status;
    size_t finished = 0;
    // How each command stopped by a signal ended: libdag's own note for the
    // vertex ("cancelled while pending") says nothing about the command.
    std::map<uint64_t, std::string> stopped;
    // Vertices whose last attempt the stop kept from starting its command:
    // libdag saw their callback run, the user no command.
    std::set<uint64_t> never_started;
};

// dag_walk_fail copies the message before it returns: nothing need outlive
// the callback.
dag_walk_result fail(dag_walker *walk, uint64_t vertex, const std::string &why) {
    dag_walk_fail(walk, vertex, why.c_str(), nullptr);
    return DAG_WALK_FAILED;
}

dag_walk_result visit(dag_walker *walk, uint64_t vertex, const char **message, void *data) noexcept {
    WalkRun &run = *static_cast<WalkRun *>(data);
    try {
        run.tracks.note(vertex);
        std::string name = vertex_name(run.graph, vertex);
        if (run.command.empty()) {
            std::lock_guard lock(run.mutex);
            if (run.status) run.status->erase();
            print(name + "\n");
            return DAG_WALK_OK;
        }
        CommandResult result = run.shell.run(run.command, name);
        if (!result.output.out.empty() || !result.output.err.empty()) {
            // Whole, under the lock, so that no other vertex's lines land in between.
            std::lock_guard lock(run.mutex);
            if (run.status) run.status->erase();
            // By length: a NUL byte in a command's output is output too.
            const std::string out = prefixed(name, result.output.out);
            const std::string err = prefixed(name, result.output.err);
            print(out);
            flush_printed();
            std::fwrite(err.data(), 1, err.size(), stderr);
        }
        // The walk was cancelled before the command was stopped; a vertex
        // left pending in a cancelled walk is finished as cancelled, which
        // is what it is, rather than as failed.
        if (result.stopped) {
            std::lock_guard lock(run.mutex);
            if (result.started)
                run.stopped[vertex] = "stopped by dag: " + *result.failure;
            else
                run.never_started.insert(vertex);
            return DAG_WALK_PENDING;
        }
        if (!result.failure) return DAG_WALK_OK;
        {
            // With --retries it may wait out a back-off now, not running.
            std::lock_guard lock(run.mutex);
            if (run.status) run.status->attempt_ended(vertex);
        }
        return fail(walk, vertex, *result.failure);
    } catch (const std::exception &e) {
        // Nothing may unwind into libdag: the failure becomes the vertex's,
        // with a fixed message if even copying the exception's fails.
        *message = "the dag program could not run this vertex";
        dag_walk_fail(walk, vertex, e.what(), nullptr);
        return DAG_WALK_FAILED;
    }
}

void observe(dag_walker *, dag_walk_event event, uint64_t vertex, dag_vertex_status status,
             size_t, size_t, size_t total, void *data) noexcept {
    WalkRun &run = *static_cast<WalkRun *>(data);
    if (event == DAG_WALK_EVENT_STARTED && !run.status) return;
    try {
        std::string name = vertex_name(run.graph, vertex);
        std::lock_guard lock(run.mutex);
        if (event == DAG_WALK_EVENT_STARTED) {
            run.status->started(vertex, std::move(name), total);
            return;
        }
        // libdag's own `done` is a snapshot that may arrive out of order; a
        // count taken under the lock always goes up by one a line.
        ++run.finished;
        if (run.status)
            run.status->finished(vertex, status == DAG_VERTEX_FAILED, run.finished, total);
        else if (status == DAG_VERTEX_OK)
            std::fprintf(stderr, "[%zu/%zu] %s\n", run.finished, total, name.c_str());
        else
            std::fprintf(stderr, "[%zu/%zu] %s (%s)\n", run.finished, total, name.c_str(),
                         status_words(status));
    } catch (const std::exception &) {
        // Progress lines are best effort; the walk and its report go on.
    }
}

// The running walk, for the signal watcher to cancel: the first signal may
// come before the walk has started, or after it has ended.
class Cancellation {
  public:
    void request() {
        std::lock_guard lock(mutex_);
        requested_ = true;
        if (walker_) dag_walk_cancel(walker_, nullptr);
    }
    void started(dag_walker *walker) {
        std::lock_guard lock(mutex_);
        walker_ = walker;
        if (requested_) dag_walk_cancel(walker_, nullptr);
    }
    void ended() {
        std::lock_guard lock(mutex_);
        walker_ = nullptr;
    }

  private:
    std::mutex mutex_;
    dag_walker *walker_ = nullptr;
    bool requested_ = false;
};

// A vertex whose last attempt the stop kept from starting: as it was
// before that attempt (a vertex that never ran, when it was the first).
void not_started(VertexResult &v) {
    if (v.attempts <= 1) {
        v.ran = false;
        v.attempts = 0;
        v.start_ns = v.end_ns = 0;
        v.worker = 0;
        v.message.clear();
        v.attempt_messages.clear();
        return;
    }
    --v.attempts;
    v.attempt_messages.pop_back();
    v.message = v.attempt_messages.back();
    if (v.attempts == 1) v.attempt_messages.clear();
}

// Totals, then each failed vertex, each whose command the stop ended and
// each that never ran, by name; then the signal that stopped the walk, if
// one did. Exit status 1 if any failed.
// `never_started`: those the stop kept from starting, retries included (a
// vertex that ran before and waited for its retry), which
// `python3 -m libdag.dask` lists as never run too.
int summarize(const dag_walk_report *report, const WalkResult &result, int signal,
              const std::set<uint64_t> &never_started) {
    const size_t cancelled = dag_walk_report_count(report, DAG_VERTEX_CANCELLED);
    std::fprintf(stderr, "%zu ok, %zu failed, %zu upstream failed, %zu not run",
                 dag_walk_report_count(report, DAG_VERTEX_OK),
                 dag_walk_report_count(report, DAG_VERTEX_FAILED),
                 dag_walk_report_count(report, DAG_VERTEX_UPSTREAM_FAILED),
                 dag_walk_report_count(report, DAG_VERTEX_NOT_RUN));
    if (cancelled > 0) std::fprintf(stderr, ", %zu cancelled", cancelled);
    std::fputc('\n', stderr);
    std::vector<std::pair<std::string, std::string>> failures;
    std::vector<std::string> stopped, never_ran;
    for (const VertexResult &v : result.vertices) {
        if (v.status == DAG_VERTEX_FAILED) failures.emplace_back(v.name, v.message);
        const bool kept = v.status == DAG_VERTEX_CANCELLED && (!v.ran || never_started.count(v.id));
        if (v.status == DAG_VERTEX_CANCELLED && !kept) stopped.push_back(v.name);
        if (v.status == DAG_VERTEX_NOT_RUN || kept) never_ran.push_back(v.name);
    }
    std::sort(failures.begin(), failures.end());
    std::sort(stopped.begin(), stopped.end());
    std::sort(never_ran.begin(), never_ran.end());
    for (const auto &[name, message] : failures)
        std::fprintf(stderr, "failed: %s%s%s\n", name.c_str(), message.empty() ? "" : ": ",
                     message.c_str());
    for (const std::string &name : stopped) std::fprintf(stderr, "stopped: %s\n", name.c_str());
    for (const std::string &name : never_ran) std::fprintf(stderr, "never ran: %s\n", name.c_str());
    if (signal != 0) std::fprintf(stderr, "interrupted by %s\n", signal_name(signal));
    return failures.empty() ? 0 : check_failed;
}

// Before any command runs: a path found unwritable afterwards would throw
// away the walk's outcome with its exit status.
void check_result_files(const WalkOptions &options) {
    const bool both = !options.report_file.empty() && !options.trace_file.empty() &&
                      same_output(options.report_file, options.trace_file);
    if (both && (options.report_file == "-" || options.trace_file == "-"))
        throw Failure("--report and --trace cannot both be standard output", bad_input);
    if (both) throw Failure("--report and --trace cannot both be \"" + options.report_file + "\"", bad_input);
    if (!options.report_file.empty()) check_writable(options.report_file);
    if (!options.trace_file.empty()) check_writable(options.trace_file);
    // The walk's outcome written over its graph would lose it. Standard
    // output is told by the file it writes: FILE's.
    for (const auto &[what, path] : {std::pair<const char *, const std::string &>{"--report", options.report_file},
                                     {"--trace", options.trace_file}})
        if (overwrites_input(path, options.input.path))
            throw Failure(std::string(what) + " and FILE cannot both be \"" + (path == "-" ? options.input.path : path) +
                              "\"",
                          bad_input);
}

// --report and --trace, whichever were asked for; `give_up` ends a wait
// for a FIFO's reader.
void write_result_files(const WalkOptions &options, const WalkResult &result,
                        const std::function<bool()> &give_up = {}) {
    if (!options.report_file.empty()) write_report_file(options.report_file, result, give_up);
    if (!options.trace_file.empty()) write_trace_file(options.trace_file, result, give_up);
}

}  // namespace

std::string refuse_empty_command(const std::string &command) {
    return command.empty() ? "the command is empty" : "";
}

int walk_graph(Graph loaded, const WalkOptions &options, const FilePools &file_pools) {
    const auto grace = std::chrono::milliseconds(static_cast<int64_t>(options.grace_seconds * 1000));
    Shell shell(options.output, grace);
    // Grouped output holds descriptors per command: above about 250 at
    // once, the usual soft limit of 1024 open files ran out and failed
    // vertices.
    if (!options.exec.empty()) shell.make_room(options.parallelism);
    Cancellation cancellation;
    // The pools are checked on the whole file: an attribute naming a pool no
    // --pool declares is refused, and a pattern said to match nothing, also
    // where --target leaves the vertex out.
    WalkPools pools(loaded.get(), options.pools, file_pools);
    Graph g = apply_selection(std::move(loaded), options.input, options.selection, options.reverse);
    pools.keep_only(g.get());
    // Before anything runs: a file that cannot be written is said now,
    // not after the walk's commands have run.
    holding_signals([&](const auto &) { check_result_files(options); });
    // From here on Ctrl-C, a hangup or a reader of the output going away
    // stops the walk instead of killing dag, so that the commands are
    // stopped too and the summary and the result files are written.
    std::atomic<int> signals_caught{0};
    std::optional<SignalWatcher> signals;
    signals.emplace(
        [&](int) {
            signals_caught.fetch_add(1);
            cancellation.request();
            shell.stop(grace);
        },
        // A second one: the user will not wait out the grace.
        [&](int) {
            signals_caught.fetch_add(1);
            shell.hurry();
        });

    // A signal after the first `caught_by_then` (those that cancelled the
    // walk) ends a wait for a FIFO's reader, and dag exits as that signal
    // says.
    const auto write_files = [&](const WalkResult &result, int caught_by_then) {
        try {
            write_result_files(options, result, [&] { return signals_caught.load() > caught_by_then; });
        } catch (const Failure &failure) {
            const int last = SignalWatcher::last_received();
            // A reader gone raised SIGPIPE as the write failed: the watcher's
            // thread may not have counted it yet, so it counts here.
            const bool reader_gone = failure.exit_status() == exit_status_after(SIGPIPE);
            if ((signals_caught.load() == caught_by_then && !reader_gone) || last == 0) throw;
            throw Failure(failure.what(), exit_status_after(last));
        }
    };

    WalkRun run{g.get(), options.exec, shell, {}, {}, {}, 0, {}, {}};
    const bool progress = options.progress == "always" || (options.progress == "auto" && isatty(2));
    // Streamed commands write to the terminal themselves, over a line
    // redrawn in place that dag could not erase first: lines then.
    if (progress && can_redraw(2) && options.output != OutputMode::stream) run.status.emplace(2);
    dag_walk_options walk_options;
    dag_error *err = nullptr;
    check(dag_walk_options_init(&walk_options, sizeof walk_options, &err), &err);
    walk_options.parallelism = options.parallelism;
    // threads stays 0, a pool thread per slot: an --exec command holds its
    // thread until it exits, so `parallelism` commands at once need as many.
    walk_options.reverse = options.reverse;
    walk_options.failure_policy = options.fail_fast ? DAG_FAILURE_FAIL_FAST : DAG_FAILURE_CONTINUE;
    // Only the result files show the times: two clock reads a vertex saved otherwise.
    walk_options.timestamps = !options.report_file.empty() || !options.trace_file.empty();
    pools.apply(walk_options);
    walk_options.retries = options.retries;
    walk_options.retry_delay_ms = options.retry_delay_ms;
    walk_options.retry_doubling = 1;
    walk_options.priority = options.priority;
    if (progress) {
        walk_options.observer = observe;
        walk_options.observer_data = &run;
    }
    dag_walker *raw_walker = nullptr;
    const auto began = std::chrono::steady_clock::now();
    try {
        const dag_status started = dag_walk_start(g.get(), visit, &run, &walk_options, &raw_walker, &err);
        // A pool name that is not UTF-8 is an input error, as every other
        // bad --pool is; libdag is the one that checks it.
        check(started, &err, started == DAG_E_BAD_UTF8 ? bad_input : check_failed);
    } catch (const Failure &refused) {
        // A walk refused (a cycle) leaves its files too, with nothing run.
        write_files(unwalked(g.get()), 0);  // nothing ran: any signal
        // One that came while they were written (which it let finish) ends
        // dag as it says, as after a walk.
        signals.reset();
        if (const int last = SignalWatcher::last_received(); last != 0)
            throw Failure(refused.what(), exit_status_after(last));
        throw;
    }
    Walker walker(raw_walker);
    cancellation.started(walker.get());
    dag_walk_report *raw = nullptr;
    dag_status status = DAG_OK;
    {
        std::optional<Ticker> ticker;
        if (run.status)
            ticker.emplace(std::chrono::milliseconds(100), [&run] {
                std::lock_guard lock(run.mutex);
                run.status->tick();
            });
        status = dag_walk_wait(walker.get(), &raw, &err);
    }
    const auto elapsed = std::chrono::steady_clock::now() - began;
    cancellation.ended();
    if (run.status) run.status->erase();
    WalkReport report(raw);
    if (!report) check(status, &err);
    // The dry run's names come before the summary when both streams go to one place.
    flush_printed();
    const int signal = SignalWatcher::last_received();
    WalkResult result = walk_result(g.get(), report.get(), run.tracks,
                                    std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed).count());
    for (VertexResult &vertex : result.vertices) {
        if (auto found = run.stopped.find(vertex.id); found != run.stopped.end()) {
            vertex.message = found->second;
            // The stopped run is the last attempt: its message too.
            if (!vertex.attempt_messages.empty()) vertex.attempt_messages.back() = found->second;
        }
        if (run.never_started.count(vertex.id)) not_started(vertex);
    }
    const int failed = summarize(report.get(), result, signal, run.never_started);
    write_files(result, signals_caught.load());
    // One that came after the walk, while its files were written (which it
    // let finish, rather than leave a temporary file), ends dag all the same;
    // read once the watcher is gone, so that none lands in between unheard.
    signals.reset();
    const int last = SignalWatcher::last_received();
    // Failed vertices and a cancelled walk are the summary's business; any
    // other error of a walk that ran (DAG_E_CALLBACK) ends the command, but
    // after the summary and the files, with a signal's status if one came.
    try {
        check(status == DAG_E_WALK_FAILED || status == DAG_E_CANCELLED ? DAG_OK : status, &err);
    } catch (const Failure &failure) {
        if (last == 0) throw;
        throw Failure(failure.what(), exit_status_after(last));
    }
    return last != 0 ? exit_status_after(last) : failed;
}

void add_walk_command(CLI::App &app, int &exit_code) {
    auto options = std::make_shared<WalkOptions>();
    CLI::App *command =
        app.add_subcommand("walk", "Run each vertex once all it depends on is done, in parallel");
    set_help(*command,
             "Without --exec, each vertex prints its name as it runs: a dry run of the execution "
             "order.\nWith a -> b and b -> c (a depends on b, b on c), c runs first, then b, then a;\n"
             "with --reverse, a first, then b, then c, as `dag order` and `dag order --reverse` "
             "list them.\nA summary (ok, failed, upstream failed, not run, cancelled if any; which "
             "vertices failed, were\nstopped and never started) goes to standard error. SIGINT (Ctrl-C), SIGTERM, SIGHUP, "
             "SIGPIPE (a reader\nof the output gone) or another signal that would end dag (SIGQUIT...) "
             "cancels the walk: nothing\nnew starts, each running command's session (every process it "
             "started) gets SIGTERM, and\nSIGKILL after --grace seconds; the summary and the result files "
             "are written; exit status\n130, 143, 129, 141, or 128 + the signal's number.",
             {"$ echo 'digraph { a -> b; b -> c }' | dag walk --exec 'echo \"deploying $DAG_VERTEX\"' -",
              "c: deploying c", "b: deploying b", "a: deploying a",
              "3 ok, 0 failed, 0 upstream failed, 0 not run"});
    add_input(*command, options->input);
    command->add_option("--parallelism", options->parallelism, "Most vertices running at once")
        ->transform(whole_number(1, DAG_WALK_MAX_THREADS))
        ->capture_default_str()
        ->type_name("N");
    command->add_flag("--reverse", options->reverse,
                      "Run dependents before their dependencies (destroy order, as `dag order --reverse`)");
    add_selection_options(*command, options->selection);
    command->add_flag("--fail-fast", options->fail_fast,
                      "Start nothing new once a vertex has failed");
    command->add_option("--exec", options->exec,
                        "Run `/bin/sh -c CMD` for each vertex, with DAG_VERTEX set to its name; "
                        "a non-zero exit status fails the vertex, and what depends on it is "
                        "skipped as upstream failed")
        ->check(refuse_empty_command)
        ->type_name("CMD");
    add_pool_options(*command, options->pools);
    command->add_option("--priority", options->priority,
                        "Which ready vertex starts first: critical-path (the default: the longest "
                        "chain of vertices still to run through it first, ties by name), name (by "
                        "name), or none (about as they became ready, the fastest for vertices that "
                        "do almost nothing). critical-path and name are reproducible with "
                        "--parallelism 1")
        ->transform(named_values(std::map<std::string, dag_walk_priority>{
            {"none", DAG_PRIORITY_NONE},
            {"critical-path", DAG_PRIORITY_CRITICAL_PATH},
            {"name", DAG_PRIORITY_NAME}}))
        ->default_str("critical-path")
        ->type_name("ORDER");
    command->add_option("--retries", options->retries,
                        "Run a failed vertex again up to N more times (0 to 1000) before it counts "
                        "as failed and what depends on it is skipped")
        ->transform(whole_number(0, 1000))
        ->capture_default_str()
        ->type_name("N");
    command->add_option("--retry-delay", options->retry_delay_ms,
                        "Wait this long before the first retry of a vertex, twice as long before "
                        "each later one")
        ->transform(whole_number(0, 86400000))
        ->capture_default_str()
        ->type_name("MS");
    command->add_option("--output", options->output,
                        "Where --exec commands' output goes: grouped (each command's standard "
                        "output and error printed whole when it ends, each line after "
                        "\"vertex: \"), stream (straight through, as it comes) or none (discarded)")
        ->transform(named_values(std::map<std::string, OutputMode>{{"stream", OutputMode::stream},
                                                                    {"grouped", OutputMode::grouped},
                                                                    {"none", OutputMode::none}}))
        ->default_str("grouped")
        ->type_name("MODE");
    // A flag whose value comes only after "=": `--progress FILE`, the spelling
    // from before WHEN existed, keeps FILE as the graph.
    command->add_flag("--progress{always}", options->progress,
                      "Show progress on standard error: --progress=auto (the default: when it is a "
                      "terminal), --progress=always (or a bare --progress) or --progress=never. On a "
                      "terminal, one status line redrawn in place: \"[done/total] running N, failed F, "
                      "elapsed, rate: a running vertex\"; elsewhere, and with --output stream, "
                      "\"[done/total] name\" as each vertex finishes")
        ->check(CLI::IsMember({"auto", "always", "never"}))
        ->option_text("[=WHEN]");
    command->add_option("--grace", options->grace_seconds,
                        "On a signal that stops the walk, how long running commands get to exit after "
                        "SIGTERM before their sessions are killed; as long for what a command "
                        "leaves running in its session when it exits")
        // One check for both: CLI11's range called a word that is no number
        // (`1s`, `1,5`) out of range, and NaN passes a range (every
        // comparison with it is false). The description is the range's.
        ->check(CLI::Validator(
            [](std::string &text) {
                char *end = nullptr;
                const double seconds = std::strtod(text.c_str(), &end);
                if (text.empty() || *end != '\0' || std::isnan(seconds))
                    return "not a number of seconds: " + text;
                return seconds >= 0 && seconds <= 86400 ? std::string()
                                                        : "not between 0 and 86400 seconds: " + text;
            },
            "FLOAT in [0 - 86400]"))
        ->capture_default_str()
        ->type_name("SECONDS");
    command->add_option("--report", options->report_file,
                        "Write the outcome of every vertex (status, message, start and end in ms "
                        "since the walk began) and the totals as JSON to FILE (- for standard output, after "
                        "the commands' output), interrupted or not")
        ->check(refuse_empty_path)
        ->type_name("FILE");
    command->add_option("--trace", options->trace_file,
                        "Write the walk as Chrome trace-event JSON to FILE (open it in Perfetto or "
                        "chrome://tracing): a span per vertex that ran, a track per worker thread; - for "
                        "standard output")
        ->check(refuse_empty_path)
        ->type_name("FILE");
    command->callback([options, &exit_code] {
        // The file's pools attributes matter only once a pool is declared:
        // without one, the file is read as every other command reads it.
        if (options->pools.pools.empty()) {
            exit_code = walk_graph(load(options->input), *options);
            return;
        }
        const std::string text = read_text(options->input.path);
        Graph g = load(options->input, text);
        exit_code = walk_graph(std::move(g), *options,
                               file_pools(text, options->input.format, shown_name(options->input)));
    });
}

}  // namespace dagcli
