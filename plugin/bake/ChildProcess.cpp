#include "ChildProcess.h"

#include <bdt/core/base/Error.h>

#include <cerrno>
#include <algorithm>
#include <chrono>
#include <csignal>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <new>
#include <string>

#include <poll.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

// The sanitizers' runtime interface, for the child's memory guard in sanitizer builds (weak: null without a
// sanitizer runtime). Declared here rather than through <sanitizer/...> headers, which not every toolchain ships.
extern "C"
{
__attribute__((weak)) int __sanitizer_install_malloc_and_free_hooks(void (*)(const volatile void*, std::size_t),
                                                                     void (*)(const volatile void*));
__attribute__((weak)) std::size_t __sanitizer_get_allocated_size(const volatile void*);
__attribute__((weak)) void __sanitizer_set_death_callback(void (*)(void));
__attribute__((weak)) const char* __asan_get_report_description(void);
}

namespace bdt::detail
{

namespace
{

// The pipe's protocol: one status byte, then the work's bytes (status 0) or an error message (status 1).
constexpr std::uint8_t cStatusBytes = 0;
constexpr std::uint8_t cStatusError = 1;

bool WriteAll(int inFd, const void* inData, std::size_t inSize)
{
    const auto* bytes = static_cast<const std::uint8_t*>(inData);
    while (inSize > 0)
    {
        const ssize_t written = ::write(inFd, bytes, inSize);
        if (written < 0 && errno == EINTR)
            continue;
        if (written <= 0)
            return false;
        bytes += written;
        inSize -= std::size_t(written);
    }
    return true;
}

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool cSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
constexpr bool cSanitized = true;
#else
constexpr bool cSanitized = false;
#endif
#else
constexpr bool cSanitized = false;
#endif

// The process's address space now, bytes (the first field of /proc/self/statm, in pages); 0 if unknown.
std::uint64_t AddressSpaceBytes()
{
    std::FILE* file = std::fopen("/proc/self/statm", "r");
    if (file == nullptr)
        return 0;
    unsigned long long pages = 0;
    const bool read = std::fscanf(file, "%llu", &pages) == 1;
    std::fclose(file);
    const long pageBytes = ::sysconf(_SC_PAGESIZE);
    return read && pageBytes > 0 ? pages * std::uint64_t(pageBytes) : 0;
}

// The child's memory guard where `RLIMIT_AS` cannot be used (sanitizer builds): the sanitizer's allocator hooks
// count the bytes the child holds, and past the limit the child reports running out of it through the pipe, as
// the limit's std::bad_alloc would, before it touches the memory; an allocation the sanitizer itself refuses
// (more than the machine can map) ends in its out-of-memory report, whose death callback reports the same. The
// child runs one thread, so plain globals serve.
int gChildFd = -1;
std::uint64_t gHeld = 0, gLimit = 0;
char gOutOfMemory[128];
std::size_t gOutOfMemoryLength = 0;

[[noreturn]] void ReportOutOfMemory()
{
    const std::uint8_t status = cStatusError;
    const bool sent = WriteAll(gChildFd, &status, 1) && WriteAll(gChildFd, gOutOfMemory, gOutOfMemoryLength);
    ::_exit(sent ? 0 : 3);
}

void CountAllocation(const volatile void*, std::size_t inSize)
{
    gHeld += inSize;
    if (gLimit > 0 && gHeld > gLimit)
        ReportOutOfMemory();
}

void CountRelease(const volatile void* inPointer)
{
    if (inPointer != nullptr)
        gHeld -= std::min<std::uint64_t>(gHeld, __sanitizer_get_allocated_size(inPointer));
}

void OnSanitizerDeath()
{
    const char* kind = __asan_get_report_description != nullptr ? __asan_get_report_description() : nullptr;
    if (kind != nullptr && (std::strcmp(kind, "out-of-memory") == 0 || std::strcmp(kind, "allocation-size-too-big") == 0 ||
                            std::strcmp(kind, "calloc-overflow") == 0 || std::strcmp(kind, "rss-limit-exceeded") == 0))
        ReportOutOfMemory();
}

void GuardSanitizedMemory(int inFd, const ChildLimits& inLimits)
{
    if (!cSanitized || __sanitizer_install_malloc_and_free_hooks == nullptr || __sanitizer_get_allocated_size == nullptr)
        return;
    gChildFd = inFd;
    gLimit = inLimits.memoryBytes;
    const std::string message =
        inLimits.memoryBytes > 0
            ? "the reader ran out of its memory limit (" + std::to_string(inLimits.memoryBytes >> 20) + " MiB)"
            : "the reader ran out of memory";
    gOutOfMemoryLength = std::min(message.size(), sizeof gOutOfMemory);
    std::memcpy(gOutOfMemory, message.data(), gOutOfMemoryLength);
    __sanitizer_install_malloc_and_free_hooks(&CountAllocation, &CountRelease);
    if (__sanitizer_set_death_callback != nullptr)
        __sanitizer_set_death_callback(&OnSanitizerDeath);
}

void ApplyLimits(const ChildLimits& inLimits)
{
    if (inLimits.memoryBytes > 0 && !cSanitized)
    {
        const std::uint64_t current = AddressSpaceBytes();
        if (current > 0)
        {
            const rlimit limit{rlim_t(current + inLimits.memoryBytes), rlim_t(current + inLimits.memoryBytes)};
            ::setrlimit(RLIMIT_AS, &limit);
        }
    }
    if (inLimits.cpuSeconds > 0.0)
    {
        // SIGXCPU at the soft limit ends the child (its default action); SIGKILL a second later otherwise.
        const rlim_t seconds = rlim_t(std::ceil(inLimits.cpuSeconds));
        const rlimit limit{seconds, seconds + 1};
        ::setrlimit(RLIMIT_CPU, &limit);
    }
}

[[noreturn]] void RunChild(int inFd, const std::function<std::vector<std::uint8_t>()>& inWork,
                           const ChildLimits& inLimits)
{
    // A crash must end this process, not run the parent's handlers (a fuzzer's, a game's crash reporter).
    for (const int signal : {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL, SIGXCPU})
        std::signal(signal, SIG_DFL);
    ApplyLimits(inLimits);
    GuardSanitizedMemory(inFd, inLimits);
    std::uint8_t status = cStatusBytes;
    std::vector<std::uint8_t> bytes;
    try
    {
        bytes = inWork();
    }
    catch (const std::bad_alloc&)
    {
        status = cStatusError;
        const std::string message =
            inLimits.memoryBytes > 0
                ? "the reader ran out of its memory limit (" + std::to_string(inLimits.memoryBytes >> 20) + " MiB)"
                : "the reader ran out of memory";
        bytes.assign(message.begin(), message.end());
    }
    catch (const Error& error)
    {
        status = cStatusError;
        const std::string message = error.what();
        bytes.assign(message.begin(), message.end());
    }
    catch (const std::exception& exception)
    {
        status = cStatusError;
        const std::string message = std::string("unexpected exception: ") + exception.what();
        bytes.assign(message.begin(), message.end());
    }
    catch (...)
    {
        status = cStatusError;
        const std::string message = "unexpected unknown exception";
        bytes.assign(message.begin(), message.end());
    }
    const bool sent = WriteAll(inFd, &status, 1) && WriteAll(inFd, bytes.data(), bytes.size());
    ::_exit(sent ? 0 : 3);
}

std::string SignalName(int inSignal)
{
    switch (inSignal)
    {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGABRT: return "SIGABRT";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGKILL: return "SIGKILL";
    case SIGXCPU: return "SIGXCPU";
    default: return "signal " + std::to_string(inSignal);
    }
}

} // namespace

std::vector<std::uint8_t> RunInChildProcess(const std::function<std::vector<std::uint8_t>()>& inWork,
                                            double inTimeoutSeconds, const ChildLimits& inLimits)
{
    int fds[2];
    if (::pipe(fds) != 0)
        throw Error(std::string("cannot create a pipe for the reader process (") + std::strerror(errno) + ")");
    const pid_t child = ::fork();
    if (child < 0)
    {
        const int error = errno;
        ::close(fds[0]);
        ::close(fds[1]);
        throw Error(std::string("cannot start the reader process (") + std::strerror(error) + ")");
    }
    if (child == 0)
    {
        ::close(fds[0]);
        RunChild(fds[1], inWork, inLimits);
    }
    ::close(fds[1]);

    // Read until the child closes its end (or the deadline passes), then reap it.
    std::vector<std::uint8_t> received;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(inTimeoutSeconds);
    bool timedOut = false;
    std::uint8_t buffer[1 << 16];
    for (;;)
    {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0)
        {
            timedOut = true;
            break;
        }
        pollfd poller{fds[0], POLLIN, 0};
        const int ready = ::poll(&poller, 1, int(std::min<long long>(left.count(), 1000)));
        if (ready < 0 && errno != EINTR)
            break;
        if (ready <= 0)
            continue;
        const ssize_t count = ::read(fds[0], buffer, sizeof buffer);
        if (count < 0 && errno == EINTR)
            continue;
        if (count <= 0)
            break;
        received.insert(received.end(), buffer, buffer + count);
    }
    ::close(fds[0]);
    if (timedOut)
        ::kill(child, SIGKILL);
    int status = 0;
    while (::waitpid(child, &status, 0) < 0 && errno == EINTR)
    {
    }
    if (timedOut)
        throw Error("the reader did not finish within " + std::to_string(int(inTimeoutSeconds)) + " s");
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGXCPU)
        throw Error("the reader ran out of its CPU time limit (" +
                    std::to_string(int(std::ceil(inLimits.cpuSeconds))) + " s)");
    if (WIFSIGNALED(status))
        throw Error("the reader crashed (" + SignalName(WTERMSIG(status)) + ")");
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || received.empty())
        throw Error("the reader failed (exit code " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) +
                    ")");
    if (received[0] == cStatusError)
        throw Error(std::string(received.begin() + 1, received.end()));
    received.erase(received.begin());
    return received;
}

} // namespace bdt::detail
