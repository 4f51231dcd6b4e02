#include "Progress.h"

#include <cstdio>
#include <unistd.h>

namespace bdt::tools
{

Progress::Progress(std::string inToolName)
    : mToolName(std::move(inToolName)), mTerminal(isatty(STDERR_FILENO) != 0)
{
}

void Progress::Update(const char* inStage, double inFraction)
{
    const Clock::time_point now = Clock::now();
    if (mStage != inStage)
    {
        Finish();
        mStage = inStage;
        mStageStart = now;
        mLastPrint = now;
    }
    const bool done = inFraction >= 1.0;
    const double sinceLast = std::chrono::duration<double>(now - mLastPrint).count();
    if (done || (mTerminal ? sinceLast > 0.1 : sinceLast > cIntervalSeconds))
    {
        Print(inFraction, done);
        mLastPrint = now;
    }
    if (done)
        mStage.clear();
}

void Progress::Finish()
{
    if (mLineOpen)
        std::fputc('\n', stderr);
    mLineOpen = false;
}

void Progress::Print(double inFraction, bool inDone)
{
    const double seconds = std::chrono::duration<double>(Clock::now() - mStageStart).count();
    const int percent = static_cast<int>(inFraction * 100.0);
    if (mTerminal)
        std::fprintf(stderr, "\r%s: %s %3d%% (%.1f s)", mToolName.c_str(), mStage.c_str(), percent, seconds);
    else
        std::fprintf(stderr, "%s: %s %d%% (%.1f s)\n", mToolName.c_str(), mStage.c_str(), percent, seconds);
    mLineOpen = mTerminal;
    if (inDone)
        Finish();
    std::fflush(stderr);
}

} // namespace bdt::tools
