#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <utility>

namespace CLI
{
class App;
}

namespace bdt::tools
{

/// A failure that the tool reports as `error: <file>: <message>` and exit code 1. `file` is the offending
/// file, or the tool's name for argument errors.
class ToolError : public std::runtime_error
{
public:
    ToolError(std::string inFile, const std::string& inMessage)
        : std::runtime_error(inMessage), mFile(std::move(inFile))
    {
    }

    /// The file (or tool name) the message is about.
    const std::string& File() const { return mFile; }

private:
    std::string mFile;
};

/// `inText` on one line: newlines and tabs become spaces, runs of spaces are collapsed, ends trimmed.
std::string OneLine(const std::string& inText);

/// Runs `inBody` and turns every failure into exactly one line `error: <file>: <message>` on stderr and exit
/// code 1: `ToolError`, `bdt::Error` and other exceptions (attributed to `inToolName`), CLI11 parse errors
/// (also attributed to `inToolName`; `--help` prints the help on stdout and returns 0). Never lets an
/// exception escape. Returns the exit code.
int RunTool(const std::string& inToolName, const std::function<int()>& inBody);

/// Parses the command line with `ioApp`; CLI11 errors propagate to `RunTool`. Returns true when the tool
/// should go on, false when it printed the help and should exit 0.
bool ParseCommandLine(CLI::App& ioApp, int inArgc, char** inArgv);

/// Prints "<tool>: <message>" on stderr (informational output; never used for errors).
void Note(const std::string& inToolName, const std::string& inMessage);

} // namespace bdt::tools
