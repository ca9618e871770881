// dag: check, order, convert, walk and draw dependency graphs from the command line.
#include <CLI/CLI.hpp>
#include <dag/dag.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <exception>
#include <new>
#include <sstream>
#include <string>

#include "bracketed_arguments.hpp"
#include "commands.hpp"
#include "completion.hpp"
#include "help_text.hpp"
#include "libdag.hpp"
#include "man_page.hpp"
#include "reader_gone.hpp"
#include "usage_error.hpp"
#include "standard_output.hpp"

namespace {

// `exit_code`, unless output never reached its file (a full disk): that is
// a failure too, unless a signal ended the command: after SIGPIPE it cannot
// have.
int after_flushing(int exit_code) {
    const bool by_signal = exit_code > 128;
    int why = 0;
    if (!dagcli::flush_standard_output(why) && !by_signal) {
        // With SIGPIPE ignored by whoever started dag, a reader gone is a
        // failed write: told by the exit status SIGPIPE would have given,
        // as a walk's report file does.
        if (dagcli::reader_gone(STDOUT_FILENO)) return 128 + SIGPIPE;
        std::fprintf(stderr, "dag: %s\n", dagcli::cannot_write_standard_output(why).c_str());
        return dagcli::bad_input;
    }
    return exit_code;
}

// A descriptor 0, 1 or 2 closed by whoever started dag would be the next
// one dag opens (the signal watcher's pipe, a report file), and output
// meant for the terminal would go there. /dev/null takes its place, opened
// the other way round, so that using it still fails as on a closed one.
void hold_standard_descriptors() {
    for (int fd = 0; fd <= 2; ++fd)
        if (fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
            const int held = open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY);
            if (held >= 0 && held != fd) close(held);
        }
}

}  // namespace

int main(int argc, char **argv) {
    hold_standard_descriptors();
    // A file size limit (ulimit -f) then fails a write with EFBIG, which
    // dag reports and cleans up after, where the signal killed it and left
    // a temporary file; commands get the default back (shell.cpp).
    std::signal(SIGXFSZ, SIG_IGN);
    CLI::App app("Check, order, convert and walk dependency graphs with Terraform's semantics.\n"
                 "FILE is DOT (as `terraform graph` prints it) or libdag JSON, - for standard "
                 "input;\nan edge \"a\" -> \"b\" means a depends on b.",
                 "dag");
    const std::string version = std::string("libdag ") + dag_version_string();
    app.set_version_flag("--version", "dag (" + version + ")");
    app.formatter(dagcli::help_formatter());
    app.require_subcommand(1);
    app.footer("Exit status: 0 ok; 1 the graph failed the check or a vertex failed; 2 usage error,\n"
               "unreadable or malformed input, output that cannot be written, unknown vertex name,\n"
               "out of memory; 130, 143, 129 and 141 after SIGINT, SIGTERM, SIGHUP and SIGPIPE\n"
               "(or a reader of the output gone); 128 + N after the other signals a walk catches\n"
               "(131 after SIGQUIT).");

    int exit_code = 0;
    dagcli::add_check_commands(app, exit_code);
    dagcli::add_order_commands(app, exit_code);
    dagcli::add_format_commands(app, exit_code);
    dagcli::add_walk_command(app, exit_code);
    dagcli::add_render_command(app, exit_code);
    dagcli::add_build_command(app, exit_code);
    dagcli::add_completion_command(app, exit_code);
    dagcli::add_man_flag(app, version);
    dagcli::unmark_bracketed_arguments(app);

    try {
        const dagcli::BracketedArguments arguments(argc, argv);
        app.parse(arguments.argc(), arguments.argv());
    } catch (const CLI::ParseError &e) {
        // --help and --version arrive here too, with CLI11's exit code 0;
        // CLI11 answers them before it looks at an unknown command's word
        // (`dag check --help`), which is still a usage error.
        const auto commands = app.get_subcommands([](const CLI::App *) { return true; });
        const bool unknown_first_word =
            argc > 1 && argv[1][0] != '-' &&
            std::none_of(commands.begin(), commands.end(), [&](const CLI::App *c) { return c->check_name(argv[1]); });
        if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success) && !unknown_first_word) {
            // Through print(), which keeps why a write failed: CLI11
            // writes to std::cout, whose failure keeps no reason.
            std::ostringstream answer;
            const int status = app.exit(e, answer);
            dagcli::print(answer.str());
            return after_flushing(status);
        }
        std::fflush(stdout);
        std::fprintf(stderr, "%s", dagcli::usage_error(app, e, argc, argv).c_str());
        return dagcli::bad_input;
    } catch (const dagcli::Failure &e) {
        std::fflush(stdout);
        std::fprintf(stderr, "dag: %s\n", e.what());
        return e.exit_status();
    } catch (const std::bad_alloc &) {
        std::fflush(stdout);
        std::fprintf(stderr, "dag: out of memory\n");
        return dagcli::bad_input;
    } catch (const std::exception &e) {
        std::fflush(stdout);
        std::fprintf(stderr, "dag: %s\n", e.what());
        return dagcli::check_failed;
    }
    return after_flushing(exit_code);
}
