#pragma once

#include <cstdio>
#include <stdexcept>
#include <string>

namespace bdt
{

/// The one exception type the library throws for bad input (models, assets, parameters). `what()` is one
/// line without a newline or the file's name, for `error: <file>: <what>`.
class Error : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

/// `inValue` with three significant digits ("1e+06", "0.4", "nan"), for error messages. O(1).
inline std::string FormatNumber(double inValue)
{
    char text[32];
    std::snprintf(text, sizeof(text), "%.3g", inValue);
    return text;
}

} // namespace bdt
