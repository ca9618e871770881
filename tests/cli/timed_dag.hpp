// `dag` run through /bin/sh and timeout(1), its output in files: a walk
// that hangs fails its test instead of stalling the suite. on_terminal goes
// through script(1), which gives dag a pseudo-terminal and copies what dag
// writes to it.
#pragma once

#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "background_dag.hpp"

namespace cli_test {

struct Outcome {
    int status = -1;
    std::string out, err;
    double seconds = 0;
};

// Single quotes for /bin/sh.
inline std::string quoted(const std::string &text) {
    std::string result = "'";
    for (char c : text) result += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return result + "'";
}

inline std::string dag_command(const std::vector<std::string> &args) {
    std::string command = quoted(DAG_CLI);
    for (const std::string &arg : args) command += " " + quoted(arg);
    return command;
}

// Runs `command` under /bin/sh, standard output and error to files, killed
// after a minute.
inline Outcome shell(const ScratchDir &dir, const std::string &command) {
    const std::string out = dir.path + "/out", err = dir.path + "/err";
    const std::string line = "timeout -k 5 60 /bin/sh -c " + quoted(command) + " </dev/null >" + out +
                             " 2>" + err;
    const auto began = Clock::now();
    const int status = std::system(line.c_str());
    Outcome run;
    run.seconds = std::chrono::duration<double>(Clock::now() - began).count();
    run.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    run.out = read_file(out);
    run.err = read_file(err);
    return run;
}

// `dag args...` with standard output and error on a pseudo-terminal of
// `columns` columns; everything written to it comes back in out. TERM is
// set: a CI runner's TERM=dumb would turn the status line off.
inline Outcome on_terminal(const ScratchDir &dir, const std::vector<std::string> &args, int columns = 200) {
    const std::string inner = "stty cols " + std::to_string(columns) + "; TERM=xterm " + dag_command(args);
    return shell(dir, "script -qec " + quoted(inner) + " /dev/null");
}

inline std::string graph_file(const ScratchDir &dir, const std::string &dot) {
    const std::string path = dir.path + "/graph.dot";
    std::ofstream(path) << dot;
    return path;
}

inline std::vector<std::string> lines_of(const std::string &text) {
    std::vector<std::string> lines;
    std::istringstream stream(text);
    for (std::string line; std::getline(stream, line);) lines.push_back(line);
    return lines;
}

}  // namespace cli_test
