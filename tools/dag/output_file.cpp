#include "output_file.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>

#include "libdag.hpp"
#include "standard_output.hpp"

namespace dagcli {
namespace {

// EPIPE: the reader went away, which SIGPIPE's exit status says, as for
// standard output (main.cpp).
[[noreturn]] void cannot_write(const std::string &path, int error) {
    throw Failure("cannot write \"" + path + "\": " + std::strerror(error),
                  error == EPIPE ? 128 + SIGPIPE : bad_input);
}

std::string directory_of(const std::string &path) {
    const std::string::size_type slash = path.rfind('/');
    if (slash == std::string::npos) return ".";
    return slash == 0 ? "/" : path.substr(0, slash);
}

// The file a path ends at, through symbolic links; the path itself when it
// names no file yet, and for a link to nothing, the path the link names
// (what opening it to write creates).
std::string target_of(const std::string &path) {
    char resolved[PATH_MAX];
    if (realpath(path.c_str(), resolved)) return resolved;
    std::string at = path;
    for (int links = 0; links < 40; ++links) {
        struct stat link {};
        if (lstat(at.c_str(), &link) != 0 || !S_ISLNK(link.st_mode)) break;
        char to[PATH_MAX];
        const ssize_t n = readlink(at.c_str(), to, sizeof to - 1);
        if (n <= 0) break;
        to[n] = '\0';
        at = to[0] == '/' ? std::string(to) : directory_of(at) + "/" + to;
    }
    return at;
}

// The descriptor of dag's own that `path` names through /proc/self/fd
// (/dev/stdout, /dev/fd/63 from a shell's `>(...)`), or -1. Such a path is
// a link to whatever the descriptor has open, a pipe's included, whose
// target is no path ("pipe:[123]"): written through the descriptor itself,
// in place, it keeps the shell's `>>` (a reopening would truncate) and
// reaches a pipe (a rename would replace the file behind standard output,
// and all that had been written to it).
int descriptor_named(const std::string &path) {
    static const std::string own = "/proc/" + std::to_string(getpid()) + "/fd";
    std::string at = path;
    for (int links = 0; links < 40; ++links) {
        char directory[PATH_MAX];
        const std::string::size_type slash = at.rfind('/');
        const std::string name = slash == std::string::npos ? at : at.substr(slash + 1);
        if (realpath(directory_of(at).c_str(), directory) && directory == own && !name.empty() &&
            name.find_first_not_of("0123456789") == std::string::npos && name.size() < 10)
            return std::stoi(name);
        struct stat link {};
        if (lstat(at.c_str(), &link) != 0 || !S_ISLNK(link.st_mode)) return -1;
        char to[PATH_MAX];
        const ssize_t n = readlink(at.c_str(), to, sizeof to - 1);
        if (n <= 0) return -1;
        to[n] = '\0';
        at = to[0] == '/' ? std::string(to) : directory_of(at) + "/" + to;
    }
    return -1;
}

// Why `fd` cannot be written, or 0: not open (EBADF), or open only for
// reading, as a closed standard output is (/dev/null read-only, main.cpp).
int unwritable(int fd) {
    const int flags = fcntl(fd, F_GETFL);
    if (flags < 0) return errno;
    return (flags & O_ACCMODE) == O_RDONLY ? EBADF : 0;
}

void require_open_for_writing(const std::string &path, int fd) {
    if (const int why = unwritable(fd); why != 0) cannot_write(path, why);
}

// Writes `text` to `fd` whole. A pipe, FIFO or socket may have a reader
// that stops reading, and a write waiting for it would not end on a signal
// dag catches (its handler restarts the call): it is written a pipe's
// atomic chunk at a time once poll() says there is room, asking `give_up`
// (if given) every few milliseconds while there is none. A descriptor
// shared with other processes is not made non-blocking for this: they
// would see it too. `written`, if given, counts what reached the file.
void write_whole(const std::string &path, int fd, const std::string &text, const std::function<bool()> &give_up,
                 std::size_t *written = nullptr) {
    struct stat file {};
    const bool may_stall = give_up && fstat(fd, &file) == 0 && !S_ISREG(file.st_mode) && !S_ISBLK(file.st_mode);
    for (std::size_t done = 0; done < text.size();) {
        if (may_stall) {
            pollfd room{fd, POLLOUT, 0};
            const int ready = poll(&room, 1, 20);
            if (ready < 0 && errno != EINTR) cannot_write(path, errno);
            if (ready <= 0) {
                if (give_up())
                    throw Failure("cannot write \"" + path + "\": interrupted while it waited for its reader to read",
                                  bad_input);
                continue;
            }
        }
        const std::size_t chunk = may_stall ? std::min<std::size_t>(text.size() - done, PIPE_BUF) : text.size() - done;
        const ssize_t n = write(fd, text.data() + done, chunk);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) cannot_write(path, errno);
        done += static_cast<std::size_t>(n);
        if (written) *written = done;
    }
}

void write_to_descriptor(const std::string &path, int fd, const std::string &text,
                         const std::function<bool()> &give_up) {
    if (fd == STDERR_FILENO) std::fflush(stderr);
    require_open_for_writing(path, fd);
    write_whole(path, fd, text, give_up);
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

// A FIFO's open waits for a reader, where a signal dag catches cannot end
// it: opened without waiting, again and again, until one is there or the
// caller gives up.
int open_fifo(const std::string &path, const std::function<bool()> &give_up) {
    for (;;) {
        const int fd = open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
        if (fd >= 0) {
            // The reader is there: the writes wait for it to read, as long
            // as `give_up` lets them.
            fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
            return fd;
        }
        if (errno != ENXIO) return -1;
        if (give_up())
            throw Failure("cannot write \"" + path + "\": interrupted while it waited for a reader", bad_input);
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
}

void write_in_place(const std::string &path, const std::string &text, bool fifo,
                    const std::function<bool()> &give_up) {
    const int fd = fifo && give_up ? open_fifo(path, give_up)
                                   : open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) cannot_write(path, errno);
    try {
        write_whole(path, fd, text, give_up);
    } catch (...) {
        close(fd);
        throw;
    }
    // A file system that reports a failed write only at the end does so here.
    if (close(fd) != 0 && errno != EINTR) cannot_write(path, errno);
}

// Room for `size` bytes in the open file `fd`, whose size is `old_size`, or
// why there is none: a size limit (EFBIG) or a full disk (ENOSPC), found
// before a byte of the file changes. fallocate(2) rather than
// posix_fallocate(), whose fallback where the file system cannot reserve
// blocks reads the file, which `fd` is not open for. There only the size
// limit can be found first.
int reserve(int fd, off_t old_size, off_t size) {
    if (size == 0 || fallocate(fd, 0, 0, size) == 0) return 0;
    if (errno != EOPNOTSUPP) return errno;
    return size > old_size && ftruncate(fd, size) != 0 ? errno : 0;
}

// A regular file that cannot be replaced, rewritten through its own inode
// instead, as `>` writes it: keeping its owner, mode and links. Not
// truncated on opening: the old contents stay until the new ones have room.
void rewrite_in_place(const std::string &path, const std::string &target, const std::string &text) {
    const int fd = open(target.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) cannot_write(path, errno);
    struct stat old {};
    if (fstat(fd, &old) != 0) {
        const int why = errno;
        close(fd);
        cannot_write(path, why);
    }
    const off_t size = static_cast<off_t>(text.size());
    if (const int why = reserve(fd, old.st_size, size); why != 0) {
        // What the reservation grew (a part of it, on a full disk) goes again.
        (void)ftruncate(fd, old.st_size);
        close(fd);
        cannot_write(path, why);
    }
    std::size_t written = 0;
    try {
        write_whole(path, fd, text, {}, &written);
    } catch (...) {
        // The reservation's room past what was written goes again: the old
        // contents whole when nothing was, else no zeros after them.
        (void)ftruncate(fd, std::max(old.st_size, static_cast<off_t>(written)));
        close(fd);
        throw;
    }
    int why = ftruncate(fd, size) != 0 ? errno : 0;
    // A file system that reports a failed write only at the end does so here.
    if (close(fd) != 0 && errno != EINTR && why == 0) why = errno;
    if (why != 0) cannot_write(path, why);
}

// Why rename() may refuse to replace a file that `>` may still write: a
// sticky directory (/tmp) and a file someone else owns there, a file that
// is a bind mount's target.
bool replace_refused(int error) { return error == EPERM || error == EACCES || error == EBUSY; }

}  // namespace

void write_file(const std::string &path, const std::string &text, const std::function<bool()> &give_up) {
    const int descriptor = path == "-" ? STDOUT_FILENO : descriptor_named(path);
    if (descriptor == STDOUT_FILENO) {
        // After everything the commands printed: the walk is over.
        // EPIPE: the reader went away, which SIGPIPE's exit status says.
        print(text);
        int why = 0;
        if (!flush_standard_output(why) && why != EPIPE) throw Failure(cannot_write_standard_output(why), bad_input);
        return;
    }
    if (descriptor >= 0) return write_to_descriptor(path, descriptor, text, give_up);
    const std::string target = target_of(path);
    struct stat there {};
    const bool exists = stat(target.c_str(), &there) == 0;
    if (exists && !S_ISREG(there.st_mode)) return write_in_place(path, text, S_ISFIFO(there.st_mode), give_up);

    // Renaming over a file would replace one the user may not write to.
    if (exists && access(target.c_str(), W_OK) != 0) cannot_write(path, errno);
    std::string temporary = target + ".XXXXXX";
    int fd = mkstemp(temporary.data());
    // A name as long as the file system takes has no room for the suffix.
    if (fd < 0 && errno == ENAMETOOLONG) {
        temporary = directory_of(target) + "/.dag.XXXXXX";
        fd = mkstemp(temporary.data());
    }
    const int not_created = errno;
    // A writable file in a directory that is not: only in place.
    if (fd < 0 && exists) return rewrite_in_place(path, target, text);
    if (fd < 0) cannot_write(path, not_created);
    std::unique_ptr<FILE, int (*)(FILE *)> file(fdopen(fd, "w"), std::fclose);
    if (!file) {
        const int error = errno;
        close(fd);
        unlink(temporary.c_str());
        cannot_write(path, error);
    }
    // The mode is kept where the file system keeps modes: one that has
    // none (vfat) refuses fchmod, and the file is still worth writing.
    (void)fchmod(fd, exists ? there.st_mode & 07777 : new_file_mode());
    bool written = std::fwrite(text.data(), 1, text.size(), file.get()) == text.size();
    written = std::fclose(file.release()) == 0 && written;
    const int error = errno;
    if (!written || rename(temporary.c_str(), target.c_str()) != 0) {
        const int why = written ? errno : error;
        unlink(temporary.c_str());
        if (written && exists && replace_refused(why)) return rewrite_in_place(path, target, text);
        cannot_write(path, why);
    }
}

std::string refuse_empty_path(const std::string &path) {
    return path.empty() ? "an empty path names no file" : "";
}

void check_writable(const std::string &path) {
    if (path == "-") {
        if (const int why = unwritable(STDOUT_FILENO); why != 0)
            throw Failure(cannot_write_standard_output(why), bad_input);
        return;
    }
    if (const int descriptor = descriptor_named(path); descriptor >= 0) return require_open_for_writing(path, descriptor);
    struct stat there {};
    const bool exists = stat(path.c_str(), &there) == 0;
    // A loop of links, a directory in the way: said as it is.
    if (!exists && errno != ENOENT) cannot_write(path, errno);
    if (exists) {
        if (S_ISFIFO(there.st_mode)) {
            if (access(path.c_str(), W_OK) != 0) cannot_write(path, errno);
            return;
        }
        // Not truncated: a file that is there keeps its contents until written.
        const int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
        if (fd < 0) cannot_write(path, errno);
        close(fd);
        return;
    }
    // Made for the check and taken away again, so that a command that fails
    // later leaves no empty file behind; for a link to nothing, the file
    // opening it would create.
    const std::string target = target_of(path);
    const int fd = open(target.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) cannot_write(path, errno);
    close(fd);
    unlink(target.c_str());
}

namespace {

// What names the file a path would be written to, whether or not it is
// there yet: the file itself, or its directory and its name in it.
struct OutputIdentity {
    dev_t device = 0;
    ino_t inode = 0;
    std::string name;  // empty when the file is there

