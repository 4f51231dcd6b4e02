#pragma once

#include <chrono>
#include <string>

namespace bdt::tools
{

/// Progress lines on stderr for the long steps of a bake. On a terminal one line per stage is rewritten in
/// place; otherwise (logs, CI) a line is printed at most every `cIntervalSeconds` and when a stage ends, so a
/// short bake prints one line per stage and a long one shows it is alive.
class Progress
{
public:
    /// Prints lines prefixed with `inToolName`.
    explicit Progress(std::string inToolName);

    /// Reports `inFraction` (0..1) of stage `inStage` done; a stage ends when it reaches 1 or another starts.
    void Update(const char* inStage, double inFraction);

    /// Ends the current stage line, if any.
    void Finish();

private:
    static constexpr double cIntervalSeconds = 2.0;
    using Clock = std::chrono::steady_clock;

    void Print(double inFraction, bool inDone);

    std::string mToolName;
    std::string mStage;
    bool mTerminal = false;
    bool mLineOpen = false;
    Clock::time_point mStageStart;
    Clock::time_point mLastPrint;
};

} // namespace bdt::tools
