// The walk command: runs each vertex once its dependencies have finished,
// independent ones in parallel on libdag's pool.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "commands.hpp"
#include "input.hpp"
#include "names.hpp"
#include "shell.hpp"

namespace dagcli {
namespace {

struct WalkOptions {
    Input input;
    size_t parallelism = 10;
    bool reverse = false;
    bool fail_fast = false;
    bool progress = false;
    std::string exec;
};

// Shared by the callback and the observer, which run on libdag's pool threads.
struct WalkRun {
    const dag_graph *graph;
    const std::string &command;
    // Guards everything below and every line written, so lines never mix.
    std::mutex mutex;
    size_t finished = 0;
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
        std::string name = vertex_name(run.graph, vertex);
        if (run.command.empty()) {
            std::lock_guard lock(run.mutex);
            std::printf("%s\n", name.c_str());
            return DAG_WALK_OK;
        }
        std::optional<std::string> failure = run_shell(run.command, name);
        return failure ? fail(walk, vertex, *failure) : DAG_WALK_OK;
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
    if (event == DAG_WALK_EVENT_STARTED) return;
    WalkRun &run = *static_cast<WalkRun *>(data);
    try {
        std::string name = vertex_name(run.graph, vertex);
        std::lock_guard lock(run.mutex);
        // libdag's own `done` is a snapshot that may arrive out of order; a
        // count taken under the lock always goes up by one a line.
        ++run.finished;
        if (status == DAG_VERTEX_OK)
            std::fprintf(stderr, "[%zu/%zu] %s\n", run.finished, total, name.c_str());
        else
            std::fprintf(stderr, "[%zu/%zu] %s (%s)\n", run.finished, total, name.c_str(),
                         dag_vertex_status_string(status));
    } catch (const std::exception &) {
        // Progress lines are best effort; the walk and its report go on.
    }
}

// Totals, then each failed vertex by name; exit status 1 if any failed.
int summarize(const dag_graph *g, const dag_walk_report *report) {
    std::fprintf(stderr, "%zu ok, %zu failed, %zu upstream failed, %zu not run\n",
                 dag_walk_report_count(report, DAG_VERTEX_OK),
                 dag_walk_report_count(report, DAG_VERTEX_FAILED),
                 dag_walk_report_count(report, DAG_VERTEX_UPSTREAM_FAILED),
                 dag_walk_report_count(report, DAG_VERTEX_NOT_RUN));
    dag_error *err = nullptr;
    std::vector<dag_vertex_outcome> outcomes(dag_walk_report_size(report));
    size_t read = 0;
    check(dag_walk_report_read(report, 0, outcomes.data(), outcomes.size(), sizeof(dag_vertex_outcome), &read,
                               &err),
          &err);
    std::vector<std::pair<std::string, std::string>> failures;
    for (const dag_vertex_outcome &o : outcomes)
        if (o.status == DAG_VERTEX_FAILED) failures.emplace_back(vertex_name(g, o.vertex), o.message);
    std::sort(failures.begin(), failures.end());
    for (const auto &[name, message] : failures)
        std::fprintf(stderr, "failed: %s%s%s\n", name.c_str(), message.empty() ? "" : ": ",
                     message.c_str());
    return failures.empty() ? 0 : 1;
}

int walk(const WalkOptions &options) {
    Graph g = load(options.input);
    WalkRun run{g.get(), options.exec, {}, 0};
    dag_walk_options walk_options;
    dag_error *err = nullptr;
    check(dag_walk_options_init(&walk_options, sizeof walk_options, &err), &err);
    walk_options.parallelism = options.parallelism;
    // threads stays 0, a pool thread per slot: an --exec command holds its
    // thread until it exits, so `parallelism` commands at once need as many.
    walk_options.reverse = options.reverse;
    walk_options.failure_policy = options.fail_fast ? DAG_FAILURE_FAIL_FAST : DAG_FAILURE_CONTINUE;
    if (options.progress) {
        walk_options.observer = observe;
        walk_options.observer_data = &run;
    }
    dag_walk_report *raw = nullptr;
    dag_status status = dag_walk(g.get(), visit, &run, &walk_options, &raw, &err);
    WalkReport report(raw);
    // Failed vertices are the summary's business, not an error of the command.
    check(status == DAG_E_WALK_FAILED ? DAG_OK : status, &err);
    // The dry run's names come before the summary when both streams go to one place.
    std::fflush(stdout);
    return summarize(g.get(), report.get());
}

}  // namespace

void add_walk_command(CLI::App &app, int &exit_code) {
    auto options = std::make_shared<WalkOptions>();
    CLI::App *command =
        app.add_subcommand("walk", "Run each vertex once all it depends on is done, in parallel");
    command->footer("Without --exec, each vertex prints its name as it runs: a dry run of the "
                    "execution order.\nExample: with a -> b and b -> c (a depends on b, b on c), "
                    "c runs first, then b, then a;\nwith --reverse, a first, then b, then c, "
                    "as `dag order` and `dag order --reverse` list them.\n"
                    "A summary (ok, failed, upstream failed, not run) goes to standard error.\n\n" +
                    app.get_footer());
    add_input(*command, options->input);
    command->add_option("--parallelism", options->parallelism, "Most vertices running at once")
        ->check(CLI::Range(size_t{1}, size_t{DAG_WALK_MAX_THREADS}))
        ->capture_default_str()
        ->type_name("N");
    command->add_flag("--reverse", options->reverse,
                      "Run dependents before their dependencies (destroy order, as `dag order --reverse`)");
    command->add_flag("--fail-fast", options->fail_fast,
                      "Start nothing new once a vertex has failed");
    command->add_option("--exec", options->exec,
                        "Run `/bin/sh -c CMD` for each vertex, with DAG_VERTEX set to its name; "
                        "a non-zero exit status fails the vertex, and what depends on it is "
                        "skipped as upstream failed")
        ->type_name("CMD");
    command->add_flag("--progress", options->progress,
                      "Print \"[done/total] name\" on standard error as each vertex finishes");
    command->callback([options, &exit_code] { exit_code = walk(*options); });
}

}  // namespace dagcli
