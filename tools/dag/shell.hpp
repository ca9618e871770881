// Runs one vertex's --exec command.
#pragma once

#include <optional>
#include <string>

namespace dagcli {

// Runs `/bin/sh -c command` with DAG_VERTEX=vertex added to the environment,
// inheriting standard input, output and error, and waits for it. Returns why
// it failed ("exit status 3"), or nothing when it exited with status 0.
// Safe to call from several threads at once.
std::optional<std::string> run_shell(const std::string &command, const std::string &vertex);

}  // namespace dagcli