    bool operator==(const OutputIdentity &other) const {
        return device == other.device && inode == other.inode && name == other.name;
    }
};

bool identify(const std::string &path, OutputIdentity &out) {
    struct stat there {};
    // A descriptor's file, whatever path reaches it: /dev/stdout and a file
    // standard output was redirected to are one.
    if (const int descriptor = path == "-" ? STDOUT_FILENO : descriptor_named(path); descriptor >= 0) {
        if (fstat(descriptor, &there) != 0) return false;
        out = {there.st_dev, there.st_ino, ""};
        return true;
    }
    const std::string target = target_of(path);
    if (stat(target.c_str(), &there) == 0) {
        out = {there.st_dev, there.st_ino, ""};
        return true;
    }
    if (stat(directory_of(target).c_str(), &there) != 0) return false;
    const std::string::size_type slash = target.rfind('/');
    out = {there.st_dev, there.st_ino, slash == std::string::npos ? target : target.substr(slash + 1)};
    return true;
}

}  // namespace

bool overwrites_input(const std::string &output, const std::string &input) {
    struct stat file {};
    if (output.empty() || input.empty()) return false;
    // A descriptor open only for reading (`1<g.dot`) writes nothing over its
    // file: check_writable says why, whichever check runs first.
    if (const int descriptor = output == "-" ? STDOUT_FILENO : descriptor_named(output);
        descriptor >= 0 && unwritable(descriptor) != 0)
        return false;
    // Standard input redirected from a file (`- < g.dot`) reads that file.
    if (input == "-") {
        OutputIdentity written;
        return fstat(STDIN_FILENO, &file) == 0 && S_ISREG(file.st_mode) && identify(output, written) &&
               written == OutputIdentity{file.st_dev, file.st_ino, ""};
    }
    if (stat(input.c_str(), &file) != 0 || !S_ISREG(file.st_mode)) return false;
    return same_output(output, input);
}

bool reads_standard_input(const std::string &path) { return path == "-" || descriptor_named(path) == STDIN_FILENO; }

bool same_output(const std::string &a, const std::string &b) {
    if (a == b) return true;
    const int first_fd = a == "-" ? STDOUT_FILENO : descriptor_named(a);
    if (first_fd >= 0 && first_fd == (b == "-" ? STDOUT_FILENO : descriptor_named(b))) return true;
    OutputIdentity first, second;
    return identify(a, first) && identify(b, second) && first == second;
}

}  // namespace dagcli
