#include "shell.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>
#include <vector>

namespace dagcli {

std::optional<std::string> run_shell(const std::string &command, const std::string &vertex) {
    // The environment is built per call, not set with setenv(): commands of
    // other vertices are being started on other threads at the same time.
    const char prefix[] = "DAG_VERTEX=";
    std::string variable = prefix + vertex;
    std::vector<char *> environment;
    for (char **entry = environ; *entry != nullptr; ++entry)
        if (std::strncmp(*entry, prefix, sizeof prefix - 1) != 0) environment.push_back(*entry);
    environment.push_back(variable.data());
    environment.push_back(nullptr);

    std::string shell = "sh", option = "-c", script = command;
    char *arguments[] = {shell.data(), option.data(), script.data(), nullptr};
    pid_t pid = 0;
    int error = posix_spawn(&pid, "/bin/sh", nullptr, nullptr, arguments, environment.data());
    if (error != 0) return "cannot run /bin/sh: " + std::generic_category().message(error);

    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) return "waiting for /bin/sh: " + std::generic_category().message(errno);
    }
    if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
    if (WEXITSTATUS(status) != 0) return "exit status " + std::to_string(WEXITSTATUS(status));
    return std::nullopt;
}

}  // namespace dagcli
