// measure_run COMMAND [ARGS...]: runs the command and prints, on one stdout line, its exit code, its wall-clock
// seconds and the peak resident memory of its whole process tree (KiB: Linux carries the largest of the waited-for
// descendants' peaks up to each parent, so a reader process forked by the command counts). The command's own
// output passes through. For tools.reader_limits.
#include <chrono>
#include <cstdio>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char** argv)
{
    if (argc < 2)
    {
        std::fprintf(stderr, "usage: measure_run COMMAND [ARGS...]\n");
        return 2;
    }
    const auto start = std::chrono::steady_clock::now();
    const pid_t child = ::fork();
    if (child < 0)
        return 2;
    if (child == 0)
    {
        ::execv(argv[1], argv + 1);
        ::_exit(127);
    }
    int status = 0;
    rusage usage{};
    if (::wait4(child, &status, 0, &usage) != child)
        return 2;
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    rusage descendants{};
    ::getrusage(RUSAGE_CHILDREN, &descendants);
    const long peak = usage.ru_maxrss > descendants.ru_maxrss ? usage.ru_maxrss : descendants.ru_maxrss;
    std::printf("rc=%d seconds=%.3f peak_kib=%ld\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1, seconds, peak);
    return 0;
}
