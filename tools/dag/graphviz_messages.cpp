#include "graphviz_messages.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <sstream>

namespace dagcli {
namespace {

// cgraph's hook is one global, with no pointer for the caller's data; and
// standard error is one for the process.
std::string reported;
int printed = -1;  // a PluginMessages' file, kept until the GraphvizMessages ends

int collect(char *message) {
    reported += message;
    return 0;
}

// A plugin names itself by the command name a program sets through
// gvParseArgs(), which would also take dag's arguments for Graphviz's: a
// library caller has none, and glibc prints it as "(null)".
std::string without_command_name(const std::string &line) {
    static const std::string unset = "(null): ";
    return line.rfind(unset, 0) == 0 ? line.substr(unset.size()) : line;
}

std::string contents(int fd) {
    std::string text;
    char buffer[4096];
    for (off_t at = 0;;) {
        const ssize_t n = pread(fd, buffer, sizeof buffer, at);
        if (n <= 0) return text;
        text.append(buffer, static_cast<size_t>(n));
        at += n;
    }
}

}  // namespace

GraphvizMessages::GraphvizMessages() : old_hook_(agseterrf(collect)), old_level_(agseterr(AGWARN)) {
    reported.clear();
}

GraphvizMessages::~GraphvizMessages() {
    agseterrf(old_hook_);
    agseterr(old_level_);
    if (printed >= 0) close(printed);
    printed = -1;
}

std::vector<std::string> GraphvizMessages::lines() {
    std::vector<std::string> out;
    std::istringstream stream(reported + (printed >= 0 ? contents(printed) : ""));
    for (std::string line; std::getline(stream, line);)
        if (!line.empty()) out.push_back(without_command_name(line));
    return out;
}

PluginMessages::PluginMessages() {
    std::fflush(stderr);
    // Without a file to put them in, the plugins' messages still reach
    // standard error, only not in dag's words.
    if (printed < 0) printed = memfd_create("dag-graphviz-messages", MFD_CLOEXEC);
    if (printed >= 0) saved_stderr_ = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 0);
    if (saved_stderr_ >= 0 && dup2(printed, STDERR_FILENO) < 0) {
        close(saved_stderr_);
        saved_stderr_ = -1;
    }
}

PluginMessages::~PluginMessages() {
    if (saved_stderr_ < 0) return;
    std::fflush(stderr);
    dup2(saved_stderr_, STDERR_FILENO);
    close(saved_stderr_);
}

}  // namespace dagcli
