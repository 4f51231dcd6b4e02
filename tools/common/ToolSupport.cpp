#include "ToolSupport.h"

#include <bdt/core/base/Error.h>

#include <CLI/CLI.hpp>

#include <cstdio>
#include <new>

namespace bdt::tools
{

std::string OneLine(const std::string& inText)
{
    std::string line;
    line.reserve(inText.size());
    for (char c : inText)
    {
        const bool space = c == '\n' || c == '\r' || c == '\t' || c == ' ';
        if (space)
        {
            if (!line.empty() && line.back() != ' ')
                line.push_back(' ');
        }
        else
            line.push_back(c);
    }
    while (!line.empty() && line.back() == ' ')
        line.pop_back();
    return line.empty() ? "unknown error" : line;
}

namespace
{

int ReportError(const std::string& inFile, const std::string& inMessage)
{
    std::fflush(stdout);
    std::fprintf(stderr, "error: %s: %s\n", OneLine(inFile).c_str(), OneLine(inMessage).c_str());
    std::fflush(stderr);
    return 1;
}

} // namespace

int RunTool(const std::string& inToolName, const std::function<int()>& inBody)
{
    try
    {
        return inBody();
    }
    catch (const ToolError& error)
    {
        return ReportError(error.File(), error.what());
    }
    catch (const CLI::ParseError& error)
    {
        return ReportError(inToolName, error.what());
    }
    catch (const bdt::Error& error)
    {
        return ReportError(inToolName, error.what());
    }
    catch (const std::bad_alloc&)
    {
        return ReportError(inToolName, "out of memory");
    }
    catch (const std::exception& error)
    {
        return ReportError(inToolName, error.what());
    }
    catch (...)
    {
        return ReportError(inToolName, "unexpected failure");
    }
}

bool ParseCommandLine(CLI::App& ioApp, int inArgc, char** inArgv)
{
    try
    {
        ioApp.parse(inArgc, inArgv);
        return true;
    }
    catch (const CLI::CallForHelp&)
    {
        std::printf("%s", ioApp.help().c_str());
        return false;
    }
    catch (const CLI::CallForAllHelp&)
    {
        std::printf("%s", ioApp.help("", CLI::AppFormatMode::All).c_str());
        return false;
    }
    catch (const CLI::CallForVersion&)
    {
        std::printf("%s\n", ioApp.version().c_str());
        return false;
    }
}

void Note(const std::string& inToolName, const std::string& inMessage)
{
    std::fprintf(stderr, "%s: %s\n", inToolName.c_str(), inMessage.c_str());
}

} // namespace bdt::tools
