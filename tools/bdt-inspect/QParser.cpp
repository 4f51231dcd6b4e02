#include "QParser.h"
#include "ToolSupport.h"

#include <bdt/core/bounds/TreeState.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <string_view>

namespace bdt::tools
{

namespace
{

std::string_view Trim(std::string_view inText)
{
    while (!inText.empty() && (inText.front() == ' ' || inText.front() == '\t'))
        inText.remove_prefix(1);
    while (!inText.empty() && (inText.back() == ' ' || inText.back() == '\t'))
        inText.remove_suffix(1);
    return inText;
}

/// Value number `inIndex` (1-based, for messages) of --q.
float ParseValue(std::string_view inToken, std::size_t inIndex)
{
    const std::string_view token = Trim(inToken);
    std::string_view digits = token;
    if (digits.size() > 1 && digits.front() == '+' && digits[1] != '-')
        digits.remove_prefix(1);
    double value = 0.0;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    const std::string where = "--q value " + std::to_string(inIndex) + " ('" + std::string(token) + "')";
    if (error == std::errc::result_out_of_range)
        throw ToolError("bdt-inspect", where + " is out of the range of a double");
    if (digits.empty() || error != std::errc() || end != digits.data() + digits.size())
        throw ToolError("bdt-inspect", where + " is not a number");
    if (!std::isfinite(value))
        throw ToolError("bdt-inspect", where + " is not finite");
    if (std::abs(value) > double(TreeState::cMaxAbsQ))
    {
        char limit[32];
        std::snprintf(limit, sizeof(limit), "%g", double(TreeState::cMaxAbsQ));
        throw ToolError("bdt-inspect", where + " is larger than " + limit + " in magnitude");
    }
    return static_cast<float>(value);
}

} // namespace

std::vector<float> ParseQ(const std::optional<std::string>& inText, const BDTree& inTree,
                          const std::string& inFile)
{
    const std::uint32_t modes = inTree.ModeCount();
    if (!inText)
        return std::vector<float>(modes, 0.0f);
    std::vector<float> q;
    const std::string_view text = *inText;
    if (!Trim(text).empty())
    {
        std::size_t start = 0;
        while (true)
        {
            const std::size_t comma = text.find(',', start);
            const std::size_t stop = comma == std::string_view::npos ? text.size() : comma;
            q.push_back(ParseValue(text.substr(start, stop - start), q.size() + 1));
            if (comma == std::string_view::npos)
                break;
            start = comma + 1;
        }
    }
    if (q.size() != modes)
        throw ToolError("bdt-inspect", "--q has " + std::to_string(q.size()) + " values but " + inFile +
                                           " has " + std::to_string(modes) + " modes");
    return q;
}

} // namespace bdt::tools
