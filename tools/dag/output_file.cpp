#include "output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "libdag.hpp"

namespace dagcli {
namespace {

[[noreturn]] void cannot_write(const std::string &path, int error) {
    throw Failure("cannot write \"" + path + "\": " + std::strerror(error), bad_input);
}

// The file a path ends at, through symbolic links; the path itself when it
// names no file yet (or a link to nothing).
std::string target_of(const std::string &path) {
    char resolved[PATH_MAX];
    return realpath(path.c_str(), resolved) ? std::string(resolved) : path;
}

// The mode a file created now would get: 0666 less the umask, read from
// /proc rather than set and restored (umask() changes it for every thread).
mode_t new_file_mode() {
    mode_t mask = 022;
    if (std::unique_ptr<FILE, int (*)(FILE *)> status{std::fopen("/proc/self/status", "r"), std::fclose}) {
        char line[256];
        while (std::fgets(line, sizeof line, status.get()))
            if (std::strncmp(line, "Umask:", 6) == 0) mask = static_cast<mode_t>(std::strtoul(line + 6, nullptr, 8));
    }
    return 0666 & ~mask;
}

void write_in_place(const std::string &path, const std::string &text) {
    std::unique_ptr<FILE, int (*)(FILE *)> file(std::fopen(path.c_str(), "w"), std::fclose);
    bool written = file && std::fwrite(text.data(), 1, text.size(), file.get()) == text.size();
    // fclose flushes: a full disk shows up there.
    written = written && std::fclose(file.release()) == 0;
    if (!written) cannot_write(path, errno);
}

}  // namespace

void write_file(const std::string &path, const std::string &text) {
    if (path == "-") {
        // After everything the commands printed: the walk is over.
        // EPIPE: the reader went away, which SIGPIPE's exit status says.
        const bool written = std::fwrite(text.data(), 1, text.size(), stdout) == text.size() && std::fflush(stdout) == 0;
        if (!written && errno != EPIPE)
            throw Failure(std::string("cannot write standard output: ") + std::strerror(errno), bad_input);
        return;
    }
    const std::string target = target_of(path);
    struct stat there {};
    const bool exists = stat(target.c_str(), &there) == 0;
    if (exists && !S_ISREG(there.st_mode)) return write_in_place(path, text);

    std::string temporary = target + ".XXXXXX";
    const int fd = mkstemp(temporary.data());
    // A writable file in a directory that is not: only in place.
    if (fd < 0 && exists && access(target.c_str(), W_OK) == 0) return write_in_place(path, text);
    if (fd < 0) cannot_write(path, errno);
    std::unique_ptr<FILE, int (*)(FILE *)> file(fdopen(fd, "w"), std::fclose);
    if (!file) {
        const int error = errno;
        close(fd);
        unlink(temporary.c_str());
        cannot_write(path, error);
    }
    bool written = fchmod(fd, exists ? there.st_mode & 07777 : new_file_mode()) == 0 &&
                   std::fwrite(text.data(), 1, text.size(), file.get()) == text.size();
    written = std::fclose(file.release()) == 0 && written;
    const int error = errno;
    if (!written || rename(temporary.c_str(), target.c_str()) != 0) {
        const int why = written ? errno : error;
        unlink(temporary.c_str());
        cannot_write(path, why);
    }
}

void check_writable(const std::string &path) {
    if (path == "-") return;
    struct stat there {};
    if (stat(path.c_str(), &there) == 0 && S_ISFIFO(there.st_mode)) {
        if (access(path.c_str(), W_OK) != 0) cannot_write(path, errno);
        return;
    }
    // Not truncated: a file that is there keeps its contents until written.
    const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0) cannot_write(path, errno);
    close(fd);
}

bool same_output(const std::string &a, const std::string &b) {
    if (a == b) return true;
    struct stat first {}, second {};
    return stat(a.c_str(), &first) == 0 && stat(b.c_str(), &second) == 0 && first.st_dev == second.st_dev &&
           first.st_ino == second.st_ino;
}

}  // namespace dagcli
